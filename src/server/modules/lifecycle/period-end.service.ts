// What happens to PIX subscriptions when time passes: scheduled cancellations, overdue renewals, unpaid first
// invoices. Card subscriptions are left to Stripe (its webhooks keep them in sync).
import { and, asc, eq, inArray, lte, not, notInArray, sql } from 'drizzle-orm'
import { addDays } from '../../../domain/billing-period'
import type { Executor, Tx } from '../../db/client'
import { payments, subscriptions } from '../../db/schema/billing'
import { audit, systemActor } from '../audit/audit'
import { type CancelReason, overdueGraceDays } from './notification-templates'
import { enqueue, renderCanceled, renderOverdue } from './notifications.service'
import { claimCursor, forEachClaimed, type LifecycleDeps, type PassResult } from './pass-runner'
import type { SubscriptionRow } from '../../db/schema/billing'
import { openPaymentStatuses } from '../../../domain/subscription-status'
import { automaticoHoldsCycle } from '../pix-automatico/automatico-renewals'

type SubscriptionStatus = SubscriptionRow['status']

const actor = systemActor('billing')

function snapshot(s: SubscriptionRow) {
  return {
    status: s.status,
    planId: s.planId,
    currentPeriodEnd: s.currentPeriodEnd.toISOString(),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    canceledAt: s.canceledAt?.toISOString() ?? null,
  }
}

/** One PIX subscription in the given statuses matching `where`, locked; others' locked rows are skipped. */
function claimPix(statuses: SubscriptionStatus[], where: ReturnType<typeof and>) {
  const cursor = claimCursor()
  return async (tx: Executor, seen: string[]) => {
    const [row] = await tx
      .select()
      .from(subscriptions)
      .where(
        and(
          eq(subscriptions.billingMethod, 'pix'),
          inArray(subscriptions.status, statuses),
          where,
          cursor.from(),
          notInArray(subscriptions.id, seen),
        ),
      )
      .orderBy(asc(subscriptions.currentPeriodEnd), asc(subscriptions.id))
      .limit(1)
      .for('update', { skipLocked: true })
    return cursor.moved(row)
  }
}

/**
 * The subscription's payments, locked. Null when one of them is locked by someone else: the admin confirmation
 * locks the payment before the subscription (we lock the other way round), so waiting here could deadlock; we
 * give way instead and the next tick sees the outcome.
 */
async function lockPaymentsOrGiveWay(tx: Tx, subscriptionId: string) {
  const all = await tx.select({ id: payments.id }).from(payments).where(eq(payments.subscriptionId, subscriptionId))
  const locked = await tx
    .select({ id: payments.id, status: payments.status, dueDate: payments.dueDate })
    .from(payments)
    .where(eq(payments.subscriptionId, subscriptionId))
    .for('update', { skipLocked: true })
  return locked.length === all.length ? locked : null
}

/** Cancels a locked subscription, voids its open invoices, audits, and enqueues the notification. */
async function cancel(
  tx: Tx,
  deps: LifecycleDeps,
  now: Date,
  subscription: SubscriptionRow,
  canceledAt: Date,
  reason: Exclude<CancelReason, 'other'>,
): Promise<boolean> {
  if (!(await lockPaymentsOrGiveWay(tx, subscription.id))) return false
  const [updated] = await tx
    .update(subscriptions)
    .set({ status: 'canceled', canceledAt, updatedAt: now })
    .where(eq(subscriptions.id, subscription.id))
    .returning()
  const voided = await tx
    .update(payments)
    .set({ status: 'void', updatedAt: now })
    .where(and(eq(payments.subscriptionId, subscription.id), inArray(payments.status, [...openPaymentStatuses])))
    .returning({ id: payments.id })
  await audit(tx, actor, `subscription.canceled_${reason}`, 'subscription', subscription.id, {
    before: snapshot(subscription),
    after: { ...(updated ? snapshot(updated) : {}), voidedPaymentIds: voided.map((p) => p.id), by: 'billing' },
  })
  const rendered = await renderCanceled(tx, deps, subscription.id, reason)
  if (rendered) await enqueue(tx, now, rendered)
  return true
}

/** cancel_at_period_end subscriptions become canceled when their period ends. */
export async function endScheduledCancellations(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const processed = await forEachClaimed(
    deps,
    'scheduled_cancellations',
    claimPix(
      ['active', 'trialing', 'past_due'],
      and(eq(subscriptions.cancelAtPeriodEnd, true), lte(subscriptions.currentPeriodEnd, now)),
    ),
    (tx, subscription) => cancel(tx, deps, now, subscription, subscription.currentPeriodEnd, 'period_end'),
  )
  return { processed }
}

/**
 * A subscription whose period ended without the renewal being paid (paying it would have moved the period on)
 * becomes past_due (Vencida), with an 'overdue' notification.
 */
export async function markOverdue(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const processed = await forEachClaimed(
    deps,
    'overdue',
    claimPix(
      ['active', 'trialing'],
      and(
        eq(subscriptions.cancelAtPeriodEnd, false),
        lte(subscriptions.currentPeriodEnd, now),
        not(automaticoHoldsCycle(now)),
      ),
    ),
    async (tx, subscription) => {
      const [updated] = await tx
        .update(subscriptions)
        .set({ status: 'past_due', updatedAt: now })
        .where(eq(subscriptions.id, subscription.id))
        .returning()
      await audit(tx, actor, 'subscription.past_due', 'subscription', subscription.id, {
        before: snapshot(subscription),
        after: { ...(updated ? snapshot(updated) : {}), by: 'billing' },
      })
      const rendered = await renderOverdue(tx, deps, subscription.id)
      if (rendered) await enqueue(tx, now, rendered)
      return true
    },
  )
  return { processed }
}

/** After overdueGraceDays more days unpaid, a past_due subscription is canceled and its invoice voided. */
export async function cancelOverdue(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const processed = await forEachClaimed(
    deps,
    'overdue_cancellations',
    claimPix(
      ['past_due'],
      and(lte(subscriptions.currentPeriodEnd, addDays(now, -overdueGraceDays)), not(automaticoHoldsCycle(now))),
    ),
    (tx, subscription) =>
      cancel(tx, deps, now, subscription, addDays(subscription.currentPeriodEnd, overdueGraceDays), 'overdue'),
  )
  return { processed }
}

/**
 * A pending_pix subscription whose first invoice passed its due date unpaid is canceled and the invoice voided.
 * An invoice an admin is reviewing (status 'review', amount differed) or a newer open one keeps it waiting.
 */
export async function cancelExpiredFirstInvoices(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const expired = sql`exists (
    select 1 from ${payments} where ${payments.subscriptionId} = ${subscriptions.id}
      and ${payments.status} in ('pending', 'pending_pix') and ${payments.dueDate} <= ${now})`
  const stillPayable = sql`exists (
    select 1 from ${payments} where ${payments.subscriptionId} = ${subscriptions.id}
      and (${payments.status} in ('paid', 'review')
        or (${payments.status} in ('pending', 'pending_pix') and ${payments.dueDate} > ${now})))`
  const processed = await forEachClaimed(
    deps,
    'expired_first_invoices',
    claimPix(['pending_pix'], and(expired, sql`not ${stillPayable}`)),
    async (tx, subscription) => {
      // Re-read under the locks: an admin confirmation may have committed after our claim's snapshot.
      const rows = await lockPaymentsOrGiveWay(tx, subscription.id)
      if (!rows) return false
      const open = (p: { status: string }) => p.status === 'pending' || p.status === 'pending_pix'
      const payable = rows.some((p) => p.status === 'paid' || p.status === 'review' || (open(p) && p.dueDate > now))
      const lapsed = rows.filter((p) => open(p) && p.dueDate <= now)
      if (payable || lapsed.length === 0) return false
      const expiredAt = new Date(Math.max(...lapsed.map((p) => p.dueDate.getTime())))
      return cancel(tx, deps, now, subscription, expiredAt, 'expired')
    },
  )
  return { processed }
}

/**
 * An upgrade invoice belongs to the period it priced (billing/upgrade.service.ts): still open when that period
 * ends, it is voided, whatever the subscription's method or status, so it can no longer be paid for a plan switch.
 */
export async function voidLapsedUpgradeInvoices(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const lapsedUpgrade = and(
    eq(payments.subscriptionId, subscriptions.id),
    eq(payments.type, 'upgrade'),
    inArray(payments.status, [...openPaymentStatuses]),
    lte(sql`coalesce(${payments.pricedPeriodEnd}, ${subscriptions.currentPeriodEnd})`, now),
  )
  const processed = await forEachClaimed(
    deps,
    'lapsed_upgrade_invoices',
    async (tx, seen) => {
      const [row] = await tx
        .select()
        .from(subscriptions)
        .where(and(sql`exists (select 1 from ${payments} where ${lapsedUpgrade})`, notInArray(subscriptions.id, seen)))
        .orderBy(asc(subscriptions.currentPeriodEnd), asc(subscriptions.id))
        .limit(1)
        .for('update', { skipLocked: true })
      return row
    },
    async (tx, subscription) => {
      if (!(await lockPaymentsOrGiveWay(tx, subscription.id))) return false
      const voided = await tx
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
      for (const payment of voided) {
        await audit(tx, actor, 'payment.void', 'payment', payment.id, {
          before: { status: 'open', targetPlanId: payment.targetPlanId, amountCents: payment.amountCents },
          after: {
            status: 'void',
            reason: 'upgrade_period_ended',
            pricedPeriodEnd: (payment.pricedPeriodEnd ?? subscription.currentPeriodEnd).toISOString(),
            by: 'billing',
          },
        })
      }
      return voided.length > 0
    },
  )
  return { processed }
}
