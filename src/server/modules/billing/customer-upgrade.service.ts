// The customer's upgrade (spec "upgrade-subscription"): the options with their price, the request, and the switch
// once a PIX upgrade invoice is paid. Card subscriptions go to card-upgrade.service.ts; the pricing and the invoice
// rules (one open upgrade invoice, stale invoices, re-priced renewals) are in upgrade.service.ts. The ownership and
// idempotency rules are billing.service.ts's (its file comment).
import type { UpgradeResult } from '../../../domain/contracts/billing'
import type { Plan } from '../../../domain/contracts/plans'
import type { SessionUser } from '../../../domain/contracts/auth'
import { prorateUpgradeCents } from '../../../domain/billing-period'
import { DomainError } from '../../../domain/errors'
import { canUpgrade } from '../../../domain/subscription-status'
import type { Tx } from '../../db/client'
import { type Actor, audit, systemActor } from '../audit/audit'
import { toPlan } from '../plans/plans.service'
import { getPixSettings, pixChargeFor, requirePixConfig } from '../pix/pix.service'
import { hitRateLimit } from '../rate-limit/rate-limit'
import {
  findOpenUpgradeInvoice,
  findUserSubscription,
  getPlanRow,
  listHigherPlans,
  lockSubscription,
  lockUserSubscription,
  requirePlanRow,
  toPayment,
  toSubscription,
  updateSubscription,
} from './billing.repo'
import { actorOf, type BillingDeps, pixDueDays } from './billing.service'
import { upgradeCardPending } from './card-upgrade.service'
import {
  isStaleUpgrade,
  issueOrReplaceUpgradeInvoice,
  type NotifyDeps,
  pixUpgradeChargeCents,
  repriceOpenRenewals,
  upgradeChangesPerUser,
  voidUpgradeInvoice,
} from './upgrade.service'
import type { PaymentRow, SubscriptionRow } from '../../db/schema/billing'
import type { PlanRow } from '../../db/schema/plans'

function prorationFor(subscription: SubscriptionRow, current: PlanRow, target: Pick<Plan, 'priceCents'>, now: Date) {
  return prorateUpgradeCents({
    currentPriceCents: current.priceCents,
    newPriceCents: target.priceCents,
    periodStart: subscription.currentPeriodStart,
    periodEnd: subscription.currentPeriodEnd,
    now,
  })
}

/** Higher-priced active plans, each with what switching to it costs now. Empty on the top plan. */
export async function upgradeOptions(
  deps: BillingDeps,
  user: SessionUser,
  subscriptionId: string,
): Promise<{ plan: Plan; prorationCents: number }[]> {
  const found = await findUserSubscription(deps.db, user.id, subscriptionId)
  if (!found) throw new DomainError('subscription_not_found')
  if (!canUpgrade(found.subscription.status)) throw new DomainError('cannot_upgrade')
  const now = deps.now()
  const higher = await listHigherPlans(deps.db, found.plan.priceCents)
  const pix = found.subscription.billingMethod === 'pix'
  return higher.map((plan) => ({
    plan: toPlan(plan),
    prorationCents: pix
      ? pixUpgradeChargeCents(found.subscription, found.plan, plan, now)
      : prorationFor(found.subscription, found.plan, plan, now),
  }))
}

/** The rules every upgrade passes, in the order the customer can fix them. */
function checkUpgrade(
  subscription: SubscriptionRow,
  higher: PlanRow[],
  target: PlanRow | null,
  current: PlanRow,
): asserts target is PlanRow {
  if (!canUpgrade(subscription.status)) throw new DomainError('cannot_upgrade')
  if (higher.length === 0) throw new DomainError('no_higher_plan')
  if (!target?.active) throw new DomainError('plan_not_found')
  if (target.priceCents <= current.priceCents) throw new DomainError('plan_not_higher')
}

/** Spec "upgrade-subscription": only the prorated difference is charged. */
export async function upgradeSubscription(
  deps: BillingDeps,
  user: SessionUser,
  input: { subscription_id: string; new_plan_id: string },
): Promise<UpgradeResult> {
  const found = await findUserSubscription(deps.db, user.id, input.subscription_id)
  if (!found) throw new DomainError('subscription_not_found')
  if (found.subscription.billingMethod === 'card')
    return upgradeCardPending(deps, user, found.subscription, input.new_plan_id)
  return upgradePix(deps, user, input.subscription_id, input.new_plan_id)
}

async function upgradePix(
  deps: BillingDeps,
  user: SessionUser,
  subscriptionId: string,
  newPlanId: string,
): Promise<UpgradeResult> {
  const now = deps.now()
  // Rate limit what can add audit rows and messages (issuing or changing the invoice), not a repeated request for
  // the same target, which answers the open invoice. Outside the transaction, so that a refusal still counts.
  const peek = await findOpenUpgradeInvoice(deps.db, subscriptionId)
  if (!peek || peek.targetPlanId !== newPlanId) {
    await hitRateLimit(deps.db, `upgrade:${user.id}`, upgradeChangesPerUser, now)
  }
  return deps.db.transaction(async (tx) => {
    const subscription = await lockUserSubscription(tx, user.id, subscriptionId)
    if (!subscription) throw new DomainError('subscription_not_found')
    const current = await requirePlanRow(tx, subscription.planId)
    const target = await getPlanRow(tx, newPlanId)
    checkUpgrade(subscription, await listHigherPlans(tx, current.priceCents), target, current)

    const open = await findOpenUpgradeInvoice(tx, subscription.id)
    const stale = open !== null && isStaleUpgrade(open, subscription, now)
    if (open && !stale && open.targetPlanId === target.id) {
      const pix = requirePixConfig(await getPixSettings(tx))
      return {
        kind: 'pix',
        payment: toPayment(open, current),
        pix: pixChargeFor(pix, open, target.name),
        prorationCents: open.amountCents,
      }
    }

    const prorationCents = pixUpgradeChargeCents(subscription, current, target, now)
    const actor = actorOf(user)
    if (prorationCents === 0) {
      // Nothing left to charge (the period is ending): switch now rather than issue an invoice of R$ 0,00. The next
      // period is billed at the new price: an open renewal invoice is re-issued at it.
      if (open) await voidUpgradeInvoice(tx, actor, open, now, 'switched_at_period_end')
      const updated = await updateSubscription(tx, subscription.id, { planId: target.id, updatedAt: now })
      await audit(tx, actor, 'subscription.upgrade', 'subscription', subscription.id, {
        before: { planId: subscription.planId },
        after: { planId: target.id, billingMethod: 'pix', prorationCents: 0 },
      })
      await repriceOpenRenewals(tx, { subscription: updated, plan: target, actor, now, notify: deps })
      return { kind: 'switched', subscription: toSubscription(updated, target), prorationCents: 0 }
    }

    const pix = requirePixConfig(await getPixSettings(tx))
    const payment = await issueOrReplaceUpgradeInvoice(tx, {
      actor,
      subscription,
      current,
      target,
      open,
      amountCents: prorationCents,
      now,
      dueDays: pixDueDays,
    })
    return {
      kind: 'pix',
      payment: toPayment(payment, current),
      pix: pixChargeFor(pix, payment, target.name),
      prorationCents,
    }
  })
}

/**
 * Switches the subscription to the upgrade invoice's target plan once that invoice is paid. For the admin
 * confirmation flow: call it inside the transaction that marked `payment` paid, with that updated row. The period is
 * unchanged (the invoice paid the difference up to its end); open renewal invoices are re-issued at the new price
 * (upgrade.service.ts; with `notify` the customer's message is enqueued in this transaction). A stale invoice (its
 * period is over or no longer current) switches nothing. Any other payment type changes nothing (null); a second
 * call changes nothing either. Returns the subscription row after the switch.
 */
export async function applyPaidUpgrade(
  tx: Tx,
  payment: PaymentRow,
  options: { actor?: Actor; now?: Date; notify?: NotifyDeps } = {},
): Promise<SubscriptionRow | null> {
  if (payment.type !== 'upgrade') return null
  if (payment.status !== 'paid') throw new Error(`applyPaidUpgrade: payment ${payment.id} is ${payment.status}`)
  const targetPlanId = payment.targetPlanId ?? payment.metadata.targetPlanId
  if (!targetPlanId) throw new Error(`applyPaidUpgrade: payment ${payment.id} has no target plan`)
  const subscription = await lockSubscription(tx, payment.subscriptionId)
  if (!subscription) throw new Error(`applyPaidUpgrade: subscription ${payment.subscriptionId} is missing`)
  if (subscription.planId === targetPlanId) return subscription
  const now = options.now ?? payment.paidAt ?? payment.updatedAt
  const actor = options.actor ?? systemActor('upgrade-paid')
  if (isStaleUpgrade(payment, subscription, now)) {
    // Paid for a period that is over (or no longer the current one): the money is there, the switch is not due.
    // Callers that can (the admin confirmation) send such an invoice to review before marking it paid.
    await audit(tx, actor, 'subscription.upgrade_not_applied', 'subscription', subscription.id, {
      before: { planId: subscription.planId },
      after: { planId: subscription.planId, paymentId: payment.id, reason: 'stale_upgrade_invoice' },
    })
    return subscription
  }
  const updated = await updateSubscription(tx, subscription.id, { planId: targetPlanId, updatedAt: now })
  await audit(tx, actor, 'subscription.upgrade', 'subscription', subscription.id, {
    before: { planId: subscription.planId },
    after: { planId: targetPlanId, paymentId: payment.id },
  })
  await repriceOpenRenewals(tx, {
    subscription: updated,
    plan: await requirePlanRow(tx, targetPlanId),
    actor,
    now,
    notify: options.notify,
  })
  return updated
}
