// Customer billing rules (PIX checkout, PIX charge, receipt, cancel; the upgrade is customer-upgrade.service.ts).
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
import type { PaymentReceipt, PixCharge, PixCheckoutResult, Subscription } from '../../../domain/contracts/billing'
import type { SessionUser } from '../../../domain/contracts/auth'
import { addDays, addMonthsAnchored } from '../../../domain/billing-period'
import { DomainError } from '../../../domain/errors'
import { canCustomerCancel, isOpenPayment } from '../../../domain/subscription-status'
import type { AppContext } from '../../context'
import { type Actor, audit } from '../audit/audit'
import { issuePixInvoice, type PixDeps, withPspCharge } from './pix-invoice'
import { getPixSettings, pixChargeFor, requirePixConfig } from '../pix/pix.service'
import {
  findCurrentSubscriptionWithPlan,
  findFirstOpenPixInvoice,
  findOpenPixCheckout,
  findUserPayment,
  findUserSubscription,
  getPlanRow,
  insertSubscription,
  listLiveCardSubscriptions,
  lockUserCheckout,
  lockUserSubscription,
  requirePlanRow,
  toPayment,
  toSubscription,
  updateSubscription,
} from './billing.repo'

export type BillingDeps = Pick<AppContext, 'db' | 'now' | 'card' | 'config'> & {
  log?: { warn(obj: object, msg: string): void }
}

/** A PIX invoice is due this many days after it is issued (spec §9). */
export const pixDueDays = 3

export const actorOf = (user: SessionUser): Actor => ({ id: user.id, roleId: user.roleId })

/** For the lifecycle's card reconciliation: live card subscriptions by id after `after`, a page. */
export const liveCardSubscriptionsAfter = listLiveCardSubscriptions

/** For the WhatsApp chat: the customer's open PIX invoice due first, with the plan it pays for. */
export const firstOpenPixInvoice = findFirstOpenPixInvoice

/** For the WhatsApp chat: the customer's newest subscription not canceled (else the newest), with its plan. */
export const currentSubscriptionWithPlan = findCurrentSubscriptionWithPlan

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
