import { zodResolver } from '@hookform/resolvers/zod'
import { useEffect } from 'react'
import { useForm } from 'react-hook-form'
import { DialogFrame } from '@/web/components/ui/dialog-frame'
import { Input } from '@/web/components/ui/input'
import { CurrencyInput } from '@/web/components/form/currency-input'
import { Field } from '@/web/components/form/field'
import { FormDialogFooter } from '@/web/components/form/form-dialog-footer'
import { applyServerErrors } from '@/web/lib/form-errors'
import { formatBRL, formatDate } from '@/web/lib/format'
import { type AdminPayment, useConfirmPayment } from './api'
import {
  type ConfirmPaymentFormValues,
  confirmPaymentFormDefaults,
  confirmPaymentFormSchema,
  confirmPaymentServerFields,
  toConfirmPaymentInput,
} from './confirm-payment-form'

/** 'Confirmar' on a pending PIX payment: what arrived in the bank account, and optionally its E2E id. */
export function ConfirmPaymentDialog({
  payment,
  onOpenChange,
}: {
  payment: AdminPayment | null
  onOpenChange: (open: boolean) => void
}) {
  const confirm = useConfirmPayment()
  const { register, handleSubmit, reset, formState, setError } = useForm<ConfirmPaymentFormValues>({
    resolver: zodResolver(confirmPaymentFormSchema),
    defaultValues: confirmPaymentFormDefaults(null),
  })
  const errors = formState.errors

  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when another payment is chosen
  useEffect(() => {
    if (payment) {
      reset(confirmPaymentFormDefaults(payment))
      confirm.reset()
    }
  }, [payment, reset])

  const onSubmit = handleSubmit((values) => {
    if (!payment) return
    confirm.mutate(
      { id: payment.id, input: toConfirmPaymentInput(values) },
      {
        onSuccess: () => onOpenChange(false),
        onError: (error) => applyServerErrors(error, setError, confirmPaymentServerFields),
      },
    )
  })

  return (
    <DialogFrame
      open={payment !== null}
      onOpenChange={onOpenChange}
      busy={confirm.isPending}
      title="Confirmar pagamento PIX"
      description="Confira o extrato antes de confirmar: a assinatura é ativada quando o valor recebido é o da fatura."
      className="max-w-md"
    >
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
    </DialogFrame>
  )
}
