// The admin services' queries (admin-*.service.ts): locks, inserts and updates of the rows an admin changes. The
// admin lists are admin-lists.repo.ts. Each function takes the caller's transaction (or the pool for a plain read);
// the rules, the audit rows and the lock order stay in the services.
import { and, asc, eq, gt, inArray, ne, sql } from 'drizzle-orm'
import { roleIds, type RoleId } from '../../../domain/billing-vocabulary'
import { openPaymentStatuses } from '../../../domain/subscription-status'
import type { Executor, Tx } from '../../db/client'
import { profiles } from '../../db/schema/auth'
import { payments, pixSettings, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import type { NewSubscriptionRow, PaymentRow, PixSettingsRow, SubscriptionRow } from '../../db/schema/billing'
import type { PlanRow } from '../../db/schema/plans'

export { findPaymentSubscriptionId, lockPaymentRow, lockSubscriptionRow } from '../../db/subscription-rows'

// ---- subscriptions

export async function findSubscriptionRow(db: Executor, id: string): Promise<SubscriptionRow | null> {
  const [row] = await db.select().from(subscriptions).where(eq(subscriptions.id, id)).limit(1)
  return row ?? null
}

/** Serialises one customer's admin creations: a double submit waits for the first and then finds its row. */
export async function lockAdminCreation(tx: Tx, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`admin-subscription:${userId}`}))`)
}

/** A subscription of the same customer, plan, status and period created after `since` (a double submit). */
export async function findTwinSubscription(
  tx: Tx,
  twin: { userId: string; planId: string; status: SubscriptionRow['status']; start: Date; end: Date; since: Date },
): Promise<string | null> {
  const [row] = await tx
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.userId, twin.userId),
        eq(subscriptions.planId, twin.planId),
        eq(subscriptions.status, twin.status),
        eq(subscriptions.currentPeriodStart, twin.start),
        eq(subscriptions.currentPeriodEnd, twin.end),
        gt(subscriptions.createdAt, twin.since),
      ),
    )
    .limit(1)
  return row?.id ?? null
}

export async function insertSubscriptionRow(tx: Tx, values: NewSubscriptionRow): Promise<SubscriptionRow> {
  const [row] = await tx.insert(subscriptions).values(values).returning()
  if (!row) throw new Error('insert into subscriptions returned nothing')
  return row
}

/** Updates a subscription the caller has locked. */
export async function updateSubscriptionRow(
  tx: Tx,
  id: string,
  values: Partial<Omit<SubscriptionRow, 'id'>>,
): Promise<SubscriptionRow> {
  const [row] = await tx.update(subscriptions).set(values).where(eq(subscriptions.id, id)).returning()
  if (!row) throw new Error(`subscription ${id} vanished while locked`)
  return row
}

/** Voids the subscription's open invoices; returns their ids. */
export async function voidOpenPayments(tx: Tx, subscriptionId: string, now: Date): Promise<string[]> {
  const voided = await tx
    .update(payments)
    .set({ status: 'void', updatedAt: now })
    .where(and(eq(payments.subscriptionId, subscriptionId), inArray(payments.status, [...openPaymentStatuses])))
    .returning({ id: payments.id })
  return voided.map((p) => p.id)
}

/**
 * The invoices "save as active" settles: the subscription's pending_pix invoices, except upgrade invoices whose
 * priced period has ended (they buy nothing any more; the lifecycle voids them). Locked when `forUpdate`.
 */
export async function settleableInvoices(
  db: Executor,
  subscriptionId: string,
  now: Date,
  forUpdate = false,
): Promise<PaymentRow[]> {
  const query = db
    .select()
    .from(payments)
    .where(
      and(
        eq(payments.subscriptionId, subscriptionId),
        eq(payments.status, 'pending_pix'),
        sql`not (${payments.type} = 'upgrade' and ${payments.pricedPeriodEnd} is not null
          and ${payments.pricedPeriodEnd} <= ${now})`,
      ),
    )
    .orderBy(asc(payments.dueDate), asc(payments.id))
  return forUpdate ? query.for('update') : query
}

/** The invoices become paid by manual confirmation; returns the updated rows. */
export function markPaidManually(tx: Tx, paymentIds: string[], now: Date): Promise<PaymentRow[]> {
  return tx
    .update(payments)
    .set({ status: 'paid', paymentMethod: 'manual_confirmation', paidAt: now, updatedAt: now })
    .where(inArray(payments.id, paymentIds))
    .returning()
}

// ---- payments

/** The subscription a payment belongs to (it never changes, so it can be read before the locks). */
/** Whether another payment already carries this PIX end-to-end id. */
export async function isEndToEndIdTaken(tx: Tx, endToEndId: string, exceptPaymentId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: payments.id })
    .from(payments)
    .where(and(eq(payments.pixEndToEndId, endToEndId), ne(payments.id, exceptPaymentId)))
    .limit(1)
  return row !== undefined
}

/** Updates a payment the caller has locked. */
export async function updatePaymentRow(
  tx: Tx,
  id: string,
  values: Partial<Omit<PaymentRow, 'id'>>,
): Promise<PaymentRow> {
  const [row] = await tx.update(payments).set(values).where(eq(payments.id, id)).returning()
  if (!row) throw new Error(`payment ${id} vanished while locked`)
  return row
}

// ---- plans

export async function findPlanRow(db: Executor, id: string): Promise<PlanRow | null> {
  const [row] = await db.select().from(plans).where(eq(plans.id, id)).limit(1)
  return row ?? null
}

export async function profileExists(db: Executor, id: string): Promise<boolean> {
  const [row] = await db.select({ id: profiles.id }).from(profiles).where(eq(profiles.id, id)).limit(1)
  return row !== undefined
}

/** Inserts the plan unless its id is taken (then null). */
export async function insertPlanRow(tx: Tx, values: typeof plans.$inferInsert): Promise<PlanRow | null> {
  const [row] = await tx.insert(plans).values(values).onConflictDoNothing({ target: plans.id }).returning()
  return row ?? null
}

/** Locks the plan row: a checkout inserting a subscription for it waits (key-share lock on the same row). */
export async function lockPlanRow(tx: Tx, id: string): Promise<PlanRow | null> {
  const [row] = await tx.select().from(plans).where(eq(plans.id, id)).for('update')
  return row ?? null
}

export async function updatePlanRow(tx: Tx, id: string, values: Partial<Omit<PlanRow, 'id'>>): Promise<PlanRow> {
  const [row] = await tx.update(plans).set(values).where(eq(plans.id, id)).returning()
  if (!row) throw new Error(`plan ${id} vanished while locked`)
  return row
}

/** Whether a subscription is on the plan or a payment targets it. */
export async function isPlanReferenced(tx: Tx, id: string): Promise<boolean> {
  const [subscription] = await tx
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(eq(subscriptions.planId, id))
    .limit(1)
  if (subscription) return true
  const [payment] = await tx.select({ id: payments.id }).from(payments).where(eq(payments.targetPlanId, id)).limit(1)
  return payment !== undefined
}

export async function deletePlanRow(tx: Tx, id: string): Promise<void> {
  await tx.delete(plans).where(eq(plans.id, id))
}

// ---- users

/** Locks every admin row in id order (two role changes never deadlock); returns their ids. */
export async function lockAdminIds(tx: Tx): Promise<string[]> {
  const rows = await tx
    .select({ id: profiles.id })
    .from(profiles)
    .where(eq(profiles.roleId, roleIds.admin))
    .orderBy(asc(profiles.id))
    .for('update')
  return rows.map((r) => r.id)
}

export async function lockProfileRow(tx: Tx, id: string) {
  const [row] = await tx.select().from(profiles).where(eq(profiles.id, id)).for('update')
  return row ?? null
}

export async function setProfileRole(tx: Tx, id: string, roleId: RoleId, now: Date): Promise<void> {
  await tx.update(profiles).set({ roleId, updatedAt: now }).where(eq(profiles.id, id))
}

// ---- PIX settings (the single row 1)

export async function findPixSettingsRow(db: Executor): Promise<PixSettingsRow | null> {
  const [row] = await db.select().from(pixSettings).where(eq(pixSettings.id, 1)).limit(1)
  return row ?? null
}

export async function lockPixSettingsRow(tx: Tx): Promise<PixSettingsRow | null> {
  const [row] = await tx.select().from(pixSettings).where(eq(pixSettings.id, 1)).for('update')
  return row ?? null
}

export async function upsertPixSettingsRow(
  tx: Tx,
  values: Pick<PixSettingsRow, 'pixKey' | 'beneficiaryName' | 'beneficiaryCity' | 'description' | 'updatedAt'>,
): Promise<PixSettingsRow> {
  const [row] = await tx
    .insert(pixSettings)
    .values({ id: 1, ...values })
    .onConflictDoUpdate({ target: pixSettings.id, set: values })
    .returning()
  if (!row) throw new Error('upsert into pix_settings returned nothing')
  return row
}
