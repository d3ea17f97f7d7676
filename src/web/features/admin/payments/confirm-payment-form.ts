import { z } from 'zod'
import type { confirmPaymentInputSchema } from '@/domain/contracts/admin'
import { centsToDecimalString, toCents } from '@/domain/money'
import type { ServerFieldMap } from '@/web/lib/form-errors'

// The form's own schema: the amount is typed in reais, so it cannot be the contract's; toConfirmPaymentInput
// converts, and the server validates the result with confirmPaymentInputSchema.
export const confirmPaymentFormSchema = z.object({
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
export type ConfirmPaymentFormValues = z.infer<typeof confirmPaymentFormSchema>

/** The form starts at the invoice's amount (what usually arrives), written in reais ('49,90'). */
export function confirmPaymentFormDefaults(payment: { amountCents: number } | null): ConfirmPaymentFormValues {
  return { amount: payment ? centsToDecimalString(payment.amountCents).replace('.', ',') : '', endToEndId: '' }
}

/** The request body: centavos, and the E2E id only when one was typed. */
export function toConfirmPaymentInput(values: ConfirmPaymentFormValues): z.input<typeof confirmPaymentInputSchema> {
  return {
    amount_received_cents: toCents(values.amount),
    ...(values.endToEndId ? { end_to_end_id: values.endToEndId } : {}),
  }
}

/** The server's validation issues, by body field, on the form's fields. */
export const confirmPaymentServerFields: ServerFieldMap<keyof ConfirmPaymentFormValues> = {
  fields: { amount_received_cents: 'amount', end_to_end_id: 'endToEndId' },
}
