import type { Plan } from '../../../domain/contracts/plans'
import { DomainError } from '../../../domain/errors'

/**
 * What billing needs from the card provider. Stripe implements it (modules/stripe); without
 * STRIPE_SECRET_KEY a local test-mode simulator does, feeding the same event handling.
 */
export interface CardGateway {
  readonly mode: 'stripe' | 'simulator'
  /** A Checkout Session in subscription mode for the plan; the browser goes to `url`. */
  createCheckoutSession(input: {
    userId: string
    email: string
    plan: Plan
    idempotencyKey: string
  }): Promise<{ url: string; sessionId: string }>
  /** The customer cancels: access stays until the end of the paid period. */
  cancelAtPeriodEnd(stripeSubscriptionId: string): Promise<void>
  /** An admin cancels: ends now. */
  cancelNow(stripeSubscriptionId: string): Promise<void>
  /** An admin undoes a scheduled cancellation: the subscription renews again (Stripe cancel_at_period_end=false). */
  resumeRenewal?(stripeSubscriptionId: string): Promise<void>
  /** Upgrade: Stripe switches the price and charges the prorated difference. */
  changePlan(stripeSubscriptionId: string, plan: Plan): Promise<void>
  /**
   * The provider's view of a subscription (null when it does not know it), for the daily reconciliation in
   * modules/lifecycle. Optional: without it, card subscriptions are not reconciled.
   */
  retrieveSubscription?(
    stripeSubscriptionId: string,
  ): Promise<{ status: string; cancelAtPeriodEnd: boolean; currentPeriodEnd: Date } | null>
}

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
