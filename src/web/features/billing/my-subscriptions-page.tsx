import { useQuery } from '@tanstack/react-query'
import { CalendarClock, CircleCheck, Plus } from 'lucide-react'
import { useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import type { PixCharge, Subscription } from '@/domain/contracts/billing'
import { canCustomerCancel, canUpgrade } from '@/domain/subscription-status'
import { paths } from '@/web/app/paths'
import { Button } from '@/web/components/ui/button'
import { Card, CardContent, CardFooter, CardHeader } from '@/web/components/ui/card'
import { DialogActions, DialogFrame } from '@/web/components/ui/dialog-frame'
import { PageHeader } from '@/web/components/ui/page-header'
import { Pagination } from '@/web/components/ui/pagination'
import { QueryState } from '@/web/components/query-state'
import { EmptyState } from '@/web/components/ui/states'
import { formatBRL, formatDate } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { PixPaymentDialog } from '@/web/shared/billing/pix-payment-view'
import { pageFrom, subscriptionsQuery, useCancelSubscription } from '@/web/shared/billing/api'
import { billingMethodLabel, billingTexts, SubscriptionStatusBadge } from '@/web/shared/billing/status-badges'
import { UpgradeDialog } from './upgrade-dialog'
import { AutoRenewalPanel } from '@/web/shared/pix-automatico/auto-renewal-panel'

/** After the card provider sends the customer back, its webhook may still be on the way: look again for a while. */
const checkoutPollMs = 3000
const checkoutPollTimes = 20
const subscriptionsPageSize = 20

/** 'my-subscriptions': the customer's subscriptions, newest first, with upgrade and cancel. */
export function MySubscriptionsPage() {
  useDocumentTitle('Minhas assinaturas')
  const [searchParams, setSearchParams] = useSearchParams()
  const checkoutSuccess = searchParams.get('checkout') === 'success'
  const page = pageFrom(searchParams)
  const subscriptions = useQuery({
    ...subscriptionsQuery({ page, pageSize: subscriptionsPageSize }),
    refetchInterval: (query) =>
      checkoutSuccess && query.state.dataUpdateCount < checkoutPollTimes ? checkoutPollMs : false,
  })
  const [upgrading, setUpgrading] = useState<Subscription | null>(null)
  const [canceling, setCanceling] = useState<Subscription | null>(null)
  const [charge, setCharge] = useState<PixCharge | null>(null)

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Minhas assinaturas"
        description="Acompanhe seus planos, troque de plano ou cancele quando quiser."
        actions={
          <Button asChild>
            <Link to={paths.subscriptions}>
              <Plus aria-hidden="true" />
              Nova Assinatura
            </Link>
          </Button>
        }
      />
      {checkoutSuccess ? (
        <p
          role="status"
          className="flex items-start gap-2 rounded-lg border border-primary/30 bg-secondary p-4 text-secondary-foreground"
        >
          <CircleCheck className="mt-0.5 size-5 shrink-0" aria-hidden="true" />
          <span>{billingTexts.checkoutSuccess}</span>
        </p>
      ) : null}
      <QueryState
        query={subscriptions}
        loadingLabel="Carregando assinaturas…"
        isEmpty={(data) => data.total === 0}
        empty={
          <EmptyState title={billingTexts.noSubscriptions}>
            <Button asChild variant="outline">
              <Link to={paths.subscriptions}>Ver planos</Link>
            </Button>
          </EmptyState>
        }
      >
        {(data) => (
          <>
            <ul className="grid gap-4 lg:grid-cols-2">
              {data.items.map((subscription) => (
                <li key={subscription.id} className="flex">
                  <SubscriptionCard
                    subscription={subscription}
                    onUpgrade={() => setUpgrading(subscription)}
                    onCancel={() => setCanceling(subscription)}
                  />
                </li>
              ))}
            </ul>
            {data.total > data.pageSize ? (
              <Pagination
                page={data.page}
                pageSize={data.pageSize}
                total={data.total}
                onPage={(next) => setSearchParams(next > 1 ? { page: String(next) } : {})}
              />
            ) : null}
          </>
        )}
      </QueryState>
      <UpgradeDialog
        subscription={upgrading}
        onOpenChange={(open) => !open && setUpgrading(null)}
        onPixCharge={setCharge}
      />
      <CancelDialog subscription={canceling} onOpenChange={(open) => !open && setCanceling(null)} />
      <PixPaymentDialog open={charge !== null} onOpenChange={(open) => !open && setCharge(null)} charge={charge}>
        <Button asChild variant="outline">
          <Link to={paths.payments}>Ver minhas faturas</Link>
        </Button>
      </PixPaymentDialog>
    </div>
  )
}

function SubscriptionCard({
  subscription,
  onUpgrade,
  onCancel,
}: {
  subscription: Subscription
  onUpgrade: () => void
  onCancel: () => void
}) {
  const titleId = `subscription-${subscription.id}-title`
  const upgradable = canUpgrade(subscription.status)
  const cancelable = canCustomerCancel(subscription.status, subscription.cancelAtPeriodEnd)
  const awaitingPix = subscription.status === 'pending_pix'
  return (
    <Card role="group" aria-labelledby={titleId} className="flex w-full flex-col">
      <CardHeader className="gap-2">
        <div className="flex flex-wrap items-start justify-between gap-2">
          <h2 id={titleId} className="text-xl font-semibold leading-tight">
            {subscription.plan.name}
          </h2>
          <SubscriptionStatusBadge status={subscription.status} />
        </div>
        <p className="break-all font-mono text-xs text-muted-foreground">ID: {subscription.id}</p>
      </CardHeader>
      <CardContent className="flex flex-1 flex-col gap-3">
        <dl className="grid gap-3 text-sm sm:grid-cols-2">
          <div className="flex flex-col gap-0.5">
            <dt className="text-muted-foreground">Período</dt>
            <dd className="font-medium">
              {formatDate(subscription.currentPeriodStart)} – {formatDate(subscription.currentPeriodEnd)}
            </dd>
          </div>
          <div className="flex flex-col gap-0.5">
            <dt className="text-muted-foreground">Valor mensal</dt>
            <dd className="font-medium">{formatBRL(subscription.plan.priceCents)}/mês</dd>
          </div>
          <div className="flex flex-col gap-0.5">
            <dt className="text-muted-foreground">Forma de pagamento</dt>
            <dd className="font-medium">{billingMethodLabel[subscription.billingMethod]}</dd>
          </div>
        </dl>
        {subscription.billingMethod === 'pix' && subscription.status !== 'canceled' ? (
          <AutoRenewalPanel subscriptionId={subscription.id} />
        ) : null}
        {subscription.cancelAtPeriodEnd ? (
          <p className="flex items-start gap-2 rounded-md bg-muted p-3 text-sm">
            <CalendarClock className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
            <span>
              {billingTexts.cancelScheduled} ({formatDate(subscription.currentPeriodEnd)}). Você continua com acesso até
              lá.
            </span>
          </p>
        ) : null}
      </CardContent>
      {upgradable || cancelable || awaitingPix ? (
        <CardFooter className="flex-wrap gap-2">
          {upgradable ? <Button onClick={onUpgrade}>Trocar Plano</Button> : null}
          {cancelable ? (
            <Button variant="outline" onClick={onCancel}>
              Cancelar
            </Button>
          ) : null}
          {awaitingPix ? (
            <Button asChild variant="outline">
              <Link to={paths.payments}>Ver fatura</Link>
            </Button>
          ) : null}
        </CardFooter>
      ) : null}
    </Card>
  )
}

function CancelDialog({
  subscription,
  onOpenChange,
}: {
  subscription: Subscription | null
  onOpenChange: (open: boolean) => void
}) {
  const cancel = useCancelSubscription()
  return (
    <DialogFrame
      open={subscription !== null}
      onOpenChange={onOpenChange}
      busy={cancel.isPending}
      title="Cancelar assinatura?"
      description={
        subscription ? (
          <>
            A assinatura do plano {subscription.plan.name} continua ativa até{' '}
            {formatDate(subscription.currentPeriodEnd)} e não será renovada depois disso.
          </>
        ) : null
      }
    >
      <DialogActions
        back="Voltar"
        onBack={() => onOpenChange(false)}
        pending={cancel.isPending}
        action="Confirmar cancelamento"
        variant="destructive"
        onAction={() => {
          if (subscription) cancel.mutate(subscription.id, { onSuccess: () => onOpenChange(false) })
        }}
      />
    </DialogFrame>
  )
}
