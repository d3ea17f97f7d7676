// The customer's own lists (GET /api/subscriptions, GET /api/payments): paged on the server like the admin lists,
// newest first, bounded by listLimits (domain/contracts/paging.ts). One customer's rows are few and indexed by user,
// so a plain count and LIMIT/OFFSET are enough here.
import { and, count, desc, eq, inArray, notInArray, type SQL } from 'drizzle-orm'
import type { SessionUser } from '../../../domain/contracts/auth'
import type { Payment, Subscription } from '../../../domain/contracts/billing'
import type { SubscriptionStatus } from '../../../domain/subscription-status'
import type { Executor } from '../../db/client'
import { payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import { openPaymentStatuses } from '../../../domain/subscription-status'
import { toPayment, toSubscription } from './billing.repo'

export type CustomerPage<T> = { items: T[]; total: number; page: number; pageSize: number }
type PageQuery = { page: number; pageSize: number }

/** Subscriptions still in force or waiting for their first payment (the overview's "current plan"). */
const currentStatuses: Record<SubscriptionStatus, boolean> = {
  active: true,
  trialing: true,
  past_due: true,
  pending_pix: true,
  canceled: false,
}
const current = (Object.keys(currentStatuses) as SubscriptionStatus[]).filter((s) => currentStatuses[s])

export async function listMySubscriptions(
  db: Executor,
  user: SessionUser,
  query: PageQuery & { current?: 'true' | 'false' | undefined },
): Promise<CustomerPage<Subscription>> {
  const conditions: SQL[] = [eq(subscriptions.userId, user.id)]
  if (query.current === 'true') conditions.push(inArray(subscriptions.status, current))
  if (query.current === 'false') conditions.push(notInArray(subscriptions.status, current))
  const where = and(...conditions)
  const [rows, [counted]] = await Promise.all([
    db
      .select({ subscription: subscriptions, plan: plans })
      .from(subscriptions)
      .innerJoin(plans, eq(plans.id, subscriptions.planId))
      .where(where)
      .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    db.select({ n: count() }).from(subscriptions).where(where),
  ])
  return {
    items: rows.map((r) => toSubscription(r.subscription, r.plan)),
    total: Number(counted?.n ?? 0),
    page: query.page,
    pageSize: query.pageSize,
  }
}

export async function listMyPayments(
  db: Executor,
  user: SessionUser,
  query: PageQuery & { open?: 'true' | 'false' | undefined },
): Promise<CustomerPage<Payment>> {
  const conditions: SQL[] = [eq(subscriptions.userId, user.id)]
  if (query.open === 'true') conditions.push(inArray(payments.status, [...openPaymentStatuses]))
  if (query.open === 'false') conditions.push(notInArray(payments.status, [...openPaymentStatuses]))
  const where = and(...conditions)
  const [rows, [counted]] = await Promise.all([
    db
      .select({ payment: payments, plan: { id: plans.id, name: plans.name, priceCents: plans.priceCents } })
      .from(payments)
      .innerJoin(subscriptions, eq(subscriptions.id, payments.subscriptionId))
      .innerJoin(plans, eq(plans.id, subscriptions.planId))
      .where(where)
      .orderBy(desc(payments.createdAt), desc(payments.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    db
      .select({ n: count() })
      .from(payments)
      .innerJoin(subscriptions, eq(subscriptions.id, payments.subscriptionId))
      .where(where),
  ])
  return {
    items: rows.map((r) => toPayment(r.payment, r.plan)),
    total: Number(counted?.n ?? 0),
    page: query.page,
    pageSize: query.pageSize,
  }
}
