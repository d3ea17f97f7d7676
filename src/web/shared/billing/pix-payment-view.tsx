import { useQuery, useQueryClient } from '@tanstack/react-query'
import { CircleCheck, Copy } from 'lucide-react'
import { type ReactNode, useEffect, useRef } from 'react'
import { toast } from 'sonner'
import type { PixCharge } from '@/domain/contracts/billing'
import { PixCodeField } from '@/web/components/pix-code-field'
import { QrCode } from '@/web/components/qr-code'
import { Button } from '@/web/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/web/components/ui/dialog'
import { QueryError, Spinner } from '@/web/components/ui/states'
import { formatBRL, formatDate } from '@/web/lib/format'
import { paymentsQuery } from './api'

export const pixTexts = {
  copied: 'Código PIX copiado!',
  activation: 'A ativação é manual e acontece em até 24 horas após o pagamento.',
  autoActivation: 'O pagamento é confirmado automaticamente, em segundos. Esta tela se atualiza sozinha.',
  confirmed: 'Pagamento confirmado!',
  confirmedDetail: 'Sua assinatura está ativa. Obrigado!',
} as const

/** How often the view asks whether an automatically confirmed PIX has arrived. */
const pollMs = 3000

/** With API Pix: the invoice's status, asked every few seconds until it is paid; then the billing screens refresh. */
function usePaidAutomatically(charge: PixCharge): boolean {
  const queryClient = useQueryClient()
  // The invoice on view is among the customer's newest: the first page of the list, newest first, holds it.
  const isPaid = (page: { items: { id: string; status: string }[] } | undefined) =>
    page?.items.some((p) => p.id === charge.paymentId && p.status === 'paid') ?? false
  const { data } = useQuery({
    ...paymentsQuery({ pageSize: 100 }),
    enabled: charge.autoConfirm === true,
    refetchInterval: (query) => (isPaid(query.state.data) ? false : pollMs),
    refetchIntervalInBackground: false,
  })
  const paid = isPaid(data)
  useEffect(() => {
    if (paid) void queryClient.invalidateQueries({ queryKey: ['billing'] })
  }, [paid, queryClient])
  return paid
}

/** The QR code and the "copia e cola" text of one PIX invoice, with what the payer needs to check. */
export function PixPaymentView({ charge }: { charge: PixCharge }) {
  const codeRef = useRef<HTMLTextAreaElement>(null)
  const paid = usePaidAutomatically(charge)

  async function copy() {
    try {
      if (!navigator.clipboard) throw new Error('clipboard unavailable')
      await navigator.clipboard.writeText(charge.brCode)
      toast.success(pixTexts.copied)
    } catch {
      // Without clipboard access (plain http, old browsers) the text is selected for Ctrl+C / long press.
      codeRef.current?.focus()
      codeRef.current?.select()
    }
  }

  if (paid) {
    return (
      <output className="flex flex-col items-center gap-2 py-6 text-center" aria-live="polite">
        <CircleCheck className="size-12 text-primary" aria-hidden="true" />
        <p className="text-lg font-semibold">{pixTexts.confirmed}</p>
        <p className="text-sm text-muted-foreground">{pixTexts.confirmedDetail}</p>
        <p className="text-sm">
          {formatBRL(charge.amountCents)} · {charge.planName}
        </p>
      </output>
    )
  }

  return (
    <div className="flex flex-col gap-4">
      <QrCode value={charge.brCode} size={200} label="QR Code PIX" />
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-muted-foreground">Valor</dt>
        <dd className="text-right font-semibold">{formatBRL(charge.amountCents)}</dd>
        <dt className="text-muted-foreground">Vencimento</dt>
        <dd className="text-right">{formatDate(charge.dueDate)}</dd>
        <dt className="text-muted-foreground">Beneficiário</dt>
        <dd className="break-words text-right">{charge.beneficiaryName}</dd>
        <dt className="text-muted-foreground">Plano</dt>
        <dd className="break-words text-right">{charge.planName}</dd>
      </dl>
      <div className="flex flex-col gap-2">
        <PixCodeField ref={codeRef} code={charge.brCode} onClick={(event) => event.currentTarget.select()} />
        <Button onClick={() => void copy()}>
          <Copy aria-hidden="true" />
          Copiar código
        </Button>
      </div>
      <p className="rounded-md bg-secondary p-3 text-sm text-secondary-foreground" aria-live="polite">
        {charge.autoConfirm ? pixTexts.autoActivation : pixTexts.activation}
      </p>
    </div>
  )
}

export type PixPaymentDialogProps = {
  open: boolean
  onOpenChange: (open: boolean) => void
  /** The charge, once known; while loading or failed, `loading` / `error` say so. */
  charge: PixCharge | null | undefined
  loading?: boolean
  error?: unknown
  onRetry?: () => void
  /** What to offer under the charge (e.g. a link to the invoices). */
  children?: ReactNode
}

/** The PIX payment view in a dialog: after a PIX checkout, an upgrade, or 'Pagar com PIX'. */
export function PixPaymentDialog({
  open,
  onOpenChange,
  charge,
  loading,
  error,
  onRetry,
  children,
}: PixPaymentDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-md">
        <DialogHeader>
          <DialogTitle>Pagamento via PIX</DialogTitle>
          <DialogDescription>
            Escaneie o QR Code com o app do seu banco ou copie o código PIX copia e cola.
          </DialogDescription>
        </DialogHeader>
        {charge ? (
          <PixPaymentView charge={charge} />
        ) : error ? (
          <QueryError error={error} onRetry={() => onRetry?.()} />
        ) : loading ? (
          <Spinner label="Gerando código PIX…" />
        ) : null}
        {charge ? children : null}
      </DialogContent>
    </Dialog>
  )
}
