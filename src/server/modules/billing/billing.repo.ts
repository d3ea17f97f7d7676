import { and, asc, desc, eq, gt, inArray, type SQL, sql } from 'drizzle-orm'
import type { Payment, Subscription } from '../../../domain/contracts/billing'
import type { Executor, Tx } from '../../db/client'
import { payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import type { NewPaymentRow, NewSubscriptionRow, PaymentRow, SubscriptionRow } from '../../db/schema/billing'
import type { PlanRow } from '../../db/schema/plans'
import { hasOwnReceipt, ownReceiptPath } from '../../../domain/billing-vocabulary'
import { openPaymentStatuses } from '../../../domain/subscription-status'
import { loadPaymentWithPlansAndProfile } from '../../db/subscription-rows'

export function toSubscription(row: SubscriptionRow, plan: PlanRow): Subscription {
  return {
    id: row.id,
    userId: row.userId,
    planId: row.planId,
    plan: {
      id: plan.id,
      name: plan.name,
      priceCents: plan.priceCents,
      boxQuantity: plan.boxQuantity,
      agentQuantity: plan.agentQuantity,
    },
    status: row.status,
    billingMethod: row.billingMethod,
    currentPeriodStart: row.currentPeriodStart.toISOString(),
    currentPeriodEnd: row.currentPeriodEnd.toISOString(),
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    canceledAt: row.canceledAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  }
}

export function toPayment(row: PaymentRow, plan: Pick<PlanRow, 'id' | 'name' | 'priceCents'> | null): Payment {
  return {
    id: row.id,
    subscriptionId: row.subscriptionId,
    amountCents: row.amountCents,
    status: row.status,
    currency: 'BRL',
    paymentMethod: row.paymentMethod,
    type: row.type,
    targetPlanId: row.targetPlanId,
    dueDate: row.dueDate.toISOString(),
    paidAt: row.paidAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    receiptUrl: hasOwnReceipt(row) ? ownReceiptPath(row.id) : row.receiptUrl, // card invoices keep the provider's
    metadata: row.metadata,
    plan: plan ? { id: plan.id, name: plan.name, priceCents: plan.priceCents } : null,
  }
}

/** One subscription of the user (someone else's id finds nothing, like a missing one). */
export async function findUserSubscription(db: Executor, userId: string, id: string) {
  const [row] = await db
    .select({ subscription: subscriptions, plan: plans })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .where(and(eq(subscriptions.id, id), eq(subscriptions.userId, userId)))
    .limit(1)
  return row ?? null
}

/** Locks the user's subscription row until the transaction ends: concurrent changes to it wait here. */
export async function lockUserSubscription(tx: Tx, userId: string, id: string): Promise<SubscriptionRow | null> {
  const [row] = await tx
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), eq(subscriptions.userId, userId)))
    .for('update')
  return row ?? null
}

export async function lockSubscription(tx: Tx, id: string): Promise<SubscriptionRow | null> {
  const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id)).for('update')
  return row ?? null
}

export async function getPlanRow(db: Executor, id: string): Promise<PlanRow | null> {
  const [row] = await db.select().from(plans).where(eq(plans.id, id)).limit(1)
  return row ?? null
}

/** The plan of an existing subscription (the foreign key guarantees it, so a missing one is a bug, not a 404). */
export async function requirePlanRow(db: Executor, planId: string): Promise<PlanRow> {
  const plan = await getPlanRow(db, planId)
  if (!plan) throw new Error(`plan ${planId} of a subscription is missing`)
  return plan
}

/** Active plans priced above `priceCents`, cheapest first. */
export function listHigherPlans(db: Executor, priceCents: number) {
  return db
    .select()
    .from(plans)
    .where(and(eq(plans.active, true), gt(plans.priceCents, priceCents)))
    .orderBy(asc(plans.priceCents), asc(plans.name))
}

/** Serialises one user's checkouts: a double click waits for the first and then finds its invoice. */
export async function lockUserCheckout(tx: Tx, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`checkout:${userId}`}))`)
}

/** The newest pending_pix subscription of the user on this plan with its 'new' invoice, narrowed by `conditions`. */
async function latestCheckout(db: Executor, userId: string, planId: string, ...conditions: SQL[]) {
  const [row] = await db
    .select({ subscription: subscriptions, payment: payments })
    .from(subscriptions)
    .innerJoin(payments, eq(payments.subscriptionId, subscriptions.id))
    .where(
      and(
        eq(subscriptions.userId, userId),
        eq(subscriptions.planId, planId),
        eq(subscriptions.status, 'pending_pix'),
        eq(payments.type, 'new'),
        ...conditions,
      ),
    )
    .orderBy(desc(payments.createdAt), desc(payments.id))
    .limit(1)
  return row ?? null
}

/** The user's still open PIX checkout of this plan: a pending_pix subscription with its open 'new' invoice. */
export function findOpenPixCheckout(tx: Tx, userId: string, planId: string) {
  return latestCheckout(tx, userId, planId, eq(payments.status, 'pending_pix'), eq(payments.paymentMethod, 'pix'))
}

/** The user's open first invoice of a pending_pix subscription of this plan (what a new card checkout must pay). */
export async function findOpenFirstInvoice(db: Executor, userId: string, planId: string): Promise<string | null> {
  const row = await latestCheckout(
    db,
    userId,
    planId,
    eq(subscriptions.billingMethod, 'pix'),
    inArray(payments.status, [...openPaymentStatuses]),
  )
  return row?.payment.id ?? null
}

export async function insertSubscription(tx: Tx, values: NewSubscriptionRow): Promise<SubscriptionRow> {
  const [row] = await tx.insert(subscriptions).values(values).returning()
  if (!row) throw new Error('insert into subscriptions returned nothing')
  return row
}

export async function insertPayment(tx: Tx, values: NewPaymentRow): Promise<PaymentRow> {
  const [row] = await tx.insert(payments).values(values).returning()
  if (!row) throw new Error('insert into payments returned nothing')
  return row
}

export async function updateSubscription(
  tx: Tx,
  id: string,
  values: Partial<Pick<SubscriptionRow, 'planId' | 'cancelAtPeriodEnd' | 'updatedAt'>>,
): Promise<SubscriptionRow> {
  const [row] = await tx.update(subscriptions).set(values).where(eq(subscriptions.id, id)).returning()
  if (!row) throw new Error(`subscription ${id} vanished while locked`)
  return row
}

/** The subscription's open upgrade invoice (the partial unique index allows at most one). */
export async function findOpenUpgradeInvoice(db: Executor, subscriptionId: string): Promise<PaymentRow | null> {
  const [row] = await db
    .select()
    .from(payments)
    .where(
      and(
        eq(payments.subscriptionId, subscriptionId),
        eq(payments.type, 'upgrade'),
        inArray(payments.status, [...openPaymentStatuses]),
      ),
    )
    .limit(1)
  return row ?? null
}

export async function voidPayment(tx: Tx, id: string, now: Date): Promise<PaymentRow> {
  const [row] = await tx.update(payments).set({ status: 'void', updatedAt: now }).where(eq(payments.id, id)).returning()
  if (!row) throw new Error(`payment ${id} vanished while its subscription was locked`)
  return row
}

/**
 * One payment of the user with its subscription's plan, the upgrade's target plan and the customer's profile
 * (what the PIX view and the receipt print); null for anyone else's payment, like for a missing one.
 */
export function findUserPayment(db: Executor, userId: string, paymentId: string) {
  return loadPaymentWithPlansAndProfile(db, paymentId, { userId })
}
