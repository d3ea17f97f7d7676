// The queries of the admin's API Pix screen (pix-admin.service.ts): refunds of a PIX received, and the
// confirmation figures.
import { and, asc, desc, eq, gte, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { type NewPixRefundRow, payments, type PixRefundRow, pixRefunds } from '../../db/schema/billing'
export { lockPaymentRow as lockPayment } from '../../db/subscription-rows'

/** Refunds that did not fail count against what was received. */
const refundCounts = sql`${pixRefunds.status} <> 'NAO_REALIZADO'`

/** Refunded so far (requests that did not fail), per payment. */
export async function refundedSums(db: Executor, paymentIds: string[]): Promise<Map<string, number>> {
  const result = new Map<string, number>()
  if (paymentIds.length === 0) return result
  const rows = await db
    .select({ paymentId: pixRefunds.paymentId, cents: sql<string>`sum(${pixRefunds.amountCents})` })
    .from(pixRefunds)
    .where(and(inArray(pixRefunds.paymentId, paymentIds), refundCounts))
    .groupBy(pixRefunds.paymentId)
  for (const row of rows) result.set(row.paymentId, Number(row.cents))
  return result
}

export async function insertRefund(tx: Executor, values: NewPixRefundRow): Promise<PixRefundRow> {
  const [row] = await tx.insert(pixRefunds).values(values).returning()
  if (!row) throw new Error('refund row not inserted')
  return row
}

export async function updateRefund(
  db: Executor,
  id: string,
  values: Partial<NewPixRefundRow>,
): Promise<PixRefundRow | null> {
  const [row] = await db.update(pixRefunds).set(values).where(eq(pixRefunds.id, id)).returning()
  return row ?? null
}

export function refundsOf(db: Executor, paymentId: string): Promise<PixRefundRow[]> {
  return db.select().from(pixRefunds).where(eq(pixRefunds.paymentId, paymentId)).orderBy(asc(pixRefunds.createdAt))
}

/** PIX invoices paid since `since`: when they were created and paid, and how the payment was confirmed. */
export function pixPaidSince(db: Executor, since: Date) {
  return db
    .select({ createdAt: payments.createdAt, paidAt: payments.paidAt, via: payments.pixConfirmedVia })
    .from(payments)
    .where(
      and(
        eq(payments.paymentMethod, 'pix'),
        eq(payments.status, 'paid'),
        isNotNull(payments.paidAt),
        gte(payments.paidAt, since),
      ),
    )
}

/**
 * PIX invoices created before `cutoff` still waiting: with manual confirmation every open one waits for an admin;
 * with the API Pix only those in review or left on the static code. Their count and the five oldest.
 */
export async function pixWaiting(db: Executor, cutoff: Date, provider: 'manual' | 'api-pix') {
  const waiting = and(
    eq(payments.paymentMethod, 'pix'),
    lt(payments.createdAt, cutoff),
    provider === 'api-pix'
      ? or(
          eq(payments.status, 'review'),
          and(
            eq(payments.status, 'pending_pix'),
            or(isNull(payments.pixChargeStatus), eq(payments.pixChargeStatus, 'fallback')),
          ),
        )
      : inArray(payments.status, ['pending_pix', 'review']),
  )
  const [count] = await db.select({ n: sql<string>`count(*)` }).from(payments).where(waiting)
  const oldest = await db
    .select({ id: payments.id, amountCents: payments.amountCents, createdAt: payments.createdAt })
    .from(payments)
    .where(waiting)
    .orderBy(asc(payments.createdAt), desc(payments.id))
    .limit(5)
  return { count: Number(count?.n ?? 0), oldest }
}
