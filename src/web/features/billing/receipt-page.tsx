import { useQuery } from '@tanstack/react-query'
import { ArrowLeft, Printer } from 'lucide-react'
import { Link, useParams } from 'react-router'
import type { PaymentReceipt } from '@/domain/contracts/billing'
import { paths } from '@/web/app/paths'
import { Button } from '@/web/components/ui/button'
import { QueryError, Spinner } from '@/web/components/ui/states'
import { formatBRL, formatDate } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { useSiteConfig } from '@/web/lib/site-config'
import { receiptQuery } from '@/web/shared/billing/api'

const methodLabel: Record<PaymentReceipt['method'], string> = {
  pix: 'PIX',
  card: 'Cartão de crédito',
  manual_confirmation: 'PIX (confirmação manual)',
}

/** What the receipt shows, from the contract the server serialises with (receiptQuery parses it). */
export function readReceipt(receipt: PaymentReceipt) {
  return {
    paymentId: receipt.payment.id,
    amountCents: receipt.amountCents,
    paidAt: receipt.paidAt,
    method: receipt.method,
    pixEndToEndId: receipt.pixEndToEndId ?? undefined,
    planName: receipt.plan.name,
    customerName: receipt.customer.name,
    customerEmail: receipt.customer.email,
    customerCompany: receipt.customer.companyName || undefined,
    companyName: receipt.company.legalName || undefined,
    companyCnpj: receipt.company.cnpj || undefined,
    companyAddress: receipt.company.address || undefined,
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
  const r = readReceipt(receipt.data)
  const method = methodLabel[r.method]
  const rows: Array<[string, string | undefined]> = [
    ['Plano', r.planName],
    ['Valor', formatBRL(r.amountCents)],
    ['Pago em', formatDate(r.paidAt)],
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
