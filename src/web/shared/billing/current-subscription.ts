import type { Subscription } from '@/domain/contracts/billing'
import type { SubscriptionStatus } from '@/domain/subscription-status'

/** Statuses that make a subscription "the current plan" on the overview. */
const current: Record<SubscriptionStatus, boolean> = {
  active: true,
  trialing: true,
  past_due: true,
  pending_pix: true,
  canceled: false,
}

/** The newest subscription still in force or waiting for payment (the API lists newest first). */
export function currentSubscription(subscriptions: Subscription[]): Subscription | undefined {
  return subscriptions.find((s) => current[s.status])
}
