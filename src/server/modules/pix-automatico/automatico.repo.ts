// The queries of PIX Automático: recurrences (rec), recurring charges (cobr), the renewal pass's claim and the rows
// of other tables they read or change. Queries only, taking a `db` or `tx`; the rules, the PSP calls and the
// transactions are in automatico.service.ts and automatico-renewals.ts.
import { and, asc, desc, eq, gte, inArray, lt, notInArray, or, sql } from 'drizzle-orm'
import type { Executor, Tx } from '../../db/client'
import { profiles } from '../../db/schema/auth'
import { type PaymentRow, payments, type SubscriptionRow, subscriptions } from '../../db/schema/billing'
import { type PlanRow, plans } from '../../db/schema/plans'
import { pixRecurrences, pixRecurringCharges, type RecurringChargeStatus } from '../../db/schema/pix-automatico'

export { findPaymentRow as paymentById, lockSubscriptionRow as lockSubscription } from '../../db/subscription-rows'

export type RecurrenceRow = typeof pixRecurrences.$inferSelect
type NewRecurrenceRow = typeof pixRecurrences.$inferInsert
export type ChargeRow = typeof pixRecurringCharges.$inferSelect
type NewChargeRow = typeof pixRecurringCharges.$inferInsert

/** A charge not final yet: recorded, or accepted by the PSP and not settled. */
const openChargeStatuses: RecurringChargeStatus[] = ['PENDENTE', 'CRIADA', 'ATIVA']

// ---- recurrences ----

/** The subscription's recurrence waiting for the customer's approval (at most one, by a unique index). */
export async function waitingRecurrence(db: Executor, subscriptionId: string): Promise<RecurrenceRow | null> {
  const [row] = await db
    .select()
    .from(pixRecurrences)
    .where(and(eq(pixRecurrences.subscriptionId, subscriptionId), eq(pixRecurrences.status, 'CRIADA')))
  return row ?? null
}

/** Records a recurrence; null when a conflicting one (another waiting one, the same idRec) is there first. */
export async function insertRecurrence(tx: Tx, values: NewRecurrenceRow): Promise<RecurrenceRow | null> {
  const [row] = await tx.insert(pixRecurrences).values(values).onConflictDoNothing().returning()
  return row ?? null
}

export async function recurrenceById(db: Executor, id: string): Promise<RecurrenceRow | null> {
  const [row] = await db.select().from(pixRecurrences).where(eq(pixRecurrences.id, id))
  return row ?? null
}

export async function recurrenceByIdRec(db: Executor, idRec: string): Promise<RecurrenceRow | null> {
  const [row] = await db.select().from(pixRecurrences).where(eq(pixRecurrences.idRec, idRec))
  return row ?? null
}

/** Locks the recurrence row until the transaction ends. */
export async function lockRecurrence(tx: Tx, id: string): Promise<RecurrenceRow | null> {
  const [row] = await tx.select().from(pixRecurrences).where(eq(pixRecurrences.id, id)).for('update')
  return row ?? null
}

/** Changes a recurrence the caller has locked; answers the row as it is now. */
export async function updateRecurrence(
  tx: Tx,
  id: string,
  values: Partial<NewRecurrenceRow>,
): Promise<RecurrenceRow | null> {
  const [row] = await tx.update(pixRecurrences).set(values).where(eq(pixRecurrences.id, id)).returning()
  return row ?? null
}

/** The recurrence that speaks for the subscription: the approved one, else the waiting one, else the newest. */
export async function currentRecurrence(db: Executor, subscriptionId: string): Promise<RecurrenceRow | null> {
  const [row] = await db
    .select()
    .from(pixRecurrences)
    .where(eq(pixRecurrences.subscriptionId, subscriptionId))
    .orderBy(
      sql`case ${pixRecurrences.status} when 'APROVADA' then 0 when 'CRIADA' then 1 else 2 end`,
      desc(pixRecurrences.createdAt),
    )
    .limit(1)
  return row ?? null
}

/** The subscription's approved recurrence, the last approved when there are several. */
export async function latestApprovedRecurrence(tx: Executor, subscriptionId: string): Promise<RecurrenceRow | null> {
  const [row] = await tx
    .select()
    .from(pixRecurrences)
    .where(and(eq(pixRecurrences.subscriptionId, subscriptionId), eq(pixRecurrences.status, 'APROVADA')))
    .orderBy(sql`${pixRecurrences.approvedAt} desc`)
    .limit(1)
  return row ?? null
}

/** The subscription's approved and waiting recurrences other than `exceptId`. */
export function otherLiveRecurrences(db: Executor, subscriptionId: string, exceptId: string): Promise<RecurrenceRow[]> {
  return db
    .select()
    .from(pixRecurrences)
    .where(
      and(
        eq(pixRecurrences.subscriptionId, subscriptionId),
        inArray(pixRecurrences.status, ['APROVADA', 'CRIADA']),
        sql`${pixRecurrences.id} <> ${exceptId}`,
      ),
    )
}

/** Every recurrence of the subscription, oldest first. */
export function recurrencesOf(db: Executor, subscriptionId: string): Promise<RecurrenceRow[]> {
  return db
    .select()
    .from(pixRecurrences)
    .where(eq(pixRecurrences.subscriptionId, subscriptionId))
    .orderBy(pixRecurrences.createdAt)
}

/** Of these idRecs, the ones we recorded, with their status. */
export function recurrenceStatuses(db: Executor, idRecs: string[]) {
  return db
    .select({ idRec: pixRecurrences.idRec, status: pixRecurrences.status })
    .from(pixRecurrences)
    .where(inArray(pixRecurrences.idRec, idRecs))
}

/** Approved or waiting recurrences of canceled subscriptions (100 at a time). */
export async function liveRecurrencesOfCanceledSubscriptions(db: Executor): Promise<RecurrenceRow[]> {
  const rows = await db
    .select({ rec: pixRecurrences })
    .from(pixRecurrences)
    .innerJoin(subscriptions, eq(subscriptions.id, pixRecurrences.subscriptionId))
    .where(and(inArray(pixRecurrences.status, ['CRIADA', 'APROVADA']), eq(subscriptions.status, 'canceled')))
    .limit(100)
  return rows.map((r) => r.rec)
}

// ---- recurring charges ----

/** Records the cycle's charge; null when the subscription already has one for that due date. */
export async function insertCharge(tx: Tx, values: NewChargeRow): Promise<ChargeRow | null> {
  const [row] = await tx.insert(pixRecurringCharges).values(values).onConflictDoNothing().returning()
  return row ?? null
}

export async function chargeByTxid(db: Executor, txid: string): Promise<ChargeRow | null> {
  const [row] = await db.select().from(pixRecurringCharges).where(eq(pixRecurringCharges.txid, txid))
  return row ?? null
}

/** Of these txids, the charges we recorded. */
export function chargesByTxids(db: Executor, txids: string[]): Promise<ChargeRow[]> {
  return db.select().from(pixRecurringCharges).where(inArray(pixRecurringCharges.txid, txids))
}

/** Locks the charge row until the transaction ends. */
export async function lockCharge(tx: Tx, id: string): Promise<ChargeRow | null> {
  const [row] = await tx.select().from(pixRecurringCharges).where(eq(pixRecurringCharges.id, id)).for('update')
  return row ?? null
}

/** Changes a charge the caller has locked. */
export async function updateCharge(tx: Tx, id: string, values: Partial<NewChargeRow>): Promise<void> {
  await tx.update(pixRecurringCharges).set(values).where(eq(pixRecurringCharges.id, id))
}

/** Changes a charge the caller has locked; answers the row as it is now. */
export async function updateChargeReturning(
  tx: Tx,
  id: string,
  values: Partial<NewChargeRow>,
): Promise<ChargeRow | null> {
  const [row] = await tx.update(pixRecurringCharges).set(values).where(eq(pixRecurringCharges.id, id)).returning()
  return row ?? null
}

/** Condition: the recurrence's charges not final yet (what its end releases; where the next debit comes from). */
const openChargeOf = (recurrenceId: string) =>
  and(eq(pixRecurringCharges.recurrenceId, recurrenceId), inArray(pixRecurringCharges.status, openChargeStatuses))

/** The recurrence's open charges, locked. */
export function lockOpenChargesOf(tx: Tx, recurrenceId: string): Promise<ChargeRow[]> {
  return tx.select().from(pixRecurringCharges).where(openChargeOf(recurrenceId)).for('update')
}

/** The recurrence's open charge due first. */
export async function nextOpenChargeOf(db: Executor, recurrenceId: string): Promise<ChargeRow | null> {
  const [row] = await db
    .select()
    .from(pixRecurringCharges)
    .where(openChargeOf(recurrenceId))
    .orderBy(pixRecurringCharges.dueDate)
    .limit(1)
  return row ?? null
}

/** Every charge of the subscription, by due date. */
export function chargesOf(db: Executor, subscriptionId: string): Promise<ChargeRow[]> {
  return db
    .select()
    .from(pixRecurringCharges)
    .where(eq(pixRecurringCharges.subscriptionId, subscriptionId))
    .orderBy(pixRecurringCharges.dueDate)
}

/** Charges recorded but not accepted by the PSP yet, below `maxSendAttempts` sends, with their idRec (200). */
export function chargesToSend(db: Executor, maxSendAttempts: number) {
  return db
    .select({ charge: pixRecurringCharges, idRec: pixRecurrences.idRec })
    .from(pixRecurringCharges)
    .innerJoin(pixRecurrences, eq(pixRecurrences.id, pixRecurringCharges.recurrenceId))
    .where(and(eq(pixRecurringCharges.status, 'PENDENTE'), lt(pixRecurringCharges.sendAttempts, maxSendAttempts)))
    .limit(200)
}

/** Open charges whose invoice was paid or voided, or whose subscription ends or ended (100 at a time). */
export async function unneededCharges(db: Executor): Promise<ChargeRow[]> {
  const rows = await db
    .select({ charge: pixRecurringCharges })
    .from(pixRecurringCharges)
    .innerJoin(payments, eq(payments.id, pixRecurringCharges.paymentId))
    .innerJoin(subscriptions, eq(subscriptions.id, pixRecurringCharges.subscriptionId))
    .where(
      and(
        inArray(pixRecurringCharges.status, openChargeStatuses),
        or(
          inArray(payments.status, ['paid', 'void']),
          eq(subscriptions.cancelAtPeriodEnd, true),
          eq(subscriptions.status, 'canceled'),
        ),
      ),
    )
    .limit(100)
  return rows.map((r) => r.charge)
}

/**
 * Debit invoices ('pending') left without a way to be paid: their charge was cancelled by us (the subscription was
 * set to end), no charge is open for them, and the subscription goes on after all (the cancellation was taken back).
 */
export async function orphanedDebitInvoices(db: Executor): Promise<{ id: string; subscriptionId: string }[]> {
  const chargeOf = (statuses: RecurringChargeStatus[]) =>
    sql`exists (select 1 from ${pixRecurringCharges} where ${pixRecurringCharges.paymentId} = ${payments.id}
      and ${inArray(pixRecurringCharges.status, statuses)})`
  return db
    .select({ id: payments.id, subscriptionId: payments.subscriptionId })
    .from(payments)
    .innerJoin(subscriptions, eq(subscriptions.id, payments.subscriptionId))
    .where(
      and(
        eq(payments.status, 'pending'),
        eq(subscriptions.billingMethod, 'pix'),
        eq(subscriptions.cancelAtPeriodEnd, false),
        inArray(subscriptions.status, ['active', 'trialing', 'past_due']),
        chargeOf(['CANCELADA']),
        sql`not ${chargeOf(openChargeStatuses)}`,
      ),
    )
    .limit(100)
}

/**
 * SQL: the subscription's charge for its current period end is open, or fell back to an invoice after
 * `fellBackAfter`.
 */
export function chargeHoldsCycle(fellBackAfter: Date) {
  return sql`exists (
    select 1 from ${pixRecurringCharges}
    where ${pixRecurringCharges.subscriptionId} = ${subscriptions.id}
      and ${pixRecurringCharges.dueDate} = ${subscriptions.currentPeriodEnd}
      and (${pixRecurringCharges.status} in ('PENDENTE', 'CRIADA', 'ATIVA')
        or ${pixRecurringCharges.fallbackAt} > ${fellBackAfter}))`
}

// ---- the renewal pass's claim ----

const approvedRecurrence = sql`exists (select 1 from ${pixRecurrences} where ${pixRecurrences.subscriptionId} = ${subscriptions.id}
    and ${pixRecurrences.status} = 'APROVADA')`
const noChargeYet = sql`not exists (select 1 from ${pixRecurringCharges}
    where ${pixRecurringCharges.subscriptionId} = ${subscriptions.id}
      and ${pixRecurringCharges.dueDate} = ${subscriptions.currentPeriodEnd})`

/**
 * Up to `limit` active or trialing PIX subscriptions not set to end, whose period ends in [from, until), with an
 * approved recurrence and no charge for that period end yet; in (period end, id) order, locked FOR UPDATE, skipping
 * rows another transaction holds and the `seen` ones.
 */
export function claimRenewalCandidates(
  tx: Executor,
  from: Date,
  until: Date,
  seen: string[],
  limit: number,
): Promise<SubscriptionRow[]> {
  return tx
    .select()
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.billingMethod, 'pix'),
        inArray(subscriptions.status, ['active', 'trialing']),
        eq(subscriptions.cancelAtPeriodEnd, false),
        gte(subscriptions.currentPeriodEnd, from),
        lt(subscriptions.currentPeriodEnd, until),
        approvedRecurrence,
        noChargeYet,
        notInArray(subscriptions.id, seen),
      ),
    )
    .orderBy(asc(subscriptions.currentPeriodEnd), asc(subscriptions.id))
    .limit(limit)
    .for('update', { skipLocked: true })
}

// ---- subscriptions, customers, plans and invoices ----

export async function subscriptionById(db: Executor, id: string): Promise<SubscriptionRow | null> {
  const [row] = await db.select().from(subscriptions).where(eq(subscriptions.id, id))
  return row ?? null
}

/** Whether the subscription is the user's (someone else's id answers false, like a missing one). */
export async function ownsSubscription(db: Executor, userId: string, id: string): Promise<boolean> {
  const [row] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), eq(subscriptions.userId, userId)))
  return Boolean(row)
}

/** One subscription of the user with its plan (someone else's id finds nothing, like a missing one). */
export async function userSubscriptionWithPlan(
  db: Executor,
  userId: string,
  id: string,
): Promise<{ subscription: SubscriptionRow; plan: PlanRow } | null> {
  const [row] = await db
    .select({ subscription: subscriptions, plan: plans })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .where(and(eq(subscriptions.id, id), eq(subscriptions.userId, userId)))
  return row ?? null
}

/** Sets a subscription the caller has locked past_due. */
export async function markSubscriptionPastDue(tx: Tx, id: string, now: Date): Promise<void> {
  await tx.update(subscriptions).set({ status: 'past_due', updatedAt: now }).where(eq(subscriptions.id, id))
}

/** The customer's profile and the plan of a subscription (what a message to the customer names). */
export async function customerOf(tx: Executor, subscriptionId: string) {
  const [row] = await tx
    .select({ profile: profiles, plan: plans })
    .from(subscriptions)
    .innerJoin(profiles, eq(profiles.id, subscriptions.userId))
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .where(eq(subscriptions.id, subscriptionId))
  return row ?? null
}

export async function profileById(db: Executor, id: string) {
  const [row] = await db.select().from(profiles).where(eq(profiles.id, id))
  return row ?? null
}

export async function profileTaxId(db: Executor, userId: string): Promise<string | null> {
  const [row] = await db.select({ taxId: profiles.taxId }).from(profiles).where(eq(profiles.id, userId))
  return row?.taxId ?? null
}

export async function setProfileTaxId(db: Executor, userId: string, taxId: string): Promise<void> {
  await db.update(profiles).set({ taxId }).where(eq(profiles.id, userId))
}

export async function planById(db: Executor, id: string): Promise<PlanRow | null> {
  const [row] = await db.select().from(plans).where(eq(plans.id, id))
  return row ?? null
}

/** The subscription's renewal invoice (not void) due on `dueDate`. */
export async function renewalInvoiceOf(
  tx: Executor,
  subscriptionId: string,
  dueDate: Date,
): Promise<PaymentRow | null> {
  const [row] = await tx
    .select()
    .from(payments)
    .where(
      and(
        eq(payments.subscriptionId, subscriptionId),
        eq(payments.type, 'renewal'),
        eq(payments.dueDate, dueDate),
        sql`${payments.status} <> 'void'`,
      ),
    )
    .limit(1)
  return row ?? null
}

/** SQL: the subscription row goes on (in force, not set to end): a cycle of it is worth invoicing. */
const goesOn = sql`not ${subscriptions.cancelAtPeriodEnd} and ${subscriptions.status} <> 'canceled'`

/** The subscription is in force and not set to end. */
export async function subscriptionGoesOn(tx: Executor, subscriptionId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(eq(subscriptions.id, subscriptionId), goesOn))
  return row !== undefined
}

/**
 * A renewal invoice the PSP was to debit ('pending') becomes an ordinary PIX invoice, only while its subscription goes
 * on; false when it was not pending, or its subscription is set to end or ended (the cycle is not owed: it stays
 * 'pending' with no code, and reconcileAutomatico reopens it if the cancellation is taken back).
 */
export async function reopenAsPixInvoice(tx: Tx, paymentId: string, now: Date): Promise<boolean> {
  const [row] = await tx
    .update(payments)
    .set({ status: 'pending_pix', pixChargeAttempts: 0, updatedAt: now })
    .where(
      and(
        eq(payments.id, paymentId),
        eq(payments.status, 'pending'),
        sql`exists (select 1 from ${subscriptions} where ${subscriptions.id} = ${payments.subscriptionId} and ${goesOn})`,
      ),
    )
    .returning({ id: payments.id })
  return Boolean(row)
}
