// 'Pagar com Cartão' on an open invoice pays that invoice (issue 9, item 1).
//
// - The first invoice ('new') of a pending_pix subscription: Checkout in subscription mode that moves that same
//   subscription to card. Our subscription id and invoice id travel in the session's and the subscription's
//   metadata; the monthly price is the invoice's amount. When Stripe reports the payment, the webhook binds the
//   Stripe subscription to our row (billing_method card, active, Stripe's period) and voids the PIX invoice in the
//   same transaction (stripe/card-invoice-events.ts). No second subscription row is ever created for it.
// - A renewal or upgrade invoice: Checkout in payment mode for exactly the invoice's amount, our payment id in the
//   metadata. checkout.session.completed with payment_status 'paid' marks that invoice paid (provider reference:
//   the payment intent) and applies what a PIX confirmation applies (renewal extends the period, upgrade switches).
// - Only the invoice's owner may start it (anyone else: 404); an invoice that is no longer open is refused with 409
//   'invoice_not_open'. Calls to the provider happen outside database transactions.
import type { SessionUser } from '../../../domain/contracts/auth'
import { DomainError } from '../../../domain/errors'
import { toPlan } from '../plans/plans.service'
import { openPaymentStatuses } from '../../../domain/subscription-status'
import { findUserPayment, findUserSubscription } from './billing.repo'

export { findOpenFirstInvoice } from './billing.repo'
import type { BillingDeps } from './billing.service'

const sessionBucketMs = 10 * 60 * 1000

async function provider<T>(deps: BillingDeps, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof DomainError) throw error
    deps.log?.warn({ err: error }, `card provider failed: ${what}`)
    throw new DomainError('card_provider_error', undefined, { cause: error })
  }
}

/** POST /api/payments/:id/card-checkout: where the browser goes to pay this open invoice by card. */
export async function startInvoiceCardCheckout(
  deps: BillingDeps,
  user: SessionUser,
  paymentId: string,
): Promise<{ url: string }> {
  const row = await findUserPayment(deps.db, user.id, paymentId)
  if (!row) throw new DomainError('payment_not_found')
  const { payment } = row
  if (!(openPaymentStatuses as readonly string[]).includes(payment.status)) throw new DomainError('invoice_not_open')
  const found = await findUserSubscription(deps.db, user.id, payment.subscriptionId)
  if (!found) throw new DomainError('payment_not_found')
  const { subscription, plan } = found
  // Same invoice and amount within 10 minutes: a double click gets the session of the first click.
  const bucket = Math.floor(deps.now().getTime() / sessionBucketMs)

  if (payment.type === 'new') {
    // Only a subscription that never had a card can move to card; anything else has no open first invoice to pay.
    if (
      subscription.status !== 'pending_pix' ||
      subscription.billingMethod !== 'pix' ||
      subscription.stripeSubscriptionId
    )
      throw new DomainError('invoice_not_open')
    const { url } = await provider(deps, 'createCheckoutSession', () =>
      deps.card.createCheckoutSession({
        userId: user.id,
        email: user.email,
        plan: { ...toPlan(plan), priceCents: payment.amountCents },
        idempotencyKey: `card-switch:${payment.id}:${payment.amountCents}:${bucket}`,
        switch: { subscriptionId: subscription.id, paymentId: payment.id },
      }),
    )
    return { url }
  }

  const createPayment = deps.card.createInvoicePaymentSession
  if (!createPayment) throw new DomainError('card_unavailable')
  const description =
    payment.type === 'upgrade'
      ? `Upgrade para o plano ${(row.targetPlan ?? plan).name}`
      : `Renovação do plano ${plan.name}`
  const { url } = await provider(deps, 'createInvoicePaymentSession', () =>
    createPayment.call(deps.card, {
      userId: user.id,
      email: user.email,
      subscriptionId: subscription.id,
      paymentId: payment.id,
      planId: plan.id,
      amountCents: payment.amountCents,
      description,
      idempotencyKey: `card-invoice:${payment.id}:${payment.amountCents}:${bucket}`,
    }),
  )
  return { url }
}
