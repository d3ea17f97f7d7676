import { and, eq, inArray } from 'drizzle-orm'
import { openPaymentStatuses } from '../../../domain/subscription-status'
import type { Executor } from '../../db/client'
import { profiles } from '../../db/schema/auth'
import { type PaymentMetadata, payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import { webhookEvents } from '../../db/schema/platform'
import { cardPlanChanges, cardSimulatorSessions, stripeSubscriptionSync } from '../../db/schema/stripe'
import type { NewPaymentRow, NewSubscriptionRow, PaymentRow, SubscriptionRow } from '../../db/schema/billing'
import type { SimulatorSessionRow, SyncRow } from '../../db/schema/stripe'

export {
  findPaymentSubscriptionId,
  lockPaymentRow as lockPayment,
  lockSubscriptionRow as lockSubscription,
} from '../../db/subscription-rows'

export async function userExists(db: Executor, id: string): Promise<boolean> {
  const [row] = await db.select({ id: profiles.id }).from(profiles).where(eq(profiles.id, id)).limit(1)
  return Boolean(row)
}

export async function eventSeen(db: Executor, eventId: string): Promise<boolean> {
  const [row] = await db.select({ id: webhookEvents.id }).from(webhookEvents).where(eq(webhookEvents.id, eventId))
  return Boolean(row)
}

/** True when this call recorded the event; false when it was already there (a replay). */
export async function recordEvent(
  tx: Executor,
  event: { id: string; type: string; payload: unknown; provider: string; at: Date },
): Promise<boolean> {
  const rows = await tx
    .insert(webhookEvents)
    .values({
      id: event.id,
      provider: event.provider,
      type: event.type,
      payload: event.payload,
      receivedAt: event.at,
      processedAt: event.at,
    })
    .onConflictDoNothing({ target: webhookEvents.id })
    .returning({ id: webhookEvents.id })
  return rows.length > 0
}

export async function findByStripeId(db: Executor, stripeSubscriptionId: string): Promise<SubscriptionRow | null> {
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.stripeSubscriptionId, stripeSubscriptionId))
    .limit(1)
  return row ?? null
}

export async function lockByStripeId(tx: Executor, stripeSubscriptionId: string): Promise<SubscriptionRow | null> {
  const [row] = await tx
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.stripeSubscriptionId, stripeSubscriptionId))
    .for('update')
  return row ?? null
}

/** Concurrent deliveries may race to create the row: the unique Stripe id lets exactly one insert win. */
export async function insertSubscriptionIfMissing(tx: Executor, row: NewSubscriptionRow): Promise<boolean> {
  const inserted = await tx
    .insert(subscriptions)
    .values(row)
    .onConflictDoNothing({ target: subscriptions.stripeSubscriptionId })
    .returning({ id: subscriptions.id })
  return inserted.length > 0
}

export async function updateSubscription(
  tx: Executor,
  id: string,
  values: Partial<NewSubscriptionRow>,
): Promise<SubscriptionRow> {
  const [row] = await tx.update(subscriptions).set(values).where(eq(subscriptions.id, id)).returning()
  if (!row) throw new Error(`subscription ${id} vanished while locked`)
  return row
}

export async function getSync(tx: Executor, stripeSubscriptionId: string): Promise<SyncRow | null> {
  const [row] = await tx
    .select()
    .from(stripeSubscriptionSync)
    .where(eq(stripeSubscriptionSync.stripeSubscriptionId, stripeSubscriptionId))
  return row ?? null
}

export async function saveSync(tx: Executor, row: typeof stripeSubscriptionSync.$inferInsert): Promise<void> {
  const { stripeSubscriptionId: _, ...rest } = row
  await tx.insert(stripeSubscriptionSync).values(row).onConflictDoUpdate({
    target: stripeSubscriptionSync.stripeSubscriptionId,
    set: rest,
  })
}

export type NewCardPayment = {
  id: string
  subscriptionId: string
  amountCents: number
  /** 'review' when the amount is not what we priced. */
  status: 'paid' | 'review'
  type: 'new' | 'upgrade' | 'renewal'
  targetPlanId: string | null
  dueDate: Date
  paidAt: Date
  receiptUrl: string | null
  stripeInvoiceId: string
  metadata: PaymentMetadata
  at: Date
}

/** A paid card invoice; the unique Stripe invoice id makes a replay (or paid + payment_succeeded) insert nothing. */
export async function insertCardPaymentIfMissing(tx: Executor, p: NewCardPayment): Promise<boolean> {
  const inserted = await tx
    .insert(payments)
    .values({
      id: p.id,
      subscriptionId: p.subscriptionId,
      amountCents: p.amountCents,
      status: p.status,
      currency: 'BRL',
      paymentMethod: 'card',
      type: p.type,
      targetPlanId: p.targetPlanId,
      dueDate: p.dueDate,
      paidAt: p.paidAt,
      receiptUrl: p.receiptUrl,
      metadata: p.metadata,
      stripeInvoiceId: p.stripeInvoiceId,
      createdAt: p.at,
      updatedAt: p.at,
    })
    .onConflictDoNothing({ target: payments.stripeInvoiceId })
    .returning({ id: payments.id })
  return inserted.length > 0
}

/** The target plan of the card upgrade that this Stripe invoice paid (already applied), if we asked for it. */
export async function findCardPlanChangeByInvoice(db: Executor, stripeInvoiceId: string): Promise<string | null> {
  const [row] = await db
    .select({ targetPlanId: cardPlanChanges.targetPlanId })
    .from(cardPlanChanges)
    .where(eq(cardPlanChanges.stripeInvoiceId, stripeInvoiceId))
    .limit(1)
  return row?.targetPlanId ?? null
}

export async function findCardReceipt(db: Executor, stripeInvoiceId: string) {
  const [row] = await db
    .select({
      payment: payments,
      userId: subscriptions.userId,
      planName: plans.name,
      customerName: profiles.name,
      customerEmail: profiles.email,
    })
    .from(payments)
    .innerJoin(subscriptions, eq(subscriptions.id, payments.subscriptionId))
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .innerJoin(profiles, eq(profiles.id, subscriptions.userId))
    .where(and(eq(payments.stripeInvoiceId, stripeInvoiceId), eq(payments.paymentMethod, 'card')))
    .limit(1)
  return row ?? null
}

// Simulator sessions

export async function insertSimulatorSessionIfMissing(
  db: Executor,
  row: typeof cardSimulatorSessions.$inferInsert,
): Promise<SimulatorSessionRow> {
  await db
    .insert(cardSimulatorSessions)
    .values(row)
    .onConflictDoNothing({ target: cardSimulatorSessions.idempotencyKey })
  const [existing] = await db
    .select()
    .from(cardSimulatorSessions)
    .where(eq(cardSimulatorSessions.idempotencyKey, row.idempotencyKey))
  if (!existing) throw new Error('simulator session missing after insert')
  return existing
}

export async function findSimulatorSession(db: Executor, id: string): Promise<SimulatorSessionRow | null> {
  const [row] = await db.select().from(cardSimulatorSessions).where(eq(cardSimulatorSessions.id, id)).limit(1)
  return row ?? null
}

export async function lockSimulatorSession(tx: Executor, id: string): Promise<SimulatorSessionRow | null> {
  const [row] = await tx.select().from(cardSimulatorSessions).where(eq(cardSimulatorSessions.id, id)).for('update')
  return row ?? null
}

export async function markSimulatorSessionApproved(
  tx: Executor,
  id: string,
  values: {
    stripeSubscriptionId?: string
    stripeCustomerId?: string
    stripeInvoiceId?: string
    stripePaymentIntentId?: string
    approvedAt: Date
  },
): Promise<SimulatorSessionRow> {
  const [row] = await tx.update(cardSimulatorSessions).set(values).where(eq(cardSimulatorSessions.id, id)).returning()
  if (!row) throw new Error(`simulator session ${id} vanished while locked`)
  return row
}

// The card payment of our own open invoices (card-invoice-events.ts), inside the Stripe event's transaction.

/** Voids the subscription's open first invoices (a card took their place); returns what it voided. */
export function voidOpenFirstInvoices(tx: Executor, subscriptionId: string, now: Date) {
  return tx
    .update(payments)
    .set({ status: 'void', updatedAt: now })
    .where(
      and(
        eq(payments.subscriptionId, subscriptionId),
        eq(payments.type, 'new'),
        inArray(payments.status, [...openPaymentStatuses]),
      ),
    )
    .returning({ id: payments.id, amountCents: payments.amountCents, status: payments.status })
}

/** The invoice's amount, when it belongs to that subscription. */
export async function invoiceAmount(db: Executor, paymentId: string, subscriptionId: string): Promise<number | null> {
  const [row] = await db
    .select({ amountCents: payments.amountCents })
    .from(payments)
    .where(and(eq(payments.id, paymentId), eq(payments.subscriptionId, subscriptionId)))
  return row?.amountCents ?? null
}

export async function updatePayment(
  tx: Executor,
  id: string,
  values: Partial<NewPaymentRow>,
): Promise<PaymentRow | null> {
  const [row] = await tx.update(payments).set(values).where(eq(payments.id, id)).returning()
  return row ?? null
}
