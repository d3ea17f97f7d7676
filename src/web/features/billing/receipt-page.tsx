import { useQuery } from '@tanstack/react-query'
import { ArrowLeft, Printer } from 'lucide-react'
import { Link, useParams } from 'react-router'
import { paths } from '@/web/app/paths'
import { Button } from '@/web/components/ui/button'
import { QueryError, Spinner } from '@/web/components/ui/states'
import { formatBRL, formatDate } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { useSiteConfig } from '@/web/lib/site-config'
import { receiptQuery } from '@/web/shared/billing/api'

const methodLabel: Record<string, string> = {
  pix: 'PIX',
  card: 'Cartão de crédito',
  manual_confirmation: 'PIX (confirmação manual)',
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The first of these dotted paths holding a non-empty string (or a number, as text). */
function text(source: unknown, ...keys: string[]): string | undefined {
  for (const key of keys) {
    let value: unknown = source
    for (const part of key.split('.')) value = isObject(value) ? value[part] : undefined
    if (typeof value === 'string' && value.trim() !== '') return value
    if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  }
  return undefined
}

/** The first of these paths holding a whole number of centavos. */
function cents(source: unknown, ...keys: string[]): number | undefined {
  for (const key of keys) {
    let value: unknown = source
    for (const part of key.split('.')) value = isObject(value) ? value[part] : undefined
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value
  }
  return undefined
}

/**
 * What the receipt shows, read defensively: the server owns the JSON's exact shape, so every field has fallbacks
 * and a missing one is simply left out instead of breaking the page.
 */
export function readReceipt(data: unknown, fallbackId: string) {
  return {
    paymentId: text(data, 'payment.id', 'paymentId', 'id') ?? fallbackId,
    number: text(data, 'number', 'receiptNumber'),
    amountCents: cents(data, 'amountCents', 'amount.cents', 'payment.amountCents', 'amount'),
    paidAt: text(data, 'paidAt', 'payment.paidAt'),
    issuedAt: text(data, 'issuedAt', 'createdAt'),
    method: text(data, 'method', 'paymentMethod', 'payment.paymentMethod'),
    pixEndToEndId: text(data, 'pixEndToEndId', 'payment.pixEndToEndId', 'endToEndId'),
    planName: text(data, 'plan.name', 'planName', 'payment.plan.name'),
    periodStart: text(data, 'period.start', 'periodStart', 'subscription.currentPeriodStart'),
    periodEnd: text(data, 'period.end', 'periodEnd', 'subscription.currentPeriodEnd'),
    customerName: text(data, 'customer.name', 'customerName'),
    customerEmail: text(data, 'customer.email', 'customerEmail'),
    customerCompany: text(data, 'customer.companyName', 'customer.company_name', 'customer.company'),
    companyName: text(data, 'company.legalName', 'company.name', 'companyLegalName'),
    companyCnpj: text(data, 'company.cnpj', 'companyCnpj'),
    companyAddress: text(data, 'company.address', 'companyAddress'),
  }
}

// Prints the receipt alone, without the dashboard around it.
const printCss = `@media print {
  body * { visibility: hidden; }
  #recibo, #recibo * { visibility: visible; }
  #recibo { position: absolute; inset: 0 auto auto 0; width: 100%; border: 0; box-shadow: none; }
}`

/** /dashboard/payments/:id/receipt: a printable receipt of one paid invoice. */
export function ReceiptPage() {
  useDocumentTitle('Recibo de pagamento')
  const { id = '' } = useParams()
  const receipt = useQuery(receiptQuery(id))
  const site = useSiteConfig()

  if (receipt.isPending) return <Spinner label="Carregando recibo…" />
  if (receipt.isError) {
    return (
      <div className="flex flex-col gap-4">
        <BackLink />
        <QueryError error={receipt.error} onRetry={() => void receipt.refetch()} />
      </div>
    )
  }
  const r = readReceipt(receipt.data, id)
  const method = r.method ? (methodLabel[r.method] ?? r.method) : undefined
  const rows: Array<[string, string | undefined]> = [
    ['Plano', r.planName],
    ['Período', r.periodStart && r.periodEnd ? `${formatDate(r.periodStart)} – ${formatDate(r.periodEnd)}` : undefined],
    ['Valor', r.amountCents !== undefined ? formatBRL(r.amountCents) : undefined],
    ['Pago em', r.paidAt ? formatDate(r.paidAt) : undefined],
    ['Forma de pagamento', method],
    ['Identificador PIX (E2E)', r.pixEndToEndId],
    ['Pagamento', r.paymentId],
  ]

  return (
    <div className="flex flex-col gap-4">
      <style>{printCss}</style>
      <div className="flex flex-wrap items-center justify-between gap-2 print:hidden">
        <BackLink />
        <Button onClick={() => window.print()}>
          <Printer aria-hidden="true" />
          Imprimir
        </Button>
      </div>
      <article
        id="recibo"
        aria-labelledby="recibo-title"
        className="mx-auto flex w-full max-w-2xl flex-col gap-6 rounded-lg border border-border bg-card p-5 shadow-sm sm:p-8"
      >
        <header className="flex flex-col gap-3 border-b border-border pb-4 sm:flex-row sm:items-start sm:justify-between">
          <div className="flex flex-col gap-1">
            <h1 id="recibo-title" className="text-2xl font-bold">
              Recibo de pagamento
            </h1>
            {r.number ? <p className="text-sm text-muted-foreground">Nº {r.number}</p> : null}
          </div>
          <address className="flex flex-col text-sm not-italic sm:text-right">
            <span className="font-semibold uppercase">{r.companyName ?? site.companyLegalName}</span>
            <span>CNPJ {r.companyCnpj ?? site.companyCnpj}</span>
            <span>{r.companyAddress ?? site.companyAddress}</span>
          </address>
        </header>
        {r.customerName || r.customerEmail ? (
          <section aria-labelledby="recibo-cliente" className="flex flex-col gap-1 text-sm">
            <h2 id="recibo-cliente" className="font-semibold">
              Cliente
            </h2>
            {r.customerName ? <p>{r.customerName}</p> : null}
            {r.customerCompany ? <p>{r.customerCompany}</p> : null}
            {r.customerEmail ? <p className="break-all">{r.customerEmail}</p> : null}
          </section>
        ) : null}
        <dl className="flex flex-col divide-y divide-border text-sm">
          {rows
            .filter((row): row is [string, string] => row[1] !== undefined)
            .map(([label, value]) => (
              <div key={label} className="flex flex-col gap-0.5 py-2 sm:flex-row sm:justify-between sm:gap-4">
                <dt className="text-muted-foreground">{label}</dt>
                <dd className="break-all font-medium sm:text-right">{value}</dd>
              </div>
            ))}
        </dl>
        <p className="text-xs text-muted-foreground">
          Recebemos o valor acima referente à assinatura mensal do plano indicado.
          {r.issuedAt ? ` Emitido em ${formatDate(r.issuedAt)}.` : ''}
        </p>
      </article>
    </div>
  )
}

function BackLink() {
  return (
    <Button asChild variant="ghost">
      <Link to={paths.payments}>
        <ArrowLeft aria-hidden="true" />
        Voltar para pagamentos
      </Link>
    </Button>
  )
}
