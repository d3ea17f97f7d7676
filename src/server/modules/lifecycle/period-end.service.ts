// What happens to PIX subscriptions when time passes: scheduled cancellations, overdue renewals, unpaid first
// invoices. Card subscriptions are left to Stripe (its webhooks keep them in sync).
import { and, eq, inArray, lte, not, sql } from 'drizzle-orm'
import { addDays } from '../../../domain/billing-period'
import type { Tx } from '../../db/client'
import { payments, subscriptions } from '../../db/schema/billing'
import { audit, auditMany, systemActor } from '../audit/audit'
import { type CancelReason, graceEndsAt, isLateRenewal, overdueGraceDays } from './notification-templates'
import { renderCanceledMany, renderOverdueMany } from './notifications.render'
import { enqueueMany } from './notifications.service'
import { claimPix, eachRow, forEachClaimed, type LifecycleDeps, type PassResult } from './pass-runner'
import type { SubscriptionRow } from '../../db/schema/billing'
import { isOpenPayment } from '../../../domain/subscription-status'
import { automaticoHoldsCycle } from '../pix-automatico/automatico-renewals'
import {
  cancelSubscriptions,
  graceStartedBy,
  noRenewalYet,
  renewalsIssuedAt,
  claimSubscriptionsWithLapsedUpgrade,
  lockPaymentsOf,
  setSubscriptionStatus,
  subscriptionsMatching,
  voidLapsedUpgradesOf,
  voidOpenPayments,
} from './lifecycle.repo'

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

/**
 * Cancels locked subscriptions (each at its canceledAt), voids their open invoices, audits each, and enqueues the
 * notifications: one statement each for the batch. A subscription with an unsettled payment someone else holds is
 * left out: the admin confirmation locks the payment before the subscription (we lock the other way round), so
 * waiting here could deadlock; we give way instead and the next tick sees the outcome. Answers the ids canceled.
 */
async function cancel(
  tx: Tx,
  deps: LifecycleDeps,
  now: Date,
  items: { subscription: SubscriptionRow; canceledAt: Date }[],
  reason: Exclude<CancelReason, 'other'>,
): Promise<string[]> {
  if (items.length === 0) return []
  const held = await lockPaymentsOf(
    tx,
    items.map((i) => i.subscription.id),
  )
  const mine = items.filter((i) => held.has(i.subscription.id))
  if (mine.length === 0) return []
  const ids = mine.map((i) => i.subscription.id)
  // The open invoices are among the payments just locked: voided by id, without reading every payment again.
  const open = ids.flatMap((id) => (held.get(id) ?? []).filter((p) => isOpenPayment(p.status)).map((p) => p.id))
  const voided = new Map<string, string[]>(ids.map((id) => [id, []]))
  for (const p of await voidOpenPayments(tx, open, now)) voided.get(p.subscriptionId)?.push(p.id)
  await auditMany(
    tx,
    actor,
    mine.map(({ subscription, canceledAt }) => ({
      action: `subscription.canceled_${reason}`,
      entity: 'subscription',
      entityId: subscription.id,
      before: snapshot(subscription),
      after: {
        ...snapshot({ ...subscription, status: 'canceled', canceledAt }),
        voidedPaymentIds: voided.get(subscription.id) ?? [],
        by: 'billing',
      },
    })),
  )
  await enqueueMany(tx, now, await renderCanceledMany(tx, deps, ids, reason))
  // Last, just before the commit: the statement triggers' subscription_counts rows stay locked from here on, and a
  // customer's checkout or cancel (or another worker's batch) waits on them.
  await cancelSubscriptions(
    tx,
    mine.map((i) => ({ id: i.subscription.id, canceledAt: i.canceledAt })),
    now,
  )
  return ids
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
    (tx, batch) =>
      cancel(
        tx,
        deps,
        now,
        batch.map((subscription) => ({ subscription, canceledAt: subscription.currentPeriodEnd })),
        'period_end',
      ),
  )
  return { processed }
}

/** The overdue pass's condition (on active or trialing PIX subscriptions), at `now`. */
function overdueNow(now: Date) {
  return and(
    eq(subscriptions.cancelAtPeriodEnd, false),
    lte(subscriptions.currentPeriodEnd, now),
    not(automaticoHoldsCycle(now)),
    // Never overdue on an invoice not issued: a renewal the renewal pass still owes (it stopped at its budget
    // with a backlog, after the worker was down) is issued first, on the next tick, and falls due at once.
    not(noRenewalYet),
  )
}
const overdueStatuses: SubscriptionStatus[] = ['active', 'trialing']

/** Marks locked subscriptions past_due: an audit row, the overdue messages and the status each, set-based. */
async function markPastDue(tx: Tx, deps: LifecycleDeps, now: Date, batch: SubscriptionRow[]): Promise<string[]> {
  if (batch.length === 0) return []
  const ids = batch.map((s) => s.id)
  await auditMany(
    tx,
    actor,
    batch.map((subscription) => ({
      action: 'subscription.past_due',
      entity: 'subscription',
      entityId: subscription.id,
      before: snapshot(subscription),
      after: { ...snapshot({ ...subscription, status: 'past_due' }), by: 'billing' },
    })),
  )
  await enqueueMany(tx, now, await renderOverdueMany(tx, deps, ids))
  // Last, just before the commit (the subscription_counts rows its trigger locks; see cancel).
  await setSubscriptionStatus(tx, ids, 'past_due', now)
  return ids
}

/**
 * A subscription whose period ended without the renewal being paid (paying it would have moved the period on)
 * becomes past_due (Vencida), with an 'overdue' notification. Only once that renewal was issued: one the renewal
 * pass still owes (a backlog it could not finish within its budget) is issued on the next tick, due at once, and
 * the subscription goes overdue then, never on an invoice its customer was not sent.
 */
export async function markOverdue(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const processed = await forEachClaimed(deps, 'overdue', claimPix(overdueStatuses, overdueNow(now)), (tx, batch) =>
    markPastDue(tx, deps, now, batch),
  )
  return { processed }
}

/**
 * The renewal pass's batch, after its invoices: the subscriptions whose renewal it issued already due (the jobs
 * were down past the period end, or the catch-up of a new worker) go past_due in the same transaction, exactly as
 * the overdue pass would claim them (its condition, read again under the renewal's locks), instead of that pass
 * claiming, locking and reading the same rows again a moment later. With API Pix too: a PSP charge needs a due date
 * ahead (pix_reconcile never charges one already due), so the overdue message carries the static code, whichever
 * pass renders it. The batch must be last in its transaction (the status' trigger; see cancel).
 */
export async function markLateRenewalsOverdue(
  tx: Tx,
  deps: LifecycleDeps,
  now: Date,
  batch: SubscriptionRow[],
): Promise<string[]> {
  // The renewal was due at the period end: issued late, as the pass's announcement tells them apart.
  const late = batch.filter((s) => isLateRenewal(s.currentPeriodEnd, now))
  if (late.length === 0) return []
  const due = await subscriptionsMatching(
    tx,
    late.map((s) => s.id),
    and(inArray(subscriptions.status, overdueStatuses), overdueNow(now)),
  )
  return markPastDue(
    tx,
    deps,
    now,
    late.filter((s) => due.has(s.id)),
  )
}

/**
 * After overdueGraceDays more days unpaid, a past_due subscription is canceled and its invoice voided: counted from
 * the period end, or from the renewal invoice's issue when that came later (graceEndsAt), at the end of the grace.
 */
export async function cancelOverdue(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const graceStartedBefore = addDays(now, -overdueGraceDays)
  const processed = await forEachClaimed(
    deps,
    'overdue_cancellations',
    claimPix(
      ['past_due'],
      and(
        lte(subscriptions.currentPeriodEnd, graceStartedBefore),
        graceStartedBy(graceStartedBefore),
        not(automaticoHoldsCycle(now)),
      ),
    ),
    async (tx, batch) => {
      const issuedAt = await renewalsIssuedAt(
        tx,
        batch.map((s) => s.id),
      )
      return cancel(
        tx,
        deps,
        now,
        batch.map((subscription) => ({
          subscription,
          canceledAt: graceEndsAt(subscription.currentPeriodEnd, issuedAt.get(subscription.id)),
        })),
        'overdue',
      )
    },
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
    eachRow(async (tx, subscription) => {
      // Re-read under the locks: an admin confirmation may have committed after our claim's snapshot.
      const rows = (await lockPaymentsOf(tx, [subscription.id])).get(subscription.id)
      if (!rows) return false
      const open = (p: { status: string }) => p.status === 'pending' || p.status === 'pending_pix'
      const payable = rows.some((p) => p.status === 'paid' || p.status === 'review' || (open(p) && p.dueDate > now))
      const lapsed = rows.filter((p) => open(p) && p.dueDate <= now)
      if (payable || lapsed.length === 0) return false
      const expiredAt = new Date(Math.max(...lapsed.map((p) => p.dueDate.getTime())))
      return (await cancel(tx, deps, now, [{ subscription, canceledAt: expiredAt }], 'expired')).length > 0
    }),
  )
  return { processed }
}

/**
 * An upgrade invoice belongs to the period it priced (billing/upgrade.service.ts): still open when that period
 * ends, it is voided, whatever the subscription's method or status, so it can no longer be paid for a plan switch.
 */
export async function voidLapsedUpgradeInvoices(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const processed = await forEachClaimed(
    deps,
    'lapsed_upgrade_invoices',
    (tx, seen, limit) => claimSubscriptionsWithLapsedUpgrade(tx, now, seen, limit),
    eachRow(async (tx, subscription) => {
      if (!(await lockPaymentsOf(tx, [subscription.id])).has(subscription.id)) return false
      const voided = await voidLapsedUpgradesOf(tx, subscription, now)
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
    }),
  )
  return { processed }
}
