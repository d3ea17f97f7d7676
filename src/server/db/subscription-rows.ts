// The two joins many modules read a subscription or an invoice through, written once: a subscription with its plan
// and its customer's profile, and an invoice with its subscription, plan, upgrade target plan and profile. Shared
// like db/paging.ts (not a module's repo), so the lifecycle, the admin and the billing module all use these.
import { and, eq } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type { Executor } from './client'
import { profiles } from './schema/auth'
import { payments, subscriptions } from './schema/billing'
import { plans } from './schema/plans'

const targetPlans = alias(plans, 'target_plans')

/** A subscription with its plan and its customer's profile; null when the id is unknown. */
export async function loadSubscriptionWithPlanAndProfile(db: Executor, subscriptionId: string) {
  const [row] = await db
    .select({ subscription: subscriptions, plan: plans, profile: profiles })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .innerJoin(profiles, eq(profiles.id, subscriptions.userId))
    .where(eq(subscriptions.id, subscriptionId))
    .limit(1)
  return row ?? null
}

/**
 * An invoice with its subscription, the subscription's plan, the upgrade's target plan (null for other types) and
 * the customer's profile. With `userId` someone else's invoice is not found, like a missing one.
 */
export async function loadPaymentWithPlansAndProfile(
  db: Executor,
  paymentId: string,
  options: { userId?: string } = {},
) {
  const [row] = await db
    .select({ payment: payments, subscription: subscriptions, plan: plans, targetPlan: targetPlans, profile: profiles })
    .from(payments)
    .innerJoin(subscriptions, eq(subscriptions.id, payments.subscriptionId))
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .innerJoin(profiles, eq(profiles.id, subscriptions.userId))
    .leftJoin(targetPlans, eq(targetPlans.id, payments.targetPlanId))
    .where(
      options.userId === undefined
        ? eq(payments.id, paymentId)
        : and(eq(payments.id, paymentId), eq(subscriptions.userId, options.userId)),
    )
    .limit(1)
  return row ?? null
}
