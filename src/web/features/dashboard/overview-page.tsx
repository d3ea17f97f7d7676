import { useQuery } from '@tanstack/react-query'
import { CalendarDays, CreditCard, Package, ShieldCheck } from 'lucide-react'
import type * as React from 'react'
import { Link } from 'react-router'
import type { Payment, Subscription } from '@/domain/contracts/billing'
import { paths } from '@/web/app/paths'
import { Button } from '@/web/components/ui/button'
import { Card, CardContent, CardHeader } from '@/web/components/ui/card'
import { PageHeader } from '@/web/components/ui/page-header'
import { QueryState } from '@/web/components/query-state'
import { EmptyState } from '@/web/components/ui/states'
import { formatBRL, formatDate } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { useSessionUser } from '@/web/lib/session'
import { currentSubscription } from '@/web/shared/billing/current-subscription'
import { overviewReads, paymentsQuery, subscriptionsQuery } from '@/web/shared/billing/api'
import { billingMethodLabel, billingTexts, SubscriptionStatusBadge } from '@/web/shared/billing/status-badges'

/** The dashboard's index: the current plan, the next payment, the status and how it is paid. */
export function OverviewPage() {
  useDocumentTitle('Painel')
  const { user } = useSessionUser()
  // The newest subscription in force and the open invoices are all the overview needs (both small, server-filtered).
  const subscriptions = useQuery(subscriptionsQuery(overviewReads.subscriptions))
  const payments = useQuery(paymentsQuery(overviewReads.payments))
  const firstName = user?.name.split(' ')[0]

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Painel"
        description={firstName ? `Olá, ${firstName}! Este é o resumo da sua assinatura.` : 'Resumo da sua assinatura.'}
      />
      <QueryState query={subscriptions} loadingLabel="Carregando assinatura…">
        {(data) => <Overview subscription={currentSubscription(data.items)} payments={payments.data?.items ?? []} />}
      </QueryState>
    </div>
  )
}

function Overview({ subscription, payments }: { subscription: Subscription | undefined; payments: Payment[] }) {
  if (!subscription) {
    return (
      <EmptyState title="Você ainda não tem uma assinatura ativa.">
        <p className="text-sm text-muted-foreground">Escolha um plano para começar a usar a plataforma.</p>
        <Button asChild>
          <Link to={paths.subscriptions}>Escolher um plano</Link>
        </Button>
      </EmptyState>
    )
  }
  const openInvoice = payments.find(
    (p) => p.subscriptionId === subscription.id && (p.status === 'pending' || p.status === 'pending_pix'),
  )

  return (
    <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
      <OverviewCard icon={Package} title="Plano atual">
        <p className="text-2xl font-bold">{subscription.plan.name}</p>
        <p className="text-sm text-muted-foreground">{formatBRL(subscription.plan.priceCents)}/mês</p>
        <Link to={paths.mySubscriptions} className="mt-auto pt-2 text-sm font-medium text-primary hover:underline">
          Gerenciar assinatura
        </Link>
      </OverviewCard>
      <OverviewCard icon={CalendarDays} title="Próximo pagamento">
        {openInvoice ? (
          <>
            <p className="text-2xl font-bold">{formatDate(openInvoice.dueDate)}</p>
            <p className="text-sm text-muted-foreground">{formatBRL(openInvoice.amountCents)} · fatura em aberto</p>
            <Link to={paths.payments} className="mt-auto pt-2 text-sm font-medium text-primary hover:underline">
              Pagar fatura
            </Link>
          </>
        ) : subscription.cancelAtPeriodEnd || subscription.status === 'past_due' ? (
          <>
            <p className="text-2xl font-bold">—</p>
            <p className="text-sm text-muted-foreground">
              Sem cobrança agendada. Acesso até {formatDate(subscription.currentPeriodEnd)}.
            </p>
          </>
        ) : (
          <>
            <p className="text-2xl font-bold">{formatDate(subscription.currentPeriodEnd)}</p>
            <p className="text-sm text-muted-foreground">{formatBRL(subscription.plan.priceCents)}</p>
          </>
        )}
      </OverviewCard>
      <OverviewCard icon={ShieldCheck} title="Status">
        <div>
          <SubscriptionStatusBadge status={subscription.status} />
        </div>
        {subscription.cancelAtPeriodEnd ? <p className="text-sm">{billingTexts.cancelScheduled}</p> : null}
      </OverviewCard>
      <OverviewCard icon={CreditCard} title="Forma de pagamento">
        <p className="text-lg font-semibold">{billingMethodLabel[subscription.billingMethod]}</p>
      </OverviewCard>
    </ul>
  )
}

function OverviewCard({
  icon: Icon,
  title,
  children,
}: {
  icon: React.ComponentType<{ className?: string; 'aria-hidden'?: boolean | 'true' }>
  title: string
  children: React.ReactNode
}) {
  return (
    <li className="flex">
      <Card className="flex w-full flex-col">
        <CardHeader className="flex-row items-center justify-between gap-2 pb-2">
          <h2 className="text-sm font-medium text-muted-foreground">{title}</h2>
          <Icon className="size-5 text-primary" aria-hidden="true" />
        </CardHeader>
        <CardContent className="flex flex-1 flex-col gap-1">{children}</CardContent>
      </Card>
    </li>
  )
}
