// API Pix in the admin payments page: how each PIX was confirmed, refunds, and the confirmation figures.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect, useState } from 'react'
import { toast } from 'sonner'
import { pixOverviewSchema, pixRefundResultSchema, pixWebhookResultSchema } from '@/domain/contracts/pix-api'
import { Field } from '@/web/components/form/field'
import { Button } from '@/web/components/ui/button'
import { DialogFooter } from '@/web/components/ui/dialog'
import { DialogFrame } from '@/web/components/ui/dialog-frame'
import { Input } from '@/web/components/ui/input'
import { api } from '@/web/lib/api'
import { formatBRL } from '@/web/lib/format'
import type { AdminPayment } from './api'
import { readRefund, refundableCents, refundAmountDefault } from './refund-form'

/** '12 s', '4 min', '3 h 20 min', '2 d 5 h'. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`
  return `${Math.floor(hours / 24)} d${hours % 24 ? ` ${hours % 24} h` : ''}`
}

export { refundLabelOf } from '@/web/shared/billing/status-badges'

/** The 'PIX' cell: confirmed automatically or by hand, payer, E2E id, time to confirm. */
export function PixConfirmationCell({ payment: p }: { payment: AdminPayment }) {
  if (p.paymentMethod !== 'pix' || (!p.pixConfirmedVia && !p.pixEndToEndId)) {
    return <span className="text-muted-foreground">—</span>
  }
  return (
    <div className="flex max-w-48 flex-col text-xs">
      {p.pixConfirmedVia ? (
        <span className="font-medium">{p.pixConfirmedVia === 'api_pix' ? 'Automático' : 'Manual'}</span>
      ) : null}
      {p.pixPayerName ? <span>{p.pixPayerName}</span> : null}
      {p.pixEndToEndId ? (
        <span className="break-all font-mono text-muted-foreground" title="ID da transação (E2E)">
          {p.pixEndToEndId}
        </span>
      ) : null}
      {p.confirmationSeconds !== null ? (
        <span className="text-muted-foreground">Confirmado em {formatDuration(p.confirmationSeconds)}</span>
      ) : null}
    </div>
  )
}

/** PIX confirmation latency (30 days) and invoices waiting for an admin for more than 12 hours. */
export function PixOverviewCard() {
  const { data } = useQuery({
    queryKey: ['admin', 'pix-overview'],
    queryFn: () => api.get('/api/admin/pix/overview', pixOverviewSchema),
  })
  if (!data) return null
  return (
    <section
      aria-label="Confirmação PIX"
      className="grid gap-3 rounded-lg border border-border p-4 text-sm sm:grid-cols-3"
    >
      <div>
        <p className="text-muted-foreground">Confirmação PIX (30 dias), mediana</p>
        <p className="text-lg font-semibold">
          {data.latencyP50Seconds === null ? '—' : formatDuration(data.latencyP50Seconds)}
        </p>
      </div>
      <div>
        <p className="text-muted-foreground">Confirmação PIX (30 dias), p95</p>
        <p className="text-lg font-semibold">
          {data.latencyP95Seconds === null ? '—' : formatDuration(data.latencyP95Seconds)}
        </p>
        <p className="text-xs text-muted-foreground">
          {data.confirmedAutomatically} de {data.confirmedLast30Days} confirmados automaticamente
        </p>
      </div>
      <div>
        <p className="text-muted-foreground">Aguardando confirmação há mais de 12 h</p>
        <p className={`text-lg font-semibold ${data.waitingOver12h > 0 ? 'text-destructive' : ''}`}>
          {data.waitingOver12h}
        </p>
      </div>
    </section>
  )
}

/** 'Devolver' on a paid PIX: amount (full by default) and a reason; the PSP refunds the payer. */
export function RefundDialog({
  payment,
  onOpenChange,
}: {
  payment: AdminPayment | null
  onOpenChange: (open: boolean) => void
}) {
  const queryClient = useQueryClient()
  const available = payment ? refundableCents(payment) : 0
  const [amount, setAmount] = useState('')
  const [reason, setReason] = useState('')
  const [error, setError] = useState<{ field: 'amount' | 'reason'; error: string } | null>(null)
  useEffect(() => {
    if (payment) {
      setAmount(refundAmountDefault(available))
      setReason('')
      setError(null)
    }
  }, [payment, available])
  const refund = useMutation({
    mutationFn: (input: { amount_cents: number; reason: string }) =>
      api.post(`/api/admin/payments/${encodeURIComponent(payment?.id ?? '')}/refund`, input, pixRefundResultSchema),
    onSuccess: () => {
      toast.success('Devolução solicitada ao PSP.')
      onOpenChange(false)
      return queryClient.invalidateQueries({ queryKey: ['admin'] })
    },
    meta: { feedback: { error: 'Erro ao devolver o PIX' } },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const read = readRefund({ amount, reason }, available)
    setError('input' in read ? null : read)
    if ('input' in read) refund.mutate(read.input)
  }
  return (
    <DialogFrame
      open={payment !== null}
      onOpenChange={onOpenChange}
      busy={refund.isPending}
      title="Devolver PIX"
      description={`Devolução total ou parcial, em até 90 dias do pagamento. Disponível: ${formatBRL(available)}.`}
      className="max-w-md"
    >
      <form onSubmit={submit} className="flex flex-col gap-3" noValidate>
        <Field label="Valor a devolver (R$)" error={error?.field === 'amount' ? error.error : undefined}>
          <Input inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />
        </Field>
        <Field label="Motivo" error={error?.field === 'reason' ? error.error : undefined}>
          <Input maxLength={140} value={reason} onChange={(e) => setReason(e.target.value)} />
        </Field>
        <DialogFooter>
          <Button type="submit" variant="destructive" disabled={refund.isPending}>
            Devolver
          </Button>
        </DialogFooter>
      </form>
    </DialogFrame>
  )
}

/** Admin PIX settings: (re)register the webhook at the PSP. */
export function RegisterWebhookButton() {
  const register = useMutation({
    mutationFn: () => api.post('/api/admin/pix-settings/webhook', {}, pixWebhookResultSchema),
    onSuccess: (result) => toast.success(`Webhook registrado: ${result.webhookUrl}`),
    meta: { feedback: { error: 'Erro ao registrar o webhook no PSP' } },
  })
  return (
    <Button type="button" variant="outline" disabled={register.isPending} onClick={() => register.mutate()}>
      Registrar webhook no PSP
    </Button>
  )
}
