// Stripe events that pay one of our open invoices by card (issue 9, item 1). Called by handleStripeEvent inside its
// transaction (the event is recorded there, so a replay never gets here).
//
// - bindSwitchedSubscription: the first event of a Stripe subscription whose metadata names our pending_pix
//   subscription binds it to that row (billing_method card, Stripe ids, status, Stripe's period) and voids the open
//   PIX first invoice, instead of creating a row. A row that cannot take it (already paid by PIX, already on card,
//   someone else's) is left alone and an audit row 'subscription.card_switch_refused' tells the admins (the Stripe
//   subscription must then be canceled and refunded there): a purchase never yields two live subscriptions.
// - payInvoiceFromCheckout: checkout.session.completed of a payment-mode session with payment_status 'paid' (cards
//   are paid synchronously; Stripe sends that event for every completed Checkout, and it carries our metadata and
//   the payment intent). Locks subscription then payment (the admin confirmation's order). The charge must be BRL and
//   exactly the invoice's amount; otherwise the invoice goes to 'review' and nothing is applied. Otherwise the invoice
//   is paid (payment method card, the payment intent as provider reference) and the admin confirmation's effect is
//   applied (renewal: period + 1 month keeping the anchor day; upgrade: plan switch).
import { nextPeriod } from '../../../domain/billing-period'
import type { SubscriptionStatus } from '../../../domain/subscription-status'
import type { Tx } from '../../db/client'
import {
  invoiceAmount,
  findPaymentSubscriptionId,
  lockPayment,
  lockSubscription,
  updatePayment,
  updateSubscription,
  voidOpenFirstInvoices,
} from './stripe.repo'
import { audit } from '../audit/audit'
import { activate } from '../admin/admin-payments.service'
import { openPaymentStatuses } from '../../../domain/subscription-status'
import type { HandlerContext } from './stripe-events.service'
import { type OurMetadata, type Period, readCheckoutSession } from './stripe-objects'
import type { SubscriptionRow } from '../../db/schema/billing'

export async function bindSwitchedSubscription(
  c: HandlerContext,
  stripeSubscriptionId: string,
  create: {
    metadata: OurMetadata
    status: SubscriptionStatus
    period?: Period | undefined
    customerId?: string | undefined
  },
): Promise<SubscriptionRow | null> {
  const ourId = create.metadata.subscriptionId
  if (!ourId) return null
  const row = await lockSubscription(c.tx, ourId)
  // A concurrent delivery bound it while we waited for the lock.
  if (row?.stripeSubscriptionId === stripeSubscriptionId) return row
  const refusal = !row
    ? 'unknown_subscription'
    : create.metadata.userId && create.metadata.userId !== row.userId
      ? 'other_user'
      : row.stripeSubscriptionId || row.billingMethod !== 'pix'
        ? 'already_card'
        : row.status !== 'pending_pix'
          ? 'not_pending_pix'
          : null
  if (refusal || !row) {
    await audit(c.tx, c.actor, 'subscription.card_switch_refused', 'subscription', ourId, {
      after: { reason: refusal, stripeSubscriptionId, source: c.source, eventId: c.event.id },
    })
    return null
  }

  const voided = await voidOpenFirstInvoices(c.tx, row.id, c.now)
  const period = create.period ?? nextPeriod(new Date(c.event.created * 1000))
  const updated = await updateSubscription(c.tx, row.id, {
    billingMethod: 'card',
    stripeSubscriptionId,
    stripeCustomerId: create.customerId ?? row.stripeCustomerId,
    status: create.status,
    currentPeriodStart: period.start,
    currentPeriodEnd: period.end,
    anchorDay: period.start.getUTCDate(),
    canceledAt: null,
    updatedAt: c.now,
  })
  for (const payment of voided) {
    await audit(c.tx, c.actor, 'payment.void', 'payment', payment.id, {
      before: { status: 'pending_pix' },
      after: { status: 'void', reason: 'paid_by_card', stripeSubscriptionId, eventId: c.event.id },
    })
  }
  await audit(c.tx, c.actor, 'subscription.switched_to_card', 'subscription', row.id, {
    before: { status: row.status, billingMethod: row.billingMethod, planId: row.planId },
    after: {
      status: updated.status,
      billingMethod: 'card',
      stripeSubscriptionId,
      currentPeriodStart: period.start.toISOString(),
      currentPeriodEnd: period.end.toISOString(),
      voidedPaymentIds: voided.map((p) => p.id),
      source: c.source,
      eventId: c.event.id,
    },
  })
  return updated
}

/** The amount our first invoice asked for, when a card subscription replaced it (null otherwise). */
export async function switchedInvoiceAmount(tx: Tx, metadata: OurMetadata): Promise<number | null> {
  if (!metadata.paymentId || !metadata.subscriptionId) return null
  return invoiceAmount(tx, metadata.paymentId, metadata.subscriptionId)
}

export async function payInvoiceFromCheckout(c: HandlerContext): Promise<'processed' | 'ignored'> {
  const session = readCheckoutSession(c.event.data.object)
  const { paymentId, subscriptionId, userId } = session?.metadata ?? {}
  if (!session || !paymentId) return 'ignored' // not one of our invoice payments
  if (session.paymentStatus !== 'paid') return 'ignored' // nothing charged yet
  const refuse = async (reason: string) => {
    await audit(c.tx, c.actor, 'payment.card_unmatched', 'payment', paymentId, {
      after: { reason, stripePaymentIntentId: session.paymentIntentId ?? null, source: c.source, eventId: c.event.id },
    })
    return 'processed' as const
  }

  const invoiceSubscriptionId = await findPaymentSubscriptionId(c.tx, paymentId)
  if (!invoiceSubscriptionId || (subscriptionId && invoiceSubscriptionId !== subscriptionId)) {
    return refuse('unknown_payment')
  }
  const subscription = await lockSubscription(c.tx, invoiceSubscriptionId)
  if (!subscription) return refuse('unknown_payment')
  if (userId && subscription.userId !== userId) return refuse('other_user')
  const payment = await lockPayment(c.tx, paymentId)
  if (!payment) return refuse('unknown_payment')
  const intent = session.paymentIntentId ?? null
  // The same charge told twice (e.g. completed, then async_payment_succeeded): already recorded.
  if (intent && payment.stripePaymentIntentId === intent) return 'processed'
  // Paid by PIX meanwhile, or voided: this charge must be refunded at Stripe, never applied a second time.
  if (!(openPaymentStatuses as readonly string[]).includes(payment.status)) return refuse(`invoice_${payment.status}`)

  const before = { status: payment.status, paymentMethod: payment.paymentMethod }
  const brl = session.currency === 'brl'
  if (!brl || session.amountTotal !== payment.amountCents) {
    await updatePayment(c.tx, payment.id, {
      status: 'review',
      amountReceivedCents: brl ? (session.amountTotal ?? null) : null,
      stripePaymentIntentId: intent,
      updatedAt: c.now,
    })
    await audit(c.tx, c.actor, 'payment.flagged', 'payment', payment.id, {
      before,
      after: {
        status: 'review',
        reason: brl ? 'amount_mismatch' : 'currency_mismatch',
        expectedCents: payment.amountCents,
        chargedAmount: session.amountTotal ?? null,
        chargedCurrency: session.currency ?? null,
        stripePaymentIntentId: intent,
        source: c.source,
        eventId: c.event.id,
      },
    })
    return 'processed'
  }

  const paid = await updatePayment(c.tx, payment.id, {
    status: 'paid',
    paidAt: c.now,
    paymentMethod: 'card',
    amountReceivedCents: session.amountTotal,
    stripePaymentIntentId: intent,
    updatedAt: c.now,
  })
  if (!paid) throw new Error(`payment ${payment.id} vanished while locked`)
  await audit(c.tx, c.actor, 'payment.paid', 'payment', payment.id, {
    before,
    after: {
      status: 'paid',
      paymentMethod: 'card',
      amountCents: paid.amountCents,
      stripePaymentIntentId: intent,
      source: c.source,
      eventId: c.event.id,
    },
  })
  await activate(c.tx, c.notify, c.actor, paid, subscription, c.now)
  return 'processed'
}
