// Customer billing rules (PIX checkout, lists, PIX charge, receipt, cancel, upgrade).
//
// - Ownership: every lookup filters by the signed-in user's id, so someone else's subscription or payment is
//   answered exactly like a missing one (404, never 403): ids of other customers cannot be probed.
// - Idempotency: a PIX checkout takes a per-user advisory lock and hands back the still open pending_pix invoice
//   of the same plan instead of creating another (double click, retry). An upgrade locks the subscription row;
//   a repeated request for the same target returns the same open invoice, a different target re-prices that row
//   in place (upgrade.service.ts; the partial unique index payments_one_open_upgrade_idx is the last line of
//   defence). A second cancel is 409.
// - Card calls happen outside database transactions, before the local change: a slow or failing provider never
//   holds row locks, and when it fails nothing changes here. The provider is asked again on a retry, which is
//   harmless (cancel-at-period-end and a plan switch are idempotent at Stripe).
// - Money is integer centavos; the clock is deps.now(), read once per operation.
import { randomUUID } from 'node:crypto'
import type {
  PaymentReceipt,
  PixCharge,
  PixCheckoutResult,
  Subscription,
  UpgradeResult,
} from '../../../domain/contracts/billing'
import type { Plan } from '../../../domain/contracts/plans'
import type { SessionUser } from '../../../domain/contracts/auth'
import { addDays, addMonthsAnchored, prorateUpgradeCents } from '../../../domain/billing-period'
import { DomainError } from '../../../domain/errors'
import { canCustomerCancel, canUpgrade, isOpenPayment } from '../../../domain/subscription-status'
import type { AppContext } from '../../context'
import type { Tx } from '../../db/client'
import { type Actor, audit, systemActor } from '../audit/audit'
import { toPlan } from '../plans/plans.service'
import { upgradeCardPending } from './card-upgrade.service'
import { issuePixInvoice, type PixDeps, withPspCharge } from './pix-invoice'
import { getPixSettings, pixChargeFor, requirePixConfig } from '../pix/pix.service'
import { hitRateLimit } from '../rate-limit/rate-limit'
import {
  isStaleUpgrade,
  issueOrReplaceUpgradeInvoice,
  type NotifyDeps,
  pixUpgradeChargeCents,
  repriceOpenRenewals,
  upgradeChangesPerUser,
  voidUpgradeInvoice,
} from './upgrade.service'
import {
  findOpenPixCheckout,
  findOpenUpgradeInvoice,
  findUserPayment,
  findUserSubscription,
  getPlanRow,
  insertSubscription,
  listHigherPlans,
  lockSubscription,
  lockUserCheckout,
  lockUserSubscription,
  toPayment,
  toSubscription,
  updateSubscription,
} from './billing.repo'
import type { PaymentRow, SubscriptionRow } from '../../db/schema/billing'
import type { PlanRow } from '../../db/schema/plans'

export type BillingDeps = Pick<AppContext, 'db' | 'now' | 'card' | 'config'> & {
  log?: { warn(obj: object, msg: string): void }
}

/** A PIX invoice is due this many days after it is issued (spec §9). */
export const pixDueDays = 3

const actorOf = (user: SessionUser): Actor => ({ id: user.id, roleId: user.roleId })

/** Provider failures become 502 'card_provider_error' (logged with their cause); our own codes pass through. */
async function callCard(deps: BillingDeps, what: string, call: () => Promise<void>): Promise<void> {
  try {
    await call()
  } catch (error) {
    if (error instanceof DomainError) throw error
    deps.log?.warn({ err: error }, `card provider failed: ${what}`)
    throw new DomainError('card_provider_error', undefined, { cause: error })
  }
}

/** Spec "Customer PIX checkout": a pending_pix subscription of one calendar month and its invoice due in 3 days. */
export async function checkoutPix(deps: BillingDeps, user: SessionUser, planId: string): Promise<PixCheckoutResult> {
  const now = deps.now()
  return deps.db.transaction(async (tx) => {
    await lockUserCheckout(tx, user.id)
    const plan = await getPlanRow(tx, planId)
    if (!plan) throw new DomainError('plan_not_found')
    const pix = requirePixConfig(await getPixSettings(tx))

    const open = await findOpenPixCheckout(tx, user.id, plan.id)
    if (open) {
      return {
        subscription: toSubscription(open.subscription, plan),
        payment: toPayment(open.payment, plan),
        pix: pixChargeFor(pix, open.payment, plan.name),
        reused: true,
      }
    }
    if (!plan.active) throw new DomainError('plan_not_found')

    const subscription = await insertSubscription(tx, {
      id: randomUUID(),
      userId: user.id,
      planId: plan.id,
      status: 'pending_pix',
      billingMethod: 'pix',
      currentPeriodStart: now,
      currentPeriodEnd: addMonthsAnchored(now, 1),
      anchorDay: now.getUTCDate(),
      createdAt: now,
      updatedAt: now,
    })
    const payment = await issuePixInvoice(tx, {
      subscriptionId: subscription.id,
      type: 'new',
      amountCents: plan.priceCents,
      dueDate: addDays(now, pixDueDays),
      now,
    })
    await audit(tx, actorOf(user), 'subscription.checkout_pix', 'subscription', subscription.id, {
      after: { planId: plan.id, status: subscription.status, paymentId: payment.id, amountCents: payment.amountCents },
    })
    return {
      subscription: toSubscription(subscription, plan),
      payment: toPayment(payment, plan),
      pix: pixChargeFor(pix, payment, plan.name),
      reused: false,
    }
  })
}

/**
 * The PIX code of a user's open invoice exactly as the dashboard's 'Pagar com PIX' shows it (GET
 * /api/payments/:id/pix): the static code, or with PIX_PROVIDER=api-pix the PSP charge's pixCopiaECola. The chat's
 * '2ª via' answer goes through here too, so both always show the same code.
 */
export async function shownPixCharge(
  deps: BillingDeps & PixDeps,
  userId: string,
  paymentId: string,
): Promise<PixCharge> {
  return withPspCharge(deps, await pixChargeOfUser(deps, userId, paymentId))
}

async function pixChargeOfUser(deps: BillingDeps, userId: string, paymentId: string): Promise<PixCharge> {
  const row = await findUserPayment(deps.db, userId, paymentId)
  if (!row) throw new DomainError('payment_not_found')
  const { payment } = row
  if (payment.paymentMethod !== 'pix' || !isOpenPayment(payment.status)) throw new DomainError('payment_not_pending')
  const pix = requirePixConfig(await getPixSettings(deps.db))
  return pixChargeFor(pix, payment, (row.targetPlan ?? row.plan).name)
}

/** What the receipt page prints for one of the user's paid invoices. */
export async function getReceipt(deps: BillingDeps, user: SessionUser, paymentId: string): Promise<PaymentReceipt> {
  const row = await findUserPayment(deps.db, user.id, paymentId)
  if (!row) throw new DomainError('payment_not_found')
  const { payment, profile } = row
  if (payment.status !== 'paid') throw new DomainError('payment_not_paid')
  const plan = row.targetPlan ?? row.plan
  return {
    payment: toPayment(payment, row.plan),
    plan: { id: plan.id, name: plan.name, priceCents: plan.priceCents },
    customer: { name: profile.name, companyName: profile.companyName, email: profile.email },
    company: {
      legalName: deps.config.COMPANY_LEGAL_NAME,
      cnpj: deps.config.COMPANY_CNPJ,
      address: deps.config.COMPANY_ADDRESS,
    },
    paidAt: (payment.paidAt ?? payment.updatedAt).toISOString(),
    method: payment.paymentMethod,
    pixEndToEndId: payment.pixEndToEndId,
    amountCents: payment.amountReceivedCents ?? payment.amountCents,
  }
}

/** Spec "cancel-subscription": scheduled for the end of the period; the lifecycle job ends it then. */
export async function cancelSubscription(
  deps: BillingDeps,
  user: SessionUser,
  subscriptionId: string,
): Promise<Subscription> {
  const found = await findUserSubscription(deps.db, user.id, subscriptionId)
  if (!found) throw new DomainError('subscription_not_found')
  const { subscription } = found
  if (!canCustomerCancel(subscription.status, subscription.cancelAtPeriodEnd)) throw new DomainError('cannot_cancel')
  const stripeId = subscription.stripeSubscriptionId
  if (subscription.billingMethod === 'card' && stripeId) {
    await callCard(deps, 'cancelAtPeriodEnd', () => deps.card.cancelAtPeriodEnd(stripeId))
  }

  const now = deps.now()
  return deps.db.transaction(async (tx) => {
    const locked = await lockUserSubscription(tx, user.id, subscriptionId)
    if (!locked) throw new DomainError('subscription_not_found')
    // A concurrent cancel may have won the lock: it made the change, this one reports the conflict.
    if (!canCustomerCancel(locked.status, locked.cancelAtPeriodEnd)) throw new DomainError('cannot_cancel')
    const updated = await updateSubscription(tx, locked.id, { cancelAtPeriodEnd: true, updatedAt: now })
    await audit(tx, actorOf(user), 'subscription.cancel_at_period_end', 'subscription', locked.id, {
      before: { cancelAtPeriodEnd: false, status: locked.status },
      after: { cancelAtPeriodEnd: true, status: updated.status, currentPeriodEnd: updated.currentPeriodEnd },
    })
    return toSubscription(updated, await requirePlanRow(tx, updated.planId))
  })
}

async function requirePlanRow(tx: Tx, planId: string): Promise<PlanRow> {
  const plan = await getPlanRow(tx, planId)
  if (!plan) throw new Error(`plan ${planId} of a subscription is missing`) // the foreign key forbids it
  return plan
}

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
