// Daily card reconciliation: Stripe drives card renewals and its webhooks keep our rows in sync; this pass looks
// for what a lost or misapplied webhook would leave behind and reports it (log warning + audit row). It changes
// nothing: which side is right is a person's call.
import { liveCardSubscriptionsAfter } from '../billing/billing.service'
import { audit, systemActor } from '../audit/audit'
import { claimDailySlot, type LifecycleDeps, type PassResult } from './pass-runner'

const passName = 'card_reconcile'
const pageSize = 100
/** Period ends closer than this are the same instant (Stripe and we may round differently). */
const periodToleranceMs = 60_000

/** Stripe statuses that mean what ours mean; anything else is drift for an active/trialing/past_due row. */
const expectedStatus: Record<string, string> = {
  active: 'active',
  trialing: 'trialing',
  past_due: 'past_due',
  unpaid: 'past_due',
}

/**
 * Once a day (the slot in lifecycle_pass_runs is claimed atomically, so one instance runs it): every active,
 * trialing or past_due card subscription is compared with the provider's view. Needs the card gateway's optional
 * retrieveSubscription; without it the pass logs that it skipped and does nothing.
 */
export async function reconcileCardSubscriptions(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  if (!(await claimDailySlot(deps.db, passName, now))) return { processed: 0 }
  const card = deps.card
  if (!card.retrieveSubscription) {
    deps.log.info(
      { pass: passName, mode: card.mode },
      'card reconciliation skipped: the card gateway cannot read subscriptions',
    )
    return { processed: 0 }
  }

  let processed = 0
  let after = ''
  for (;;) {
    const page = await liveCardSubscriptionsAfter(deps.db, after, pageSize)
    for (const ours of page) {
      after = ours.id
      const stripeId = ours.stripeSubscriptionId
      if (!stripeId) continue
      let theirs: Awaited<ReturnType<NonNullable<typeof card.retrieveSubscription>>>
      try {
        theirs = await card.retrieveSubscription(stripeId)
      } catch (error) {
        deps.log.warn({ err: error, subscriptionId: ours.id, stripeId }, 'card reconciliation: provider call failed')
        continue
      }
      processed += 1
      const problems: string[] = []
      if (!theirs) problems.push('missing_at_provider')
      else {
        if (expectedStatus[theirs.status] !== ours.status) problems.push('status')
        if (theirs.cancelAtPeriodEnd !== ours.cancelAtPeriodEnd) problems.push('cancel_at_period_end')
        if (Math.abs(theirs.currentPeriodEnd.getTime() - ours.currentPeriodEnd.getTime()) > periodToleranceMs)
          problems.push('current_period_end')
      }
      if (problems.length === 0) continue
      const report = {
        ours: {
          status: ours.status,
          cancelAtPeriodEnd: ours.cancelAtPeriodEnd,
          currentPeriodEnd: ours.currentPeriodEnd.toISOString(),
        },
        theirs: theirs
          ? {
              status: theirs.status,
              cancelAtPeriodEnd: theirs.cancelAtPeriodEnd,
              currentPeriodEnd: theirs.currentPeriodEnd.toISOString(),
            }
          : null,
      }
      deps.log.warn({ subscriptionId: ours.id, stripeId, problems, ...report }, 'card reconciliation: drift')
      await audit(deps.db, systemActor('billing'), 'reconcile.drift', 'subscription', ours.id, {
        before: report.ours,
        after: { theirs: report.theirs, problems, by: 'billing' },
      })
    }
    if (page.length < pageSize) break
  }
  return { processed }
}
