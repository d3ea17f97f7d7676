// admin-confirm-payment: an admin saw the PIX transfer and confirms the invoice.
//
// One transaction locks the subscription row, then the payment row. Two admins confirming at the same moment:
// the second waits for the first's lock, then finds the payment paid and answers it unchanged, so there is one
// paid payment, one period extension and one audit row. A payment in 'review' (a previous confirmation with a
// different amount) may be confirmed again once the admin has settled the difference.
//
// Activation by invoice type (periods are calendar months in UTC, domain/billing-period.ts):
// - 'new': the subscription becomes active; its period starts at the confirmation and ends one calendar month
//   later, and that day of the month becomes its anchor day. Simple and fair: the customer gets a full month from
//   the moment access is granted, not from the (possibly days older) checkout.
// - 'renewal': the period rolls forward one calendar month from the current end, keeping the anchor day
//   (31 Jan → 28 Feb → 31 Mar). A past_due subscription whose invoice is paid after its period ended restarts
//   from the payment instead (paidAt → +1 month), so the customer does not pay for days without access.
// - 'upgrade': the plan switches to the invoice's target (billing's applyPaidUpgrade); the period is unchanged, and
//   an open renewal invoice is re-issued at the new price. An upgrade invoice whose priced period has ended or
//   moved on (billing/upgrade.service.ts isStaleUpgrade) goes to 'review' instead, whatever the amount.
import type { confirmPaymentInputSchema } from '../../../domain/contracts/admin'
import { addMonthsAnchored } from '../../../domain/billing-period'
import { DomainError } from '../../../domain/errors'
import type { z } from 'zod'
import type { Tx } from '../../db/client'
import { type Actor, audit } from '../audit/audit'
import { applyPaidUpgrade } from '../billing/customer-upgrade.service'
import { isStaleUpgrade, type NotifyDeps } from '../billing/upgrade.service'
import { type ConfirmedVia, confirmedViaFields } from '../pix/pix-confirmed-via'
import { type AdminPayment, findAdminPayment } from './admin-lists.repo'
import {
  findPaymentSubscriptionId,
  isEndToEndIdTaken,
  lockPaymentRow,
  lockSubscriptionRow,
  updatePaymentRow,
  updateSubscriptionRow,
} from './admin.repo'
import type { AdminDeps } from './admin-subscriptions.service'
import type { PaymentRow, SubscriptionRow } from '../../db/schema/billing'
import { isUnsettledPayment } from '../../../domain/subscription-status'

export type ConfirmPaymentInput = z.infer<typeof confirmPaymentInputSchema>
export type ConfirmResult = { payment: AdminPayment; flagged: boolean }

function isUniqueViolation(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause
  return cause?.code === '23505' || (error as { code?: unknown } | null)?.code === '23505'
}

function periodOf(s: SubscriptionRow) {
  return {
    status: s.status,
    planId: s.planId,
    currentPeriodStart: s.currentPeriodStart.toISOString(),
    currentPeriodEnd: s.currentPeriodEnd.toISOString(),
    anchorDay: s.anchorDay,
  }
}

export async function confirmPayment(
  deps: AdminDeps,
  actor: Actor,
  paymentId: string,
  input: ConfirmPaymentInput,
  via: ConfirmedVia = { via: 'manual' },
): Promise<ConfirmResult> {
  let flagged = false
  try {
    await deps.db.transaction(async (tx) => {
      const now = deps.now()
      // Lock order is subscription, then payment — the same order as the customer's cancel and upgrade and the
      // lifecycle passes, so two flows touching one subscription wait for each other instead of deadlocking.
      // A payment never changes subscription, so reading that id before the locks is safe.
      const subscriptionId = await findPaymentSubscriptionId(tx, paymentId)
      if (!subscriptionId) throw new DomainError('payment_not_found')
      const subscription = await lockSubscriptionRow(tx, subscriptionId)
      if (!subscription) throw new Error(`payment ${paymentId} has no subscription`) // the foreign key forbids it
      const payment = await lockPaymentRow(tx, paymentId)
      if (!payment) throw new DomainError('payment_not_found')
      if (payment.status === 'paid') return // a retry, a double click or the other admin: nothing to do
      if (!isUnsettledPayment(payment.status)) throw new DomainError('payment_not_pending')

      const e2e = input.end_to_end_id ?? payment.pixEndToEndId
      if (input.end_to_end_id && (await isEndToEndIdTaken(tx, input.end_to_end_id, payment.id))) {
        throw new DomainError('e2e_id_taken')
      }
      const before = {
        status: payment.status,
        amountReceivedCents: payment.amountReceivedCents,
        pixEndToEndId: payment.pixEndToEndId,
      }

      // An upgrade invoice paid after the period it priced ended (or moved on) buys nothing any more: review.
      const staleUpgrade = isStaleUpgrade(payment, subscription, now)
      if (input.amount_received_cents !== payment.amountCents || staleUpgrade) {
        await updatePaymentRow(tx, payment.id, {
          status: 'review',
          amountReceivedCents: input.amount_received_cents,
          pixEndToEndId: e2e,
          ...confirmedViaFields(via, 'review'),
          updatedAt: now,
        })
        await audit(tx, actor, 'payment.flagged', 'payment', payment.id, {
          before,
          after: {
            status: 'review',
            amountReceivedCents: input.amount_received_cents,
            pixEndToEndId: e2e,
            ...(staleUpgrade ? { reason: 'stale_upgrade_invoice' } : {}),
          },
        })
        flagged = true
        return
      }

      const paid = await updatePaymentRow(tx, payment.id, {
        status: 'paid',
        paidAt: now,
        amountReceivedCents: input.amount_received_cents,
        pixEndToEndId: e2e,
        // A card invoice settled outside the provider was not paid by card.
        paymentMethod: payment.paymentMethod === 'card' ? 'manual_confirmation' : payment.paymentMethod,
        ...confirmedViaFields(via, 'paid'),
        updatedAt: now,
      })
      await audit(tx, actor, 'payment.confirmed', 'payment', payment.id, {
        before,
        after: {
          status: 'paid',
          paidAt: now.toISOString(),
          amountReceivedCents: paid.amountReceivedCents,
          pixEndToEndId: e2e,
        },
      })
      await activate(tx, deps, actor, paid, subscription, now)
    })
  } catch (error) {
    // Another payment took the same E2E id between our check and our update.
    if (isUniqueViolation(error)) throw new DomainError('e2e_id_taken', undefined, { cause: error })
    throw error
  }
  const payment = await findAdminPayment(deps.db, paymentId)
  if (!payment) throw new DomainError('payment_not_found')
  return { payment, flagged }
}

/** What a paid invoice grants (see the rules above); also used when a card pays a renewal or upgrade invoice. */
export async function activate(
  tx: Tx,
  notify: NotifyDeps | undefined,
  actor: Actor,
  paid: PaymentRow,
  subscription: SubscriptionRow,
  now: Date,
) {
  if (paid.type === 'upgrade') {
    await applyPaidUpgrade(tx, paid, { actor, now, notify })
    return
  }
  let start: Date
  let end: Date
  let anchorDay: number
  let action: string
  const lateAfterLapse = subscription.status === 'past_due' && now.getTime() > subscription.currentPeriodEnd.getTime()
  if (paid.type === 'renewal' && !lateAfterLapse) {
    anchorDay = subscription.anchorDay ?? subscription.currentPeriodStart.getUTCDate()
    start = subscription.currentPeriodEnd
    end = addMonthsAnchored(start, 1, anchorDay)
    action = 'subscription.renewed'
  } else {
    anchorDay = now.getUTCDate()
    start = now
    end = addMonthsAnchored(now, 1, anchorDay)
    action = paid.type === 'renewal' ? 'subscription.reactivated' : 'subscription.activated'
  }
  const updated = await updateSubscriptionRow(tx, subscription.id, {
    status: 'active',
    currentPeriodStart: start,
    currentPeriodEnd: end,
    anchorDay,
    canceledAt: null,
    updatedAt: now,
  })
  await audit(tx, actor, action, 'subscription', subscription.id, {
    before: periodOf(subscription),
    after: { ...periodOf(updated), paymentId: paid.id },
  })
}
