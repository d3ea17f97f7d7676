// PIX upgrades are priced against the period they change (README "Upgrades are priced against the period they
// change"). What Stripe Billing does for a mid-period switch, with a PIX invoice in place of the card charge:
//
// - Price. The difference between the plans for the rest of the current period, prorated by time. The invoice
//   remembers that period's end (payments.priced_period_end) and is due at most then.
// - Renewal already paid. Paying the renewal early moves the period on (it starts at the old end, in the future):
//   the upgrade then costs the full difference for that prepaid period plus the prorated difference for what is
//   left of the running one. Nothing is ever charged twice and nothing runs at the old price.
// - Renewal issued but open. It is not re-priced while the upgrade is unpaid; when the upgrade is paid (or the plan
//   switches for free at the very end of a period) every open PIX renewal invoice is re-issued at the new plan's
//   price in the same transaction: the old one voided, a new one with the same due date, the customer told once.
// - Lapse. An unpaid upgrade invoice is voided by the lifecycle when the period it priced ends. Confirming one
//   after that, or after the period moved on, sends it to review ('Em análise') instead of switching the plan.
// - One open upgrade invoice per subscription. Choosing another target updates that row (amount, target, BR Code
//   reference, due date) instead of adding rows, and target changes are rate limited per customer.
import { addDays, addMonthsAnchored, prorateUpgradeCents } from '../../../domain/billing-period'
import type { Tx } from '../../db/client'
import { type Actor, audit } from '../audit/audit'
import type { LifecycleDeps } from '../lifecycle/pass-runner'
import { enqueue, renderInvoiceCreated } from '../lifecycle/notifications.service'
import { issuePixInvoice, newPixReference, pixInvoiceMetadata } from './pix-invoice'
import type { RateRule } from '../rate-limit/rate-limit'
import { lockOpenPixRenewals, updatePayment, voidPayment } from './billing.repo'
import type { PaymentRow, SubscriptionRow } from '../../db/schema/billing'
import type { PlanRow } from '../../db/schema/plans'

/** Upgrade requests that would issue or change an invoice, per customer: a loop cannot grow the database. */
export const upgradeChangesPerUser: RateRule = { limit: 20, windowMs: 60 * 60_000 }

/** Enough of the app to render and enqueue the customer's notification in the caller's transaction. */
export type NotifyDeps = Pick<LifecycleDeps, 'config'>

/** The end of the period an upgrade invoice priced (rows of older versions: the subscription's current one). */
export function pricedPeriodEndOf(payment: PaymentRow, subscription: SubscriptionRow): Date {
  return payment.pricedPeriodEnd ?? subscription.currentPeriodEnd
}

/**
 * An upgrade invoice no longer prices what it would buy: the period it priced has ended, or the subscription has
 * moved to another period since (its renewal was paid). Paying it must not switch the plan.
 */
export function isStaleUpgrade(payment: PaymentRow, subscription: SubscriptionRow, now: Date): boolean {
  if (payment.type !== 'upgrade') return false
  const end = pricedPeriodEndOf(payment, subscription)
  return now.getTime() >= end.getTime() || subscription.currentPeriodEnd.getTime() !== end.getTime()
}

/** What a PIX upgrade from `current` to `target` costs at `now`, in centavos (see the file comment). */
export function pixUpgradeChargeCents(
  subscription: Pick<SubscriptionRow, 'currentPeriodStart' | 'currentPeriodEnd' | 'anchorDay'>,
  current: Pick<PlanRow, 'priceCents'>,
  target: Pick<PlanRow, 'priceCents'>,
  now: Date,
): number {
  const prices = { currentPriceCents: current.priceCents, newPriceCents: target.priceCents }
  const start = subscription.currentPeriodStart
  const rest = prorateUpgradeCents({ ...prices, periodStart: start, periodEnd: subscription.currentPeriodEnd, now })
  if (now.getTime() >= start.getTime()) return rest
  // The current period is a prepaid one that has not started: `rest` is its full difference. Add the running one's.
  const previousStart = addMonthsAnchored(start, -1, subscription.anchorDay ?? start.getUTCDate())
  return rest + prorateUpgradeCents({ ...prices, periodStart: previousStart, periodEnd: start, now })
}

/** The due date of an upgrade invoice issued at `now`: `dueDays` later, but never after the period it priced. */
export function upgradeDueDate(now: Date, pricedPeriodEnd: Date, dueDays: number): Date {
  const due = addDays(now, dueDays)
  return due.getTime() < pricedPeriodEnd.getTime() ? due : pricedPeriodEnd
}

/**
 * Issues the subscription's upgrade invoice, or re-prices the open one in place (another target, or a stale price):
 * at most one open upgrade invoice per subscription, and toggling targets adds no rows. The subscription is locked
 * by the caller.
 */
export async function issueOrReplaceUpgradeInvoice(
  tx: Tx,
  input: {
    actor: Actor
    subscription: SubscriptionRow
    current: PlanRow
    target: PlanRow
    open: PaymentRow | null
    amountCents: number
    now: Date
    dueDays: number
  },
): Promise<PaymentRow> {
  const { actor, subscription, current, target, open, amountCents, now } = input
  const pricedPeriodEnd = subscription.currentPeriodEnd
  const values = {
    amountCents,
    targetPlanId: target.id,
    metadata: pixInvoiceMetadata('upgrade', target.id),
    pricedPeriodEnd,
    dueDate: upgradeDueDate(now, pricedPeriodEnd, input.dueDays),
    // A new amount is a new BR Code: a new reference, so a transfer of the old code is not taken for this one.
    pixReference: newPixReference('upgrade'),
    updatedAt: now,
  }
  if (open) {
    const updated = await updatePayment(tx, open.id, values)
    await audit(tx, actor, 'payment.upgrade_invoice_replaced', 'payment', open.id, {
      before: {
        targetPlanId: open.targetPlanId,
        amountCents: open.amountCents,
        pricedPeriodEnd: open.pricedPeriodEnd?.toISOString() ?? null,
      },
      after: { targetPlanId: target.id, amountCents, pricedPeriodEnd: pricedPeriodEnd.toISOString() },
    })
    return updated
  }
  const payment = await issuePixInvoice(tx, {
    subscriptionId: subscription.id,
    type: 'upgrade',
    amountCents,
    dueDate: values.dueDate,
    targetPlanId: target.id,
    pricedPeriodEnd,
    now,
  })
  await audit(tx, actor, 'payment.upgrade_invoice', 'payment', payment.id, {
    after: {
      subscriptionId: subscription.id,
      fromPlanId: current.id,
      targetPlanId: target.id,
      prorationCents: amountCents,
      pricedPeriodEnd: pricedPeriodEnd.toISOString(),
    },
  })
  return payment
}

/** Voids the open upgrade invoice the free switch at the end of a period makes pointless. */
export async function voidUpgradeInvoice(tx: Tx, actor: Actor, open: PaymentRow, now: Date, reason: string) {
  await voidPayment(tx, open.id, now)
  await audit(tx, actor, 'payment.void', 'payment', open.id, {
    before: { status: open.status, targetPlanId: open.targetPlanId, amountCents: open.amountCents },
    after: { status: 'void', reason },
  })
}

/**
 * After a plan switch: every open PIX renewal invoice of the subscription not at `plan`'s price is re-issued at it
 * (old one voided, new one with the same due date and period, audited). With `notify`, the customer's message is
 * enqueued here; without it the lifecycle's detection sends the same message (same dedupe key) within a minute.
 * The subscription is locked by the caller. Returns the new invoices.
 */
export async function repriceOpenRenewals(
  tx: Tx,
  input: { subscription: SubscriptionRow; plan: PlanRow; actor: Actor; now: Date; notify?: NotifyDeps | undefined },
): Promise<PaymentRow[]> {
  const { subscription, plan, actor, now } = input
  const open = await lockOpenPixRenewals(tx, subscription.id)
  const issued: PaymentRow[] = []
  for (const old of open) {
    if (old.amountCents === plan.priceCents) continue
    await voidPayment(tx, old.id, now)
    const renewal = await issuePixInvoice(tx, {
      subscriptionId: subscription.id,
      type: 'renewal',
      amountCents: plan.priceCents,
      dueDate: old.dueDate,
      metadata: { replacesPaymentId: old.id, previousAmountCents: old.amountCents },
      now,
    })
    await audit(tx, actor, 'payment.renewal_repriced', 'payment', renewal.id, {
      before: { paymentId: old.id, amountCents: old.amountCents, status: old.status },
      after: {
        paymentId: renewal.id,
        planId: plan.id,
        amountCents: renewal.amountCents,
        dueDate: renewal.dueDate.toISOString(),
        voidedPaymentId: old.id,
      },
    })
    if (input.notify) {
      const rendered = await renderInvoiceCreated(tx, input.notify, renewal.id)
      if (rendered) await enqueue(tx, now, rendered)
    }
    issued.push(renewal)
  }
  return issued
}
