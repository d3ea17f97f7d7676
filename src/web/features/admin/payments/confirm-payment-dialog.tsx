import { zodResolver } from '@hookform/resolvers/zod'
import { useEffect } from 'react'
import { useForm } from 'react-hook-form'
import { z } from 'zod'
import { centsToDecimalString, toCents } from '@/domain/money'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/web/components/ui/dialog'
import { Input } from '@/web/components/ui/input'
import { CurrencyInput } from '@/web/components/form/currency-input'
import { Field } from '@/web/components/form/field'
import { FormDialogFooter } from '@/web/components/form/form-dialog-footer'
import { formatBRL, formatDate } from '@/web/lib/format'
import { type AdminPayment, useConfirmPayment } from './api'

const formSchema = z.object({
  amount: z
    .string()
    .trim()
    .min(1, 'Informe o valor recebido.')
    .refine((v) => {
      const cents = toCents(v)
      return Number.isSafeInteger(cents) && cents > 0
    }, 'Informe um valor válido, maior que zero (ex.: 99,90).'),
  endToEndId: z
    .string()
    .trim()
    .refine(
      (v) => v === '' || /^[A-Za-z0-9]{32}$/.test(v),
      'O identificador da transação (E2E) tem 32 letras e números.',
    ),
})
type FormValues = z.infer<typeof formSchema>

const reaisText = (cents: number) => centsToDecimalString(cents).replace('.', ',')

/** 'Confirmar' on a pending PIX payment: what arrived in the bank account, and optionally its E2E id. */
export function ConfirmPaymentDialog({
  payment,
  onOpenChange,
}: {
  payment: AdminPayment | null
  onOpenChange: (open: boolean) => void
}) {
  const confirm = useConfirmPayment()
  const { register, handleSubmit, reset, formState } = useForm<FormValues>({
    resolver: zodResolver(formSchema),
    defaultValues: { amount: '', endToEndId: '' },
  })
  const errors = formState.errors

  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when another payment is chosen
  useEffect(() => {
    if (payment) {
      reset({ amount: reaisText(payment.amountCents), endToEndId: '' })
      confirm.reset()
    }
  }, [payment, reset])

  const onSubmit = handleSubmit((values) => {
    if (!payment) return
    const input = {
      amount_received_cents: toCents(values.amount),
      ...(values.endToEndId ? { end_to_end_id: values.endToEndId } : {}),
    }
    confirm.mutate({ id: payment.id, input }, { onSuccess: () => onOpenChange(false) })
  })

  return (
    <Dialog open={payment !== null} onOpenChange={(open) => !confirm.isPending && onOpenChange(open)}>
      <DialogContent className="max-w-md">
        <DialogHeader>
          <DialogTitle>Confirmar pagamento PIX</DialogTitle>
          <DialogDescription>
            Confira o extrato antes de confirmar: a assinatura é ativada quando o valor recebido é o da fatura.
          </DialogDescription>
        </DialogHeader>
        {payment ? (
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded-md bg-muted p-3 text-sm">
            <dt className="text-muted-foreground">Cliente</dt>
            <dd className="break-words text-right">{payment.customer.name}</dd>
            <dt className="text-muted-foreground">Plano</dt>
            <dd className="break-words text-right">{payment.targetPlan?.name ?? payment.plan.name}</dd>
            <dt className="text-muted-foreground">Valor da fatura</dt>
            <dd className="text-right font-semibold">{formatBRL(payment.amountCents)}</dd>
            <dt className="text-muted-foreground">Vencimento</dt>
            <dd className="text-right">{formatDate(payment.dueDate)}</dd>
            {payment.pixReference ? (
              <>
                <dt className="text-muted-foreground">Referência</dt>
                <dd className="break-all text-right font-mono text-xs">{payment.pixReference}</dd>
              </>
            ) : null}
          </dl>
        ) : null}
        <form className="flex flex-col gap-4" noValidate onSubmit={onSubmit}>
          <Field label="Valor recebido" error={errors.amount?.message}>
            <CurrencyInput inputMode="decimal" autoComplete="off" {...register('amount')} />
          </Field>
          <Field
            label="ID da transação (E2E)"
            hint="Opcional. O identificador de 32 caracteres do comprovante PIX evita confirmar a mesma transferência duas vezes."
            error={errors.endToEndId?.message}
          >
            <Input
              autoComplete="off"
              spellCheck={false}
              maxLength={32}
              className="font-mono"
              placeholder="E00000000202501011200abcdefghijk"
              {...register('endToEndId')}
            />
          </Field>
          <FormDialogFooter
            pending={confirm.isPending}
            onBack={() => onOpenChange(false)}
            submitLabel="Confirmar pagamento"
            pendingLabel="Confirmando…"
          />
        </form>
      </DialogContent>
    </Dialog>
  )
}
