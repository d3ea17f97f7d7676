// The queries of the API Pix confirmation (pix-confirm.service.ts): finding our invoice from what the PSP names,
// the charges the reconciliation retries or closes, and the refunds the PSP settles.
import { and, eq, gt, inArray, isNotNull, isNull, lt, or } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { type PaymentRow, payments, type PixRefundRow, pixRefunds } from '../../db/schema/billing'

/** Our payment a txid names: the charge's txid, the static code's reference, or the payment id it derives from. */
export async function paymentByTxid(db: Executor, txid: string, derivedId: string | null): Promise<PaymentRow | null> {
  const [row] = await db
    .select()
    .from(payments)
    .where(
      or(
        eq(payments.pixTxid, txid),
        eq(payments.pixReference, txid),
        ...(derivedId ? [eq(payments.id, derivedId)] : []),
      ),
    )
    .limit(1)
  return row ?? null
}

/** Whether a payment already recorded this endToEndId. */
export async function endToEndRecorded(db: Executor, endToEndId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: payments.id })
    .from(payments)
    .where(eq(payments.pixEndToEndId, endToEndId))
    .limit(1)
  return Boolean(row)
}

/** Of these endToEndIds, those a payment recorded. */
export async function recordedEndToEnds(db: Executor, endToEndIds: string[]): Promise<Set<string | null>> {
  const rows = await db
    .select({ e2e: payments.pixEndToEndId })
    .from(payments)
    .where(inArray(payments.pixEndToEndId, endToEndIds))
  return new Set(rows.map((r) => r.e2e))
}

/** Open invoices (pending, PIX pending or in review) that one of these txids names, as in paymentByTxid. */
export function openInvoicesByTxids(db: Executor, txids: string[], derivedIds: string[]) {
  return db
    .select({ pixTxid: payments.pixTxid, pixReference: payments.pixReference, id: payments.id })
    .from(payments)
    .where(
      and(
        inArray(payments.status, ['pending_pix', 'pending', 'review']),
        or(
          inArray(payments.pixTxid, txids),
          inArray(payments.pixReference, txids),
          ...(derivedIds.length > 0 ? [inArray(payments.id, derivedIds)] : []),
        ),
      ),
    )
}

/** The charge of a paid invoice is paid too (when it had one). */
export async function markChargePaid(db: Executor, paymentId: string): Promise<void> {
  await db
    .update(payments)
    .set({ pixChargeStatus: 'paid' })
    .where(and(eq(payments.id, paymentId), isNotNull(payments.pixChargeStatus)))
}

/** Open PIX invoices, not yet due, without a live charge and below the attempt limit (200 at a time). */
export function invoicesToCharge(db: Executor, now: Date, maxAttempts: number) {
  return db
    .select({ id: payments.id, status: payments.pixChargeStatus })
    .from(payments)
    .where(
      and(
        eq(payments.paymentMethod, 'pix'),
        inArray(payments.status, ['pending_pix', 'pending']),
        or(isNull(payments.pixChargeStatus), eq(payments.pixChargeStatus, 'fallback')),
        lt(payments.pixChargeAttempts, maxAttempts),
        gt(payments.dueDate, now),
      ),
    )
    .limit(200)
}

/** Open invoices whose live charge has expired (200 at a time). */
export function expiredCharges(db: Executor, now: Date): Promise<PaymentRow[]> {
  return db
    .select()
    .from(payments)
    .where(
      and(
        eq(payments.pixChargeStatus, 'active'),
        inArray(payments.status, ['pending_pix', 'pending']),
        lt(payments.pixChargeExpiresAt, now),
      ),
    )
    .limit(200)
}

/** A live charge ends ('expired' or 'removed'), unless something changed it meanwhile. */
export async function endCharge(db: Executor, paymentId: string, status: 'expired' | 'removed', now: Date) {
  await db
    .update(payments)
    .set({ pixChargeStatus: status, updatedAt: now })
    .where(and(eq(payments.id, paymentId), eq(payments.pixChargeStatus, 'active')))
}

/** Refunds of this PIX still in processing. */
export function processingRefunds(db: Executor, endToEndId: string): Promise<PixRefundRow[]> {
  return db
    .select()
    .from(pixRefunds)
    .where(and(eq(pixRefunds.endToEndId, endToEndId), eq(pixRefunds.status, 'EM_PROCESSAMENTO')))
}

/** A refund in processing takes its final state; null when another process settled it first. */
export async function settleRefund(
  tx: Executor,
  id: string,
  status: 'DEVOLVIDO' | 'NAO_REALIZADO',
  now: Date,
): Promise<PixRefundRow | null> {
  const [row] = await tx
    .update(pixRefunds)
    .set({ status, updatedAt: now })
    .where(and(eq(pixRefunds.id, id), eq(pixRefunds.status, 'EM_PROCESSAMENTO')))
    .returning()
  return row ?? null
}
