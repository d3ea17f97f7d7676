// How a PIX invoice was confirmed, recorded by the admin confirmation (the one place that marks an invoice paid):
// by an admin reading the statement ('manual') or by the app from the PSP's own answer ('api_pix').
import type { payments } from '../../db/schema/billing'

export type ConfirmedVia = { via: 'manual' } | { via: 'api_pix'; payerName: string | null }

type PaymentUpdate = Partial<typeof payments.$inferInsert>

/** Columns the confirmation writes besides its own: paid → who confirmed; both → the payer named by the PSP. */
export function confirmedViaFields(via: ConfirmedVia, outcome: 'paid' | 'review'): PaymentUpdate {
  const fields: PaymentUpdate = {}
  if (via.via === 'api_pix' && via.payerName) fields.pixPayerName = via.payerName.slice(0, 200)
  if (outcome === 'paid') fields.pixConfirmedVia = via.via
  return fields
}
