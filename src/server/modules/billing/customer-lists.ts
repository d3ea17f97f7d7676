// The customer's own lists (GET /api/subscriptions, GET /api/payments): paged on the server like the admin lists,
// newest first, bounded by listLimits (domain/contracts/paging.ts). One customer's rows are few and indexed by user,
// so a plain count and LIMIT/OFFSET are enough here.
import { and, count, desc, eq, inArray, notInArray, type SQL, sql } from 'drizzle-orm'
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

/**
 * The two lists are read on every dashboard visit: their statements are built once per database and variant and
 * run as named prepared statements (PostgreSQL parses and plans them once per connection, not on each request).
 */
const preparedByDb = new WeakMap<object, Map<string, unknown>>()

function prepared<T>(db: Executor, name: string, build: () => T): T {
  let byName = preparedByDb.get(db)
  if (!byName) {
    byName = new Map()
    preparedByDb.set(db, byName)
  }
  let statement = byName.get(name) as T | undefined
  if (!statement) {
    statement = build()
    byName.set(name, statement)
  }
  return statement
}

const page = { userId: sql.placeholder('userId'), limit: sql.placeholder('limit'), offset: sql.placeholder('offset') }

function subscriptionStatements(db: Executor, filter: 'true' | 'false' | undefined) {
  const variant = filter === 'true' ? 'current' : filter === 'false' ? 'past' : 'all'
  return prepared(db, `my_subscriptions_${variant}`, () => {
    const conditions: SQL[] = [eq(subscriptions.userId, page.userId)]
    if (filter === 'true') conditions.push(inArray(subscriptions.status, current))
    if (filter === 'false') conditions.push(notInArray(subscriptions.status, current))
    const where = and(...conditions)
    return {
      list: db
        .select({ subscription: subscriptions, plan: plans })
        .from(subscriptions)
        .innerJoin(plans, eq(plans.id, subscriptions.planId))
        .where(where)
        .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
        .limit(page.limit)
        .offset(page.offset)
        .prepare(`my_subscriptions_${variant}`),
      count: db.select({ n: count() }).from(subscriptions).where(where).prepare(`my_subscriptions_${variant}_count`),
    }
  })
}

export async function listMySubscriptions(
  db: Executor,
  user: SessionUser,
  query: PageQuery & { current?: 'true' | 'false' | undefined },
): Promise<CustomerPage<Subscription>> {
  const statements = subscriptionStatements(db, query.current)
  const values = { userId: user.id, limit: query.pageSize, offset: (query.page - 1) * query.pageSize }
  const [rows, [counted]] = await Promise.all([
    statements.list.execute(values),
    statements.count.execute({ userId: user.id }),
  ])
  return {
    items: rows.map((r) => toSubscription(r.subscription, r.plan)),
    total: Number(counted?.n ?? 0),
    page: query.page,
    pageSize: query.pageSize,
  }
}

/** What was refunded of the payment (PIX refunds not refused), null without refunds: read in the same statement. */
const refundedCentsSql = sql<string | number | null>`(select sum(r.amount_cents) from pix_refunds r
  where r.payment_id = ${payments.id} and r.status <> 'NAO_REALIZADO')`

function paymentStatements(db: Executor, filter: 'true' | 'false' | undefined) {
  const variant = filter === 'true' ? 'open' : filter === 'false' ? 'closed' : 'all'
  return prepared(db, `my_payments_${variant}`, () => {
    const conditions: SQL[] = [eq(subscriptions.userId, page.userId)]
    if (filter === 'true') conditions.push(inArray(payments.status, [...openPaymentStatuses]))
    if (filter === 'false') conditions.push(notInArray(payments.status, [...openPaymentStatuses]))
    const where = and(...conditions)
    return {
      list: db
        .select({
          payment: payments,
          plan: { id: plans.id, name: plans.name, priceCents: plans.priceCents },
          refundedCents: refundedCentsSql,
        })
        .from(payments)
        .innerJoin(subscriptions, eq(subscriptions.id, payments.subscriptionId))
        .innerJoin(plans, eq(plans.id, subscriptions.planId))
        .where(where)
        .orderBy(desc(payments.createdAt), desc(payments.id))
        .limit(page.limit)
        .offset(page.offset)
        .prepare(`my_payments_${variant}`),
      count: db
        .select({ n: count() })
        .from(payments)
        .innerJoin(subscriptions, eq(subscriptions.id, payments.subscriptionId))
        .where(where)
        .prepare(`my_payments_${variant}_count`),
    }
  })
}

export async function listMyPayments(
  db: Executor,
  user: SessionUser,
  query: PageQuery & { open?: 'true' | 'false' | undefined },
): Promise<CustomerPage<Payment & { refundedCents?: number }>> {
  const statements = paymentStatements(db, query.open)
  const values = { userId: user.id, limit: query.pageSize, offset: (query.page - 1) * query.pageSize }
  const [rows, [counted]] = await Promise.all([
    statements.list.execute(values),
    statements.count.execute({ userId: user.id }),
  ])
  return {
    // A paid payment shows what was refunded of it, when anything was.
    items: rows.map((r) => {
      const payment = toPayment(r.payment, r.plan)
      return r.payment.status === 'paid' && r.refundedCents !== null
        ? { ...payment, refundedCents: Number(r.refundedCents) }
        : payment
    }),
    total: Number(counted?.n ?? 0),
    page: query.page,
    pageSize: query.pageSize,
  }
}
