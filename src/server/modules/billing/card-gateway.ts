import type { Plan } from '../../../domain/contracts/plans'
import { DomainError } from '../../../domain/errors'

/**
 * What billing needs from the card provider. Stripe implements it (modules/stripe); without
 * STRIPE_SECRET_KEY a local test-mode simulator does, feeding the same event handling.
 */
export interface CardGateway {
  readonly mode: 'stripe' | 'simulator'
  /**
   * A Checkout Session in subscription mode for the plan; the browser goes to `url`. With `switch`, it moves our
   * pending_pix subscription to card: its id and its first invoice's travel in the metadata (session and
   * subscription), and the monthly price is that invoice's amount.
   */
  createCheckoutSession(input: {
    userId: string
    email: string
    plan: Plan
    idempotencyKey: string
    switch?: { subscriptionId: string; paymentId: string } | undefined
  }): Promise<{ url: string; sessionId: string }>
  /**
   * A Checkout Session in payment mode: one card payment of exactly `amountCents` for our open invoice `paymentId`
   * (a renewal or an upgrade), our ids in the session's and the payment intent's metadata.
   */
  createInvoicePaymentSession?(input: {
    userId: string
    email: string
    subscriptionId: string
    paymentId: string
    /** The subscription's plan (the simulator's session names it). */
    planId: string
    amountCents: number
    description: string
    idempotencyKey: string
  }): Promise<{ url: string; sessionId: string }>
  /** The customer cancels: access stays until the end of the paid period. */
  cancelAtPeriodEnd(stripeSubscriptionId: string): Promise<void>
  /** An admin cancels: ends now. */
  cancelNow(stripeSubscriptionId: string): Promise<void>
  /**
   * Upgrade as a pending update: Stripe charges the prorated difference at once and switches the price only if
   * that invoice is paid. 'applied': paid (or nothing to pay), the new price is in place; 'pending': the payment
   * failed or needs the customer, the old price stays (Stripe's `pending_update`). `void` counts as applied.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a gateway that reports nothing applied the change
  changePlan(stripeSubscriptionId: string, plan: Plan): Promise<CardPlanChangeOutcome | void>
  /** An admin undoes a scheduled cancellation: the subscription renews again (Stripe cancel_at_period_end=false). */
  resumeRenewal?(stripeSubscriptionId: string): Promise<void>
  /**
   * The provider's view of a subscription (null when it does not know it), for the daily reconciliation in
   * modules/lifecycle. Optional: without it, card subscriptions are not reconciled.
   */
  retrieveSubscription?(
    stripeSubscriptionId: string,
  ): Promise<{ status: string; cancelAtPeriodEnd: boolean; currentPeriodEnd: Date } | null>
}

export type CardPlanChangeOutcome = { status: 'applied' | 'pending'; invoiceId?: string | undefined }

/** Until a provider is wired, card operations answer with a clear message instead of failing obscurely. */
export const unavailableCardGateway: CardGateway = {
  mode: 'simulator',
  createCheckoutSession: async () => {
    throw new DomainError('card_unavailable')
  },
  cancelAtPeriodEnd: async () => {
    throw new DomainError('card_unavailable')
  },
  cancelNow: async () => {
    throw new DomainError('card_unavailable')
  },
  changePlan: async () => {
    throw new DomainError('card_unavailable')
  },
}
