import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, or, type SQL, sql } from 'drizzle-orm'
import type { Payment, Subscription } from '../../../domain/contracts/billing'
import type { Executor, Tx } from '../../db/client'
import { insertJsonRows } from '../../db/json-rows'
import { payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import { type CardPlanChangeRow, type CardPlanChangeStatus, cardPlanChanges } from '../../db/schema/stripe'
import type { NewPaymentRow, NewSubscriptionRow, PaymentRow, SubscriptionRow } from '../../db/schema/billing'
import type { PlanRow } from '../../db/schema/plans'
import { hasOwnReceipt, ownReceiptPath } from '../../../domain/billing-vocabulary'
import { openPaymentStatuses } from '../../../domain/subscription-status'
import { loadPaymentWithPlansAndProfile } from '../../db/subscription-rows'
export { findPaymentRow as findPayment, lockSubscriptionRow as lockSubscription } from '../../db/subscription-rows'

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

type PaymentFields = Pick<
  PaymentRow,
  | 'id'
  | 'subscriptionId'
  | 'amountCents'
  | 'status'
  | 'paymentMethod'
  | 'type'
  | 'targetPlanId'
  | 'receiptUrl'
  | 'metadata'
>
type PaymentPlan = Pick<PlanRow, 'id' | 'name' | 'priceCents'> | null

export function toPayment(
  row: PaymentFields & Pick<PaymentRow, 'dueDate' | 'paidAt' | 'createdAt'>,
  plan: PaymentPlan,
): Payment {
  return paymentOf(row, row.dueDate.toISOString(), row.paidAt?.toISOString() ?? null, row.createdAt.toISOString(), plan)
}

/** The API's payment from its columns, its three instants already written as ISO text (the customer's list reads them so). */
export function paymentOf(
  row: PaymentFields,
  dueDate: string,
  paidAt: string | null,
  createdAt: string,
  plan: PaymentPlan,
): Payment {
  return {
    id: row.id,
    subscriptionId: row.subscriptionId,
    amountCents: row.amountCents,
    status: row.status,
    currency: 'BRL',
    paymentMethod: row.paymentMethod,
    type: row.type,
    targetPlanId: row.targetPlanId,
    dueDate,
    paidAt,
    createdAt,
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

/** Changes a payment the caller has locked (through its subscription); it must exist. */
export async function updatePayment(tx: Tx, id: string, values: Partial<NewPaymentRow>): Promise<PaymentRow> {
  const [row] = await tx.update(payments).set(values).where(eq(payments.id, id)).returning()
  if (!row) throw new Error(`payment ${id} vanished while its subscription was locked`)
  return row
}

/** The subscription's open PIX renewal invoices, locked (what a plan switch re-prices). */
export function lockOpenPixRenewals(tx: Tx, subscriptionId: string): Promise<PaymentRow[]> {
  return tx
    .select()
    .from(payments)
    .where(
      and(
        eq(payments.subscriptionId, subscriptionId),
        eq(payments.type, 'renewal'),
        eq(payments.status, 'pending_pix'),
        eq(payments.paymentMethod, 'pix'),
      ),
    )
    .for('update')
}

export function voidPayment(tx: Tx, id: string, now: Date): Promise<PaymentRow> {
  return updatePayment(tx, id, { status: 'void', updatedAt: now })
}

/**
 * One payment of the user with its subscription's plan, the upgrade's target plan and the customer's profile
 * (what the PIX view and the receipt print); null for anyone else's payment, like for a missing one.
 */
export function findUserPayment(db: Executor, userId: string, paymentId: string) {
  return loadPaymentWithPlansAndProfile(db, paymentId, { userId })
}

/** A card upgrade's change is open while Stripe may still collect it. */
const openCardPlanChangeStatuses: CardPlanChangeStatus[] = ['pending', 'declined']

/** The subscription's open (pending or declined) card plan change, locked. Lock the subscription first. */
export async function lockOpenCardPlanChange(tx: Tx, subscriptionId: string): Promise<CardPlanChangeRow | null> {
  const [row] = await tx
    .select()
    .from(cardPlanChanges)
    .where(
      and(
        eq(cardPlanChanges.subscriptionId, subscriptionId),
        inArray(cardPlanChanges.status, openCardPlanChangeStatuses),
      ),
    )
    .for('update')
  return row ?? null
}

/** One card plan change, locked. */
export async function lockCardPlanChange(tx: Tx, id: string): Promise<CardPlanChangeRow | null> {
  const [row] = await tx.select().from(cardPlanChanges).where(eq(cardPlanChanges.id, id)).for('update')
  return row ?? null
}

export async function insertCardPlanChange(tx: Tx, values: typeof cardPlanChanges.$inferInsert): Promise<void> {
  await tx.insert(cardPlanChanges).values(values)
}

export async function setCardPlanChangeStatus(
  tx: Tx,
  id: string,
  status: CardPlanChangeStatus,
  now: Date,
  stripeInvoiceId?: string,
): Promise<CardPlanChangeRow> {
  const [row] = await tx
    .update(cardPlanChanges)
    .set({ status, updatedAt: now, ...(stripeInvoiceId ? { stripeInvoiceId } : {}) })
    .where(eq(cardPlanChanges.id, id))
    .returning()
  if (!row) throw new Error(`card plan change ${id} vanished while locked`)
  return row
}

/** payments_one_renewal_per_period_idx, as both renewal inserts name it in their ON CONFLICT. */
const renewalPerPeriod = {
  columns: [payments.subscriptionId, payments.dueDate],
  where: sql`${sql.identifier(payments.type.name)} = 'renewal' and ${sql.identifier(payments.status.name)} <> 'void'`,
}

/**
 * Inserts renewal invoices once per (subscription, due date): payments_one_renewal_per_period_idx, voided ones
 * excluded. Answers the rows inserted (one already issued for a subscription and due date is left out).
 */
export function insertRenewalsOncePerPeriod(tx: Tx, values: NewPaymentRow[]): Promise<PaymentRow[]> {
  return tx
    .insert(payments)
    .values(values)
    .onConflictDoNothing({ target: renewalPerPeriod.columns, where: renewalPerPeriod.where })
    .returning()
}

/**
 * insertRenewalsOncePerPeriod for a batch (the lifecycle's renewal pass): one INSERT with the rows as one JSON
 * parameter (db/json-rows.ts). Answers the ids inserted.
 */
export async function insertRenewalBatchOncePerPeriod(tx: Tx, values: NewPaymentRow[]): Promise<Set<string>> {
  if (values.length === 0) return new Set()
  const result = (await tx.execute(
    sql`${insertJsonRows(payments, values)}
      on conflict (${sql.join(
        renewalPerPeriod.columns.map((c) => sql.identifier(c.name)),
        sql`, `,
      )}) where ${renewalPerPeriod.where} do nothing returning ${payments.id} as id`,
  )) as unknown as { rows: { id: string }[] }
  return new Set(result.rows.map((r) => r.id))
}

/** A PIX invoice without a live PSP charge (none yet, or only the static code's fallback). */
const withoutLiveCharge = () => or(isNull(payments.pixChargeStatus), eq(payments.pixChargeStatus, 'fallback'))

/** Records the PSP charge of a still open PIX invoice that has none; null when it got one (or closed) meanwhile. */
export async function setPixChargeActive(
  db: Executor,
  id: string,
  charge: Pick<
    NewPaymentRow,
    'pixTxid' | 'pixCopiaECola' | 'pixLocation' | 'pixChargeCreatedAt' | 'pixChargeExpiresAt' | 'updatedAt'
  >,
): Promise<PaymentRow | null> {
  const [row] = await db
    .update(payments)
    .set({ ...charge, pixChargeStatus: 'active' })
    .where(and(eq(payments.id, id), withoutLiveCharge(), inArray(payments.status, ['pending', 'pending_pix'])))
    .returning()
  return row ?? null
}

/** The PSP refused or could not be reached: the invoice keeps the static code; null when it got a charge meanwhile. */
export async function setPixChargeFallback(
  db: Executor,
  id: string,
  attempts: number,
  now: Date,
): Promise<PaymentRow | null> {
  const [row] = await db
    .update(payments)
    .set({ pixChargeStatus: 'fallback', pixChargeAttempts: attempts, updatedAt: now })
    .where(and(eq(payments.id, id), withoutLiveCharge()))
    .returning()
  return row ?? null
}

/**
 * The customer's open PIX invoice that is due first, with its subscription's plan and an upgrade's target plan (the
 * invoice join of db/subscription-rows); null without one.
 */
export async function findFirstOpenPixInvoice(db: Executor, userId: string) {
  const [first] = await db
    .select({ id: payments.id })
    .from(payments)
    .innerJoin(subscriptions, eq(subscriptions.id, payments.subscriptionId))
    .where(
      and(
        eq(subscriptions.userId, userId),
        eq(payments.paymentMethod, 'pix'),
        inArray(payments.status, [...openPaymentStatuses]),
      ),
    )
    .orderBy(asc(payments.dueDate), asc(payments.id))
    .limit(1)
  return first ? loadPaymentWithPlansAndProfile(db, first.id, { userId }) : null
}

/** The user's current subscription with its plan: the newest one not canceled, else the newest; null without any. */
export async function findCurrentSubscriptionWithPlan(db: Executor, userId: string) {
  const [row] = await db
    .select({ subscription: subscriptions, plan: plans })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .where(eq(subscriptions.userId, userId))
    .orderBy(sql`${subscriptions.status} = 'canceled'`, desc(subscriptions.createdAt), desc(subscriptions.id))
    .limit(1)
  return row ?? null
}

/** Card subscriptions Stripe should still be billing (active, trialing, past_due), by id after `after`, a page. */
export function listLiveCardSubscriptions(db: Executor, after: string, limit: number): Promise<SubscriptionRow[]> {
  return db
    .select()
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.billingMethod, 'card'),
        inArray(subscriptions.status, ['active', 'trialing', 'past_due']),
        isNotNull(subscriptions.stripeSubscriptionId),
        gt(subscriptions.id, after),
      ),
    )
    .orderBy(asc(subscriptions.id))
    .limit(limit)
}
