import { useQuery } from '@tanstack/react-query'
import { CircleCheck, CreditCard, ExternalLink, Loader2, QrCode } from 'lucide-react'
import { useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import type { Payment } from '@/domain/contracts/billing'
import { paths } from '@/web/app/paths'
import { Button } from '@/web/components/ui/button'
import { Card, CardContent, CardFooter, CardHeader } from '@/web/components/ui/card'
import { PageHeader } from '@/web/components/ui/page-header'
import { Pagination } from '@/web/components/ui/pagination'
import { QueryState } from '@/web/components/query-state'
import { EmptyState } from '@/web/components/ui/states'
import { formatBRL, formatDate } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { publicPlansQuery } from '@/web/shared/plans-query'
import { PixPaymentDialog } from '@/web/shared/billing/pix-payment-view'
import {
  openInvoicesPageSize,
  pageFrom,
  paymentsQuery,
  pixChargeQuery,
  useInvoiceCardCheckout,
} from '@/web/shared/billing/api'
import { billingTexts, PaymentStatusBadge, refundLabelOf } from '@/web/shared/billing/status-badges'

const paymentTypeLabel: Record<Payment['type'], string> = {
  new: 'Nova assinatura',
  upgrade: 'Upgrade de plano',
  renewal: 'Renovação',
}

const cardPollMs = 3000
const cardPollTimes = 20
const historyPageSize = 20

const isOpen = (payment: Payment) => payment.status === 'pending' || payment.status === 'pending_pix'

/** The plan name, or the start of the subscription id when the plan is gone. */
export function subscriptionReference(payment: Payment): string {
  return payment.plan?.name ?? payment.subscriptionId.slice(0, 8)
}

/** The plan an open invoice pays for (the target plan of an upgrade). */
function planToCharge(payment: Payment): string | null {
  if (payment.type === 'upgrade') return payment.targetPlanId
  return payment.plan?.id ?? null
}

/** Where 'Ver recibo' goes: our receipt page for paid invoices without a provider receipt. */
export function receiptHref(payment: Payment): string | null {
  if (payment.receiptUrl) return payment.receiptUrl
  return payment.status === 'paid' ? `${paths.payments}/${encodeURIComponent(payment.id)}/receipt` : null
}

/** 'payments': open invoices to pay (PIX or card), then the history with receipts. */
export function PaymentsPage() {
  useDocumentTitle('Pagamentos')
  const [searchParams, setSearchParams] = useSearchParams()
  const page = pageFrom(searchParams)
  // Back from paying an invoice by card: the provider's webhook may land a moment later, so look again a few times.
  const cardPaid = searchParams.get('checkout') === 'success'
  const poll = {
    refetchInterval: (query: { state: { dataUpdateCount: number } }) =>
      cardPaid && query.state.dataUpdateCount < cardPollTimes ? cardPollMs : false,
  }
  // Open invoices: a separate small list; the history is paged on the server.
  const open = useQuery({ ...paymentsQuery({ open: true, pageSize: openInvoicesPageSize }), ...poll })
  const history = useQuery({ ...paymentsQuery({ open: false, page, pageSize: historyPageSize }), ...poll })
  const payments = open.isError ? open : history
  // Both lists load, fail and retry as one.
  const lists = {
    isPending: open.isPending || history.isPending,
    isError: payments.isError,
    error: payments.error,
    data: open.data && history.data ? { open: open.data, history: history.data } : undefined,
    refetch: payments.refetch,
  }
  // Only to name the target plan of upgrade invoices; the page works without it.
  const plans = useQuery(publicPlansQuery())
  const planName = (id: string | null) => plans.data?.find((p) => p.id === id)?.name
  const [pixFor, setPixFor] = useState<string | null>(null)

  return (
    <div className="flex flex-col gap-8">
      <PageHeader title="Pagamentos" description="Pague faturas em aberto e consulte seus pagamentos e recibos." />
      {cardPaid ? (
        <p
          role="status"
          className="flex items-start gap-2 rounded-lg border border-primary/30 bg-secondary p-4 text-secondary-foreground"
        >
          <CircleCheck className="mt-0.5 size-5 shrink-0" aria-hidden="true" />
          <span>{billingTexts.invoiceCardSuccess}</span>
        </p>
      ) : null}
      <QueryState
        query={lists}
        loadingLabel="Carregando pagamentos…"
        isEmpty={(data) => data.open.total === 0 && data.history.total === 0}
        empty={
          <EmptyState title="Você ainda não tem pagamentos.">
            <Button asChild variant="outline">
              <Link to={paths.subscriptions}>Ver planos</Link>
            </Button>
          </EmptyState>
        }
      >
        {(data) => (
          <>
            <OpenInvoices
              payments={(data.open.items ?? []).filter(isOpen)}
              onPayWithPix={setPixFor}
              planName={planName}
            />
            <PaymentHistory payments={data.history.items ?? []} />
            {data.history.total > data.history.pageSize ? (
              <Pagination
                page={data.history.page}
                pageSize={data.history.pageSize}
                total={data.history.total}
                onPage={(next) => setSearchParams(next > 1 ? { page: String(next) } : {})}
              />
            ) : null}
          </>
        )}
      </QueryState>
      <PixChargeDialog paymentId={pixFor} onClose={() => setPixFor(null)} />
    </div>
  )
}

function OpenInvoices({
  payments,
  onPayWithPix,
  planName,
}: {
  payments: Payment[]
  onPayWithPix: (id: string) => void
  planName: (id: string | null) => string | undefined
}) {
  const cardCheckout = useInvoiceCardCheckout()
  const [cardFor, setCardFor] = useState<string | null>(null)
  const redirecting = cardCheckout.isPending || cardCheckout.isSuccess
  return (
    <section aria-labelledby="open-invoices-title" className="flex flex-col gap-4">
      <h2 id="open-invoices-title" className="text-xl font-semibold">
        Faturas pendentes
      </h2>
      {payments.length === 0 ? (
        <p className="rounded-lg border border-dashed border-border p-6 text-center text-muted-foreground">
          Nenhuma fatura pendente.
        </p>
      ) : (
        <ul className="grid gap-4 lg:grid-cols-2">
          {payments.map((payment) => {
            const titleId = `invoice-${payment.id}-title`
            return (
              <li key={payment.id} className="flex">
                <Card role="group" aria-labelledby={titleId} className="flex w-full flex-col">
                  <CardHeader className="gap-2">
                    <div className="flex flex-wrap items-start justify-between gap-2">
                      <h3 id={titleId} className="text-lg font-semibold leading-tight">
                        Fatura {subscriptionReference(payment)}
                      </h3>
                      <PaymentStatusBadge status={payment.status} refunded={refundLabelOf(payment)} />
                    </div>
                    <p className="text-sm text-muted-foreground">
                      {paymentTypeLabel[payment.type]}
                      {payment.type === 'upgrade' && planName(planToCharge(payment))
                        ? ` para ${planName(planToCharge(payment))}`
                        : ''}
                    </p>
                  </CardHeader>
                  <CardContent className="flex-1">
                    <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-3">
                      <div className="flex flex-col gap-0.5">
                        <dt className="text-muted-foreground">Vencimento</dt>
                        <dd className="font-medium">{formatDate(payment.dueDate)}</dd>
                      </div>
                      <div className="flex flex-col gap-0.5">
                        <dt className="text-muted-foreground">Valor</dt>
                        <dd className="font-medium">{formatBRL(payment.amountCents)}</dd>
                      </div>
                      <div className="col-span-2 flex min-w-0 flex-col gap-0.5 sm:col-span-1">
                        <dt className="text-muted-foreground">Assinatura</dt>
                        <dd className="break-words font-medium">{subscriptionReference(payment)}</dd>
                      </div>
                    </dl>
                  </CardContent>
                  <CardFooter className="flex-col items-stretch gap-2 sm:flex-row">
                    <Button variant="outline" className="sm:flex-1" onClick={() => onPayWithPix(payment.id)}>
                      <QrCode aria-hidden="true" />
                      Pagar com PIX
                    </Button>
                    <Button
                      className="sm:flex-1"
                      disabled={redirecting}
                      onClick={() => {
                        setCardFor(payment.id)
                        cardCheckout.mutate(payment.id)
                      }}
                    >
                      {redirecting && cardFor === payment.id ? (
                        <Loader2 className="animate-spin" aria-hidden="true" />
                      ) : (
                        <CreditCard aria-hidden="true" />
                      )}
                      Pagar com Cartão
                    </Button>
                  </CardFooter>
                </Card>
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}

function PaymentHistory({ payments }: { payments: Payment[] }) {
  return (
    <section aria-labelledby="payment-history-title" className="flex flex-col gap-4">
      <h2 id="payment-history-title" className="text-xl font-semibold">
        Histórico de pagamentos
      </h2>
      {payments.length === 0 ? (
        <p className="rounded-lg border border-dashed border-border p-6 text-center text-muted-foreground">
          Nenhum pagamento concluído ainda.
        </p>
      ) : (
        <>
          {/* Small screens: one card per payment instead of a table wider than the screen. */}
          <ul className="flex flex-col gap-3 md:hidden" aria-label="Pagamentos">
            {payments.map((payment) => (
              <li key={payment.id} className="rounded-lg border border-border p-4">
                <div className="flex items-start justify-between gap-2">
                  <div className="flex min-w-0 flex-col gap-0.5">
                    <p className="font-semibold">{formatBRL(payment.amountCents)}</p>
                    <p className="text-sm text-muted-foreground">
                      {subscriptionReference(payment)} · {formatDate(payment.paidAt ?? payment.createdAt)}
                    </p>
                    <p className="font-mono text-xs text-muted-foreground">ID {payment.id.slice(0, 8)}</p>
                  </div>
                  <PaymentStatusBadge status={payment.status} refunded={refundLabelOf(payment)} />
                </div>
                <ReceiptLink payment={payment} className="mt-2 inline-flex" />
              </li>
            ))}
          </ul>
          <div className="hidden overflow-x-auto rounded-lg border border-border md:block">
            <table className="w-full text-sm">
              <caption className="sr-only">Histórico de pagamentos</caption>
              <thead className="bg-muted text-left">
                <tr>
                  <th scope="col" className="px-4 py-3 font-medium">
                    ID
                  </th>
                  <th scope="col" className="px-4 py-3 font-medium">
                    Assinatura
                  </th>
                  <th scope="col" className="px-4 py-3 text-right font-medium">
                    Valor
                  </th>
                  <th scope="col" className="px-4 py-3 font-medium">
                    Status
                  </th>
                  <th scope="col" className="px-4 py-3 font-medium">
                    Data
                  </th>
                  <th scope="col" className="px-4 py-3 font-medium">
                    Recibo
                  </th>
                </tr>
              </thead>
              <tbody>
                {payments.map((payment) => (
                  <tr key={payment.id} className="border-t border-border">
                    <td className="px-4 py-3 font-mono text-xs">{payment.id.slice(0, 8)}</td>
                    <td className="px-4 py-3">{subscriptionReference(payment)}</td>
                    <td className="px-4 py-3 text-right font-medium whitespace-nowrap">
                      {formatBRL(payment.amountCents)}
                    </td>
                    <td className="px-4 py-3">
                      <PaymentStatusBadge status={payment.status} refunded={refundLabelOf(payment)} />
                    </td>
                    <td className="px-4 py-3 whitespace-nowrap">{formatDate(payment.paidAt ?? payment.createdAt)}</td>
                    <td className="px-4 py-3">
                      <ReceiptLink payment={payment} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  )
}

function ReceiptLink({ payment, className }: { payment: Payment; className?: string }) {
  const href = receiptHref(payment)
  if (!href) return <span className="text-muted-foreground">—</span>
  const linkClass = `items-center gap-1 font-medium text-primary underline-offset-4 hover:underline ${className ?? ''}`
  const url = new URL(href, window.location.origin)
  // Only the SPA's own pages go through the router; the provider's (or the simulator's) receipt is a page apart.
  if (url.origin === window.location.origin && url.pathname.startsWith(`${paths.dashboard}/`)) {
    return (
      <Link to={`${url.pathname}${url.search}`} className={linkClass}>
        Ver recibo
      </Link>
    )
  }
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" className={`inline-flex ${linkClass}`}>
      Ver recibo
      <ExternalLink className="size-3.5" aria-hidden="true" />
      <span className="sr-only">(abre em nova aba)</span>
    </a>
  )
}

function PixChargeDialog({ paymentId, onClose }: { paymentId: string | null; onClose: () => void }) {
  const charge = useQuery({ ...pixChargeQuery(paymentId ?? ''), enabled: paymentId !== null })
  return (
    <PixPaymentDialog
      open={paymentId !== null}
      onOpenChange={(open) => !open && onClose()}
      charge={paymentId ? charge.data : null}
      loading={charge.isPending}
      error={charge.isError ? charge.error : undefined}
      onRetry={() => void charge.refetch()}
    />
  )
}
