import { centsToDecimalString, toCents } from '@/domain/money'
import { formatBRL } from '@/web/lib/format'

/** What a PIX can still give back: what was received (or billed) less what was already refunded. */
export function refundableCents(payment: {
  amountCents: number
  amountReceivedCents: number | null
  refundedCents: number
}): number {
  return (payment.amountReceivedCents ?? payment.amountCents) - payment.refundedCents
}

/** The form starts at everything still refundable, in reais ('49,90'). */
export function refundAmountDefault(availableCents: number): string {
  return centsToDecimalString(availableCents).replace('.', ',')
}

/**
 * The typed amount and reason as the request body, or the field to mark and its message: the amount must be between
 * R$ 0,01 and what is available, the reason at least 3 letters (the contract's rule).
 */
export function readRefund(
  values: { amount: string; reason: string },
  availableCents: number,
): { input: { amount_cents: number; reason: string } } | { field: 'amount' | 'reason'; error: string } {
  const cents = toCents(values.amount)
  if (!Number.isSafeInteger(cents) || cents <= 0 || cents > availableCents) {
    return { field: 'amount', error: `Informe um valor entre R$ 0,01 e ${formatBRL(availableCents)}.` }
  }
  const reason = values.reason.trim()
  if (reason.length < 3) return { field: 'reason', error: 'Informe o motivo da devolução.' }
  return { input: { amount_cents: cents, reason } }
}
