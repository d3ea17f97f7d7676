// The two joins many modules read a subscription or an invoice through, written once: a subscription with its plan
// and its customer's profile, and an invoice with its subscription, plan, upgrade target plan and profile. Shared
// like db/paging.ts (not a module's repo), so the lifecycle, the admin and the billing module all use these.
import { and, eq } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type { Executor } from './client'
import { profiles } from './schema/auth'
import { type PaymentRow, payments, type SubscriptionRow, subscriptions } from './schema/billing'
import { plans } from './schema/plans'

const targetPlans = alias(plans, 'target_plans')

/** A subscription with its plan and its customer's profile; null when the id is unknown. */
export async function loadSubscriptionWithPlanAndProfile(db: Executor, subscriptionId: string) {
  const [row] = await selectSubscriptionsWithPlanAndProfile(db).where(eq(subscriptions.id, subscriptionId)).limit(1)
  return row ?? null
}

/** The invoice join (subscription, plan, upgrade target plan, profile), for a `where` of the caller's. */
export function selectPaymentsWithPlansAndProfile(db: Executor) {
  return db
    .select({ payment: payments, subscription: subscriptions, plan: plans, targetPlan: targetPlans, profile: profiles })
    .from(payments)
    .innerJoin(subscriptions, eq(subscriptions.id, payments.subscriptionId))
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .innerJoin(profiles, eq(profiles.id, subscriptions.userId))
    .leftJoin(targetPlans, eq(targetPlans.id, payments.targetPlanId))
}

/** Subscriptions joined with their plan and profile, for a `where` of the caller's. */
export function selectSubscriptionsWithPlanAndProfile(db: Executor) {
  return db
    .select({ subscription: subscriptions, plan: plans, profile: profiles })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .innerJoin(profiles, eq(profiles.id, subscriptions.userId))
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
  const [row] = await selectPaymentsWithPlansAndProfile(db)
    .where(
      options.userId === undefined
        ? eq(payments.id, paymentId)
        : and(eq(payments.id, paymentId), eq(subscriptions.userId, options.userId)),
    )
    .limit(1)
  return row ?? null
}

/** Locks the subscription row until the transaction ends (lock the subscription before its payments). */
export async function lockSubscriptionRow(tx: Executor, id: string): Promise<SubscriptionRow | null> {
  const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id)).for('update')
  return row ?? null
}

/** The payment row (null for an unknown id), unlocked. */
export async function findPaymentRow(db: Executor, id: string): Promise<PaymentRow | null> {
  const [row] = await db.select().from(payments).where(eq(payments.id, id)).limit(1)
  return row ?? null
}

/** Locks the payment row until the transaction ends. */
export async function lockPaymentRow(tx: Executor, id: string): Promise<PaymentRow | null> {
  const [row] = await tx.select().from(payments).where(eq(payments.id, id)).for('update')
  return row ?? null
}

/** The subscription an invoice belongs to (null for an unknown invoice). */
export async function findPaymentSubscriptionId(tx: Executor, paymentId: string): Promise<string | null> {
  const [row] = await tx
    .select({ subscriptionId: payments.subscriptionId })
    .from(payments)
    .where(eq(payments.id, paymentId))
  return row?.subscriptionId ?? null
}
