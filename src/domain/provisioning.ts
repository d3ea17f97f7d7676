// What the chat platform must be told about a subscription, from its status and plan now and what the platform was
// last told (subscriptions_provisioned_state). The lifecycle's detection pass applies it; the SQL filter that finds
// candidates (lifecycle/provisioning.service.ts) is its twin and must select every row this answers non-null for.
import { isProvisioned, type SubscriptionStatus } from './subscription-status'

export type PlatformEventType = 'subscription.activated' | 'subscription.plan_changed' | 'subscription.ended'

export type ProvisionedPlan = { planId: string; boxQuantity: number; agentQuantity: number }

/** What the platform was last told: null before the first event. */
export type LastProvisioned = ({ state: 'active' | 'ended' } & ProvisionedPlan) | null

/**
 * The event a subscription is due, or null: activated (now provisioned, was not or never told), ended (no longer
 * provisioned, was active), plan_changed (still provisioned, plan or quantities differ from what was told).
 */
export function platformTransition(
  status: SubscriptionStatus,
  last: LastProvisioned,
  plan: ProvisionedPlan,
): PlatformEventType | null {
  const provisioned = isProvisioned(status)
  if (provisioned && (!last || last.state === 'ended')) return 'subscription.activated'
  if (!provisioned) return last?.state === 'active' ? 'subscription.ended' : null
  if (
    last &&
    (last.planId !== plan.planId || last.boxQuantity !== plan.boxQuantity || last.agentQuantity !== plan.agentQuantity)
  )
    return 'subscription.plan_changed'
  return null
}
