// Card upgrades switch the plan only once paid (issue 9, item 3).
//
// Stripe is asked for a *pending update* (`payment_behavior: 'pending_if_incomplete'`, `proration_behavior:
// 'always_invoice'`): it invoices the prorated difference at once and applies the new price only if that invoice is
// paid; a declined card leaves the subscription as it was with the change in `pending_update` (it expires after
// 23 hours, `customer.subscription.pending_update_expired`). A pending update accepts no metadata, so our side keeps
// the target plan in card_plan_changes (at most one open change per subscription; a new choice supersedes it).
//
// Our row switches plan when Stripe says the invoice was paid, whichever we hear first:
// - the update call's own answer without `pending_update` (Stripe only answers so once the invoice is paid, or when
//   there was nothing to pay), or
// - `invoice.paid` with billing_reason `subscription_update` (a later payment of the open invoice, or a webhook that
//   overtook the answer). `customer.subscription.updated` never switches it: it carries no proof of payment.
// Both go through applyPaidCardPlanChange: the open change is switched once, a second call finds none.
// A decline answers 402 'card_declined' (Portuguese message), marks the change 'declined' and queues a
// 'card_upgrade_declined' notification (e-mail and WhatsApp, deduplicated by the change id); the plan is untouched.
import { randomUUID } from 'node:crypto'
import type { SessionUser } from '../../../domain/contracts/auth'
import type { UpgradeResult } from '../../../domain/contracts/billing'
import { prorateUpgradeCents } from '../../../domain/billing-period'
import { DomainError } from '../../../domain/errors'
import { canUpgrade } from '../../../domain/subscription-status'
import type { Tx } from '../../db/client'
import { loadSubscriptionWithPlanAndProfile } from '../../db/subscription-rows'
import { type Actor, audit } from '../audit/audit'
import { cardUpgradeDeclinedMessage } from '../lifecycle/notification-templates'
import { enqueue } from '../lifecycle/notifications.service'
import { toPlan } from '../plans/plans.service'
import {
  getPlanRow,
  insertCardPlanChange,
  listHigherPlans,
  lockCardPlanChange,
  lockOpenCardPlanChange,
  lockSubscription,
  lockUserSubscription,
  setCardPlanChangeStatus,
  toSubscription,
  updateSubscription,
} from './billing.repo'
import type { BillingDeps } from './billing.service'
import type { CardPlanChangeOutcome } from './card-gateway'
import type { CardPlanChangeRow } from '../../db/schema/stripe'
import type { SubscriptionRow } from '../../db/schema/billing'
import type { PlanRow } from '../../db/schema/plans'

const actorOf = (user: SessionUser): Actor => ({ id: user.id, roleId: user.roleId })

/**
 * The paid invoice of a card upgrade: switches the subscription to the open change's target and closes the change.
 * `subscription` must be locked by the caller. Returns the change applied, or null when there is none (already
 * applied, or a change we did not ask for: then the plan is left as it is).
 */
export async function applyPaidCardPlanChange(
  tx: Tx,
  subscription: SubscriptionRow,
  input: { actor: Actor; now: Date; stripeInvoiceId?: string | undefined; eventId?: string | undefined },
): Promise<{ change: CardPlanChangeRow; subscription: SubscriptionRow } | null> {
  const change = await lockOpenCardPlanChange(tx, subscription.id)
  if (!change) return null
  if (input.stripeInvoiceId && change.stripeInvoiceId && change.stripeInvoiceId !== input.stripeInvoiceId) {
    // The invoice of an earlier, superseded request: it is not proof of payment for the open one.
    await audit(tx, input.actor, 'subscription.upgrade_unmatched', 'subscription', subscription.id, {
      after: { cardPlanChangeId: change.id, stripeInvoiceId: input.stripeInvoiceId, eventId: input.eventId ?? null },
    })
    return null
  }
  const applied = await setCardPlanChangeStatus(tx, change.id, 'applied', input.now, input.stripeInvoiceId)
  let updated = subscription
  if (subscription.planId !== change.targetPlanId) {
    updated = await updateSubscription(tx, subscription.id, { planId: change.targetPlanId, updatedAt: input.now })
  }
  await audit(tx, input.actor, 'subscription.upgrade', 'subscription', subscription.id, {
    before: { planId: subscription.planId },
    after: {
      planId: change.targetPlanId,
      billingMethod: 'card',
      cardPlanChangeId: change.id,
      stripeInvoiceId: input.stripeInvoiceId ?? null,
      eventId: input.eventId ?? null,
    },
  })
  return { change: applied, subscription: updated }
}

/**
 * The upgrade's invoice was declined: the plan stays, the change waits (Stripe may still collect it until the pending
 * update expires) and the customer is told once per change.
 */
export async function declineCardPlanChange(
  tx: Tx,
  subscription: SubscriptionRow,
  input: { actor: Actor; now: Date; appUrl: string; stripeInvoiceId?: string | undefined },
): Promise<CardPlanChangeRow | null> {
  const change = await lockOpenCardPlanChange(tx, subscription.id)
  if (!change) return null
  const declined =
    change.status === 'declined'
      ? change
      : await setCardPlanChangeStatus(tx, change.id, 'declined', input.now, input.stripeInvoiceId)
  if (change.status !== 'declined') {
    await audit(tx, input.actor, 'subscription.upgrade_declined', 'subscription', subscription.id, {
      before: { planId: subscription.planId },
      after: { planId: subscription.planId, targetPlanId: change.targetPlanId, cardPlanChangeId: change.id },
    })
  }
  const row = await loadSubscriptionWithPlanAndProfile(tx, subscription.id)
  const target = await getPlanRow(tx, change.targetPlanId)
  if (row && target) {
    await enqueue(tx, input.now, {
      kind: 'card_upgrade_declined',
      ref: change.id,
      user: row.profile,
      subscriptionId: subscription.id,
      paymentId: null,
      message: cardUpgradeDeclinedMessage({
        name: row.profile.name,
        planName: row.plan.name,
        targetPlanName: target.name,
        paymentsUrl: `${input.appUrl}/dashboard/payments`,
      }),
    })
  }
  return declined
}

/** Stripe dropped the pending update (23 hours unpaid): the change is over, the plan never moved. */
export async function expireCardPlanChange(tx: Tx, subscription: SubscriptionRow, input: { actor: Actor; now: Date }) {
  const change = await lockOpenCardPlanChange(tx, subscription.id)
  if (!change) return null
  await audit(tx, input.actor, 'subscription.upgrade_expired', 'subscription', subscription.id, {
    after: { planId: subscription.planId, targetPlanId: change.targetPlanId, cardPlanChangeId: change.id },
  })
  return setCardPlanChangeStatus(tx, change.id, 'expired', input.now)
}

function checkUpgrade(subscription: SubscriptionRow, higher: PlanRow[], target: PlanRow | null, current: PlanRow) {
  if (!canUpgrade(subscription.status)) throw new DomainError('cannot_upgrade')
  if (higher.length === 0) throw new DomainError('no_higher_plan')
  if (!target?.active) throw new DomainError('plan_not_found')
  if (target.priceCents <= current.priceCents) throw new DomainError('plan_not_higher')
  return target
}

/** Spec "upgrade-subscription" for a card subscription: a Stripe pending update, our plan switches once paid. */
export async function upgradeCardPending(
  deps: BillingDeps,
  user: SessionUser,
  subscription: SubscriptionRow,
  newPlanId: string,
): Promise<UpgradeResult> {
  const now = deps.now()
  const requested = await getPlanRow(deps.db, newPlanId)
  // A retry after a switch that already happened answers like the first call did.
  if (requested && subscription.planId === requested.id && canUpgrade(subscription.status)) {
    return { kind: 'card', subscription: toSubscription(subscription, requested), prorationCents: 0 }
  }
  const current = await getPlanRow(deps.db, subscription.planId)
  if (!current) throw new Error(`plan ${subscription.planId} of a subscription is missing`)
  const target = checkUpgrade(subscription, await listHigherPlans(deps.db, current.priceCents), requested, current)
  const stripeId = subscription.stripeSubscriptionId
  if (!stripeId) throw new DomainError('cannot_upgrade') // a card subscription not (yet) known to the provider
  const prorationCents = prorateUpgradeCents({
    currentPriceCents: current.priceCents,
    newPriceCents: target.priceCents,
    periodStart: subscription.currentPeriodStart,
    periodEnd: subscription.currentPeriodEnd,
    now,
  })

  // 1. The target is recorded before Stripe is asked: a webhook that overtakes the answer finds it.
  const changeId = randomUUID()
  await deps.db.transaction(async (tx) => {
    const locked = await lockUserSubscription(tx, user.id, subscription.id)
    if (!locked) throw new DomainError('subscription_not_found')
    if (!canUpgrade(locked.status)) throw new DomainError('cannot_upgrade')
    const open = await lockOpenCardPlanChange(tx, locked.id)
    if (open) await setCardPlanChangeStatus(tx, open.id, 'superseded', now)
    await insertCardPlanChange(tx, {
      id: changeId,
      subscriptionId: locked.id,
      stripeSubscriptionId: stripeId,
      fromPlanId: locked.planId,
      targetPlanId: target.id,
      targetPriceCents: target.priceCents,
      status: 'pending',
      createdAt: now,
      updatedAt: now,
    })
    await audit(tx, actorOf(user), 'subscription.upgrade_requested', 'subscription', locked.id, {
      before: { planId: locked.planId },
      after: { targetPlanId: target.id, billingMethod: 'card', prorationCents, cardPlanChangeId: changeId },
    })
  })

  // 2. Stripe, outside any transaction.
  let outcome: CardPlanChangeOutcome
  try {
    outcome = (await deps.card.changePlan(stripeId, toPlan(target))) ?? { status: 'applied' }
  } catch (error) {
    await deps.db.transaction(async (tx) => {
      const change = await lockCardPlanChange(tx, changeId)
      if (change?.status === 'pending') await setCardPlanChangeStatus(tx, changeId, 'failed', deps.now())
    })
    if (error instanceof DomainError) throw error
    deps.log?.warn({ err: error }, 'card provider failed: changePlan')
    throw new DomainError('card_provider_error', undefined, { cause: error })
  }

  // 3. Paid: switch now (the webhook will find nothing left to do). Declined: keep the plan and tell the customer.
  const result = await deps.db.transaction(async (tx) => {
    const locked = await lockSubscription(tx, subscription.id)
    if (!locked) throw new DomainError('subscription_not_found')
    if (outcome.status === 'applied') {
      const applied = await applyPaidCardPlanChange(tx, locked, {
        actor: actorOf(user),
        now: deps.now(),
        stripeInvoiceId: outcome.invoiceId,
      })
      const row = applied?.subscription ?? locked
      const plan = await getPlanRow(tx, row.planId)
      if (!plan) throw new Error(`plan ${row.planId} of a subscription is missing`)
      return { kind: 'card' as const, subscription: toSubscription(row, plan), prorationCents }
    }
    await declineCardPlanChange(tx, locked, {
      actor: actorOf(user),
      now: deps.now(),
      appUrl: deps.config.appUrl,
      stripeInvoiceId: outcome.invoiceId,
    })
    return null
  })
  if (!result) throw new DomainError('card_declined')
  return result
}
