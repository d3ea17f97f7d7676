// The lifecycle passes' queries (the run slots, claims and the set-based statements a batch is handled with).
// Queries only, taking a `db` or `tx`; the rules and the transactions are in pass-runner.ts and the passes' services
// (renewals, period-end, notifications).
import { and, asc, eq, inArray, lte, notInArray, type SQL, sql } from 'drizzle-orm'
import { isUnsettledPayment, openPaymentStatuses, unsettledPaymentStatuses } from '../../../domain/subscription-status'
import type { Executor, Tx } from '../../db/client'
import { type PaymentRow, payments, type SubscriptionRow, subscriptions } from '../../db/schema/billing'
import { lifecyclePassRuns } from '../../db/schema/lifecycle'
import { plans } from '../../db/schema/plans'
import { selectPaymentsWithPlansAndProfile, selectSubscriptionsWithPlanAndProfile } from '../../db/subscription-rows'
import type { ClaimCursor } from './pass-runner'

type SubscriptionStatus = SubscriptionRow['status']

/**
 * Takes the pass's slot in lifecycle_pass_runs (last_run_at = now) when its last run was at or before `lastRunBy`,
 * in one upsert, so of several instances exactly one gets true.
 */
export async function claimPassSlot(db: Executor, name: string, now: Date, lastRunBy: Date): Promise<boolean> {
  const [slot] = await db
    .insert(lifecyclePassRuns)
    .values({ name, lastRunAt: now })
    .onConflictDoUpdate({
      target: lifecyclePassRuns.name,
      set: { lastRunAt: now },
      setWhere: lte(lifecyclePassRuns.lastRunAt, lastRunBy),
    })
    .returning()
  return slot !== undefined
}

/**
 * Up to `limit` PIX subscriptions in the given statuses matching `where`, in the cursor's order from where it stands
 * (pass-runner.ts, claimCursor), locked FOR UPDATE; rows another transaction holds are skipped, and so are the `seen`
 * ones. Moves the cursor.
 */
export async function claimPixSubscriptions(
  tx: Executor,
  statuses: SubscriptionStatus[],
  where: SQL | undefined,
  cursor: ClaimCursor,
  seen: string[],
  limit: number,
): Promise<SubscriptionRow[]> {
  const rows = await tx
    .select()
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.billingMethod, 'pix'),
        inArray(subscriptions.status, statuses),
        where,
        cursor.from(),
        seen.length ? notInArray(subscriptions.id, seen) : undefined,
      ),
    )
    .orderBy(...cursor.order())
    .limit(limit)
    .for('update', { skipLocked: true })
  return cursor.moved(rows, limit)
}

/**
 * No renewal invoice (any status) for the subscription's current period end. A scalar subquery, not `not exists`:
 * the planner estimates that anti-join at one row (period end and subscription look independent to it) and, for a
 * batch, hashes every renewal payment (5 s per claim at 1 M payments) instead of probing payments_renewal_due_idx
 * for the candidates it walks in index order. Written `not coalesce(…, false)`, a boolean the planner guesses at one
 * row in two: `(…) is null` it guessed at one in 200, so with the cursor it expected fewer matches than the batch and
 * probed every candidate left, then sorted them (0.6 to 1.9 s per claim at 85 000 candidates, against 10 ms now).
 */
export const noRenewalYet = sql`not coalesce((select true from ${payments}
    where ${payments.subscriptionId} = ${subscriptions.id}
      and ${payments.type} = 'renewal'
      and ${payments.dueDate} = ${subscriptions.currentPeriodEnd} limit 1), false)`

/**
 * When the current period's renewal invoice was issued (the latest, if it was issued again); null: never. Its columns
 * are written qualified: drizzle leaves them bare in a one-table select's list, where the subquery would read its
 * own table's `id`.
 */
const renewalIssuedAt = sql<Date | null>`(select max(renewal.created_at) from ${payments} renewal
    where renewal.subscription_id = ${subscriptions}.id
      and renewal.type = 'renewal'
      and renewal.due_date = ${subscriptions}.current_period_end)`

/**
 * The grace period (graceEndsAt) had started by `instant`: the period had ended, and so had the issue of its renewal
 * invoice when that came later.
 */
export const graceStartedBy = (instant: Date) =>
  sql`greatest(${subscriptions.currentPeriodEnd}, ${renewalIssuedAt}) <= ${instant.toISOString()}::timestamptz`

/** renewalIssuedAt of each subscription: one query for a batch. */
export async function renewalsIssuedAt(tx: Executor, subscriptionIds: string[]): Promise<Map<string, Date | null>> {
  const rows = await tx
    .select({ id: subscriptions.id, issuedAt: renewalIssuedAt.mapWith(payments.createdAt) })
    .from(subscriptions)
    .where(idIn(subscriptions.id, subscriptionIds))
  return new Map(rows.map((r) => [r.id, r.issuedAt]))
}

/**
 * `id = any(<one array parameter>)`: a batch's ids as one parameter instead of one placeholder each (500 for a pass's
 * batch, each a SQL chunk drizzle builds and PostgreSQL parses).
 */
export const idIn = (
  column: typeof subscriptions.id | typeof payments.subscriptionId | typeof payments.id,
  ids: string[],
) => sql`${column} = any(${sql.param(ids)}::text[])`

export async function plansByIds(tx: Executor, ids: string[]) {
  const rows = await tx
    .select()
    .from(plans)
    .where(inArray(plans.id, [...new Set(ids)]))
  return new Map(rows.map((p) => [p.id, p]))
}

/** Invoices with their subscription, plan, upgrade target plan and profile (loadPaymentWithPlansAndProfile, many). */
export function paymentsWithPlansAndProfile(tx: Executor, paymentIds: string[]) {
  return selectPaymentsWithPlansAndProfile(tx).where(idIn(payments.id, paymentIds)).orderBy(asc(payments.id))
}

/** Subscriptions with their plan and profile (loadSubscriptionWithPlanAndProfile, many). */
export function subscriptionsWithPlanAndProfile(tx: Executor, subscriptionIds: string[]) {
  return selectSubscriptionsWithPlanAndProfile(tx)
    .where(idIn(subscriptions.id, subscriptionIds))
    .orderBy(asc(subscriptions.id))
}

/** Each subscription's pending_pix invoice due first (the one an 'overdue' message shows). */
export async function oldestPendingPixInvoices(tx: Executor, subscriptionIds: string[]) {
  const rows = await tx
    .select()
    .from(payments)
    .where(and(idIn(payments.subscriptionId, subscriptionIds), eq(payments.status, 'pending_pix')))
    .orderBy(asc(payments.subscriptionId), asc(payments.dueDate))
  const first = new Map<string, PaymentRow>()
  for (const row of rows) if (!first.has(row.subscriptionId)) first.set(row.subscriptionId, row)
  return first
}

/**
 * Reads the payments of the given subscriptions and, in the same statement, locks their unsettled ones (pending,
 * pending_pix, review: those an admin or a provider's callback may be confirming, and those a pass voids) FOR UPDATE
 * SKIP LOCKED. Answers, per subscription none of whose unsettled payments someone else holds, all its payments; a
 * subscription with one held elsewhere is left out. A settled payment (paid, failed, void) is read, not locked:
 * nothing a pass does changes it, and the lock cost a heap write for each of a customer's past invoices (five of
 * six rows at a cancellation).
 */
export async function lockPaymentsOf(tx: Tx, subscriptionIds: string[]) {
  const locked = tx
    .select({ id: payments.id })
    .from(payments)
    .where(and(idIn(payments.subscriptionId, subscriptionIds), inArray(payments.status, [...unsettledPaymentStatuses])))
    .for('update', { skipLocked: true })
    .as('locked')
  const rows = await tx
    .select({
      id: payments.id,
      subscriptionId: payments.subscriptionId,
      status: payments.status,
      dueDate: payments.dueDate,
      locked: sql<boolean>`${locked.id} is not null`,
    })
    .from(payments)
    .leftJoin(locked, eq(locked.id, payments.id))
    .where(idIn(payments.subscriptionId, subscriptionIds))
  const held = new Map<string, Omit<(typeof rows)[number], 'locked'>[]>(subscriptionIds.map((id) => [id, []]))
  const givenWay = new Set<string>()
  for (const { locked: mine, ...payment } of rows) {
    held.get(payment.subscriptionId)?.push(payment)
    if (!mine && isUnsettledPayment(payment.status)) givenWay.add(payment.subscriptionId)
  }
  for (const id of givenWay) held.delete(id)
  return held
}

/** Of the given subscriptions, the ids of those matching `where` (read in the caller's transaction). */
export async function subscriptionsMatching(tx: Executor, ids: string[], where: SQL | undefined): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await tx
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(idIn(subscriptions.id, ids), where))
  return new Set(rows.map((r) => r.id))
}

/** Sets the status of the given subscriptions (updated_at = now). */
export async function setSubscriptionStatus(
  tx: Tx,
  ids: string[],
  status: SubscriptionStatus,
  now: Date,
): Promise<void> {
  await tx.update(subscriptions).set({ status, updatedAt: now }).where(idIn(subscriptions.id, ids))
}

/** Cancels the given subscriptions, each at its own canceled_at (the batch's instants as one JSON parameter). */
export async function cancelSubscriptions(tx: Tx, items: { id: string; canceledAt: Date }[], now: Date): Promise<void> {
  const at = JSON.stringify(items.map((i) => ({ id: i.id, at: i.canceledAt.toISOString() })))
  await tx.execute(sql`update ${subscriptions}
    set ${sql.identifier(subscriptions.status.name)} = 'canceled', ${sql.identifier(subscriptions.canceledAt.name)} = v.at,
      ${sql.identifier(subscriptions.updatedAt.name)} = ${now.toISOString()}::timestamptz
    from json_to_recordset(${at}::json) as v(id text, at timestamptz)
    where ${subscriptions.id} = v.id`)
}

/** Voids the given invoices that are still open (the caller holds their locks); answers which. */
export function voidOpenPayments(
  tx: Tx,
  paymentIds: string[],
  now: Date,
): Promise<{ id: string; subscriptionId: string }[]> {
  if (paymentIds.length === 0) return Promise.resolve([])
  return tx
    .update(payments)
    .set({ status: 'void', updatedAt: now })
    .where(and(idIn(payments.id, paymentIds), inArray(payments.status, [...openPaymentStatuses])))
    .returning({ id: payments.id, subscriptionId: payments.subscriptionId })
}

/**
 * Up to `limit` subscriptions (any method or status) with an open upgrade invoice whose priced period (else the
 * subscription's current one) ended by `now`, in (period end, id) order, locked FOR UPDATE; rows another
 * transaction holds are skipped, and so are the `seen` ones.
 */
export function claimSubscriptionsWithLapsedUpgrade(
  tx: Executor,
  now: Date,
  seen: string[],
  limit: number,
): Promise<SubscriptionRow[]> {
  const lapsedUpgrade = and(
    eq(payments.subscriptionId, subscriptions.id),
    eq(payments.type, 'upgrade'),
    inArray(payments.status, [...openPaymentStatuses]),
    lte(sql`coalesce(${payments.pricedPeriodEnd}, ${subscriptions.currentPeriodEnd})`, now),
  )
  return tx
    .select()
    .from(subscriptions)
    .where(and(sql`exists (select 1 from ${payments} where ${lapsedUpgrade})`, notInArray(subscriptions.id, seen)))
    .orderBy(asc(subscriptions.currentPeriodEnd), asc(subscriptions.id))
    .limit(limit)
    .for('update', { skipLocked: true })
}

/** Voids the subscription's open upgrade invoices whose priced period (else its current one) ended by `now`. */
export function voidLapsedUpgradesOf(
  tx: Tx,
  subscription: Pick<SubscriptionRow, 'id' | 'currentPeriodEnd'>,
  now: Date,
): Promise<PaymentRow[]> {
  return tx
    .update(payments)
    .set({ status: 'void', updatedAt: now })
    .where(
      and(
        eq(payments.subscriptionId, subscription.id),
        eq(payments.type, 'upgrade'),
        inArray(payments.status, [...openPaymentStatuses]),
        lte(sql`coalesce(${payments.pricedPeriodEnd}, ${subscription.currentPeriodEnd})`, now),
      ),
    )
    .returning()
}
