// The billing lifecycle: what happens to subscriptions, invoices, notifications and the chat platform as time passes.
//
// Passes. Each rule is a pass `(deps, now) => { processed }` over the rows it concerns. `runBillingTick` runs them
// all, in order, once; the job queue (src/server/jobs.ts, pg-boss) runs the detection passes every minute
// ('billing-tick') and the delivery sweeps as their own jobs, in the API process and/or in `npm run worker`;
// `npm run billing:tick` runs one tick from the shell. Every rule reads the clock passed in (ctx.now()), so tests
// move time instead of sleeping.
//
// Exactly once (rows). A pass claims a batch of rows with SELECT … FOR UPDATE SKIP LOCKED and handles it in one
// transaction (pass-runner.ts: set-based where it can, row by row in savepoints when a batch fails), which also
// writes the audit rows (actor system 'billing') and enqueues the customer's
// notifications (transactional outbox). Several workers share the work without waiting on each other; a row whose
// handling failed is rolled back and retried on the next tick. Each transition is written under the lock after
// re-checking the state, and the database has the last word: one renewal invoice per (subscription, due date) is a
// partial unique index, one notification per event and channel is a unique dedupe key (`<kind>:<ref>:<channel>`,
// inserted with ON CONFLICT DO NOTHING), one platform event per transition is the provisioned-state row updated in
// the same transaction. A worker that dies mid-pass loses its open transaction and nothing else: what committed is
// not done again (the rows no longer match their pass), what did not commit is done by the next tick.
//
// Events made elsewhere. Checkout, the admin confirmation and cancel, customer cancel and the Stripe webhooks are
// other modules: the tick finds their effects in the data (a pending_pix invoice without its 'invoice_created'
// notification, a paid one without 'payment_confirmed', …), looking back detectionWindowDays only, so an old
// database is not flooded on the first run.
//
// At least once (outside calls). E-mail, WhatsApp and the platform webhook are called after the row is claimed and
// marked sent/delivered after the provider accepted it. On PostgreSQL the row stays locked during the call, so no
// other worker sends it meanwhile; if the worker dies between the provider's answer and the commit, the row is
// still pending and is sent again. Receivers deduplicate on the event id (platform: body `id` and X-Event-Id).
// Notifications give up after maxNotificationAttempts ('failed'); platform events retry until delivered (back-off
// 1 min doubling to 1 h), as the platform must learn every transition.
//
// Order (platform). Events of one subscription are delivered in the order they were recorded (seq): an event is
// only claimed when no older event of its subscription is still pending, and a claimed event stays locked until its
// outcome is written. Events of different subscriptions go independently.
import { createRenewalInvoices } from './renewals.service'
import {
  cancelExpiredFirstInvoices,
  cancelOverdue,
  endScheduledCancellations,
  markOverdue,
  voidLapsedUpgradeInvoices,
} from './period-end.service'
import { deliverNotifications, detectDueTomorrow, detectNotifications } from './notifications.service'
import { deliverPlatformEvents, detectPlatformEvents } from './provisioning.service'
import { reconcileCardSubscriptions } from './reconcile.service'
import { runMaintenance } from './maintenance.service'
import type { LifecycleDeps, Pass } from './pass-runner'
import { reconcilePix } from '../pix/pix-confirm.service'
import { issueAutomaticoRenewals, reconcileAutomatico } from '../pix-automatico/automatico-renewals'
import { refreshInsightsPass } from '../insights/insights.service'

/** State changes and detection, in the order that lets each see the previous one's effects. */
export const detectionPasses: [string, Pass][] = [
  // PIX_AUTOMATICO=true: the recurring charge of each cycle (D-8 to D-3), before the ordinary renewal invoice (D-3).
  ['pix_automatico_renewals', issueAutomaticoRenewals],
  ['renewals', createRenewalInvoices],
  ['lapsed_upgrade_invoices', voidLapsedUpgradeInvoices],
  // PIX_PROVIDER=api-pix: charges for new invoices (before their notification), missed PIX, expired charges.
  ['pix_reconcile', reconcilePix],
  ['pix_automatico_reconcile', reconcileAutomatico],
  ['due_tomorrow', detectDueTomorrow],
  ['scheduled_cancellations', endScheduledCancellations],
  ['overdue', markOverdue],
  ['overdue_cancellations', cancelOverdue],
  ['expired_first_invoices', cancelExpiredFirstInvoices],
  ['notifications', detectNotifications],
  ['platform_events', detectPlatformEvents],
]

export const deliveryPasses: [string, Pass][] = [
  ['deliver_notifications', deliverNotifications],
  ['deliver_platform_events', deliverPlatformEvents],
]

/** Passes that decide themselves whether they are due (once a day). */
export const dailyPasses: [string, Pass][] = [
  ['card_reconcile', reconcileCardSubscriptions],
  ['maintenance', runMaintenance],
  // Admin home: the monthly aggregates, at most every 10 minutes (after the day's state changes).
  ['insights', refreshInsightsPass],
]

export type TickReport = Record<string, number>

/** Runs the given passes in order, each with the clock read when it starts; returns what each processed. */
export async function runPasses(deps: LifecycleDeps, passes: [string, Pass][]): Promise<TickReport> {
  const report: TickReport = {}
  for (const [name, pass] of passes) {
    const { processed } = await pass(deps, deps.now())
    report[name] = processed
  }
  return report
}

/** One full tick: every due pass once (detection, the daily ones, then delivery). Safe to run twice in a row. */
export function runBillingTick(deps: LifecycleDeps): Promise<TickReport> {
  return runPasses(deps, [...detectionPasses, ...dailyPasses, ...deliveryPasses])
}
