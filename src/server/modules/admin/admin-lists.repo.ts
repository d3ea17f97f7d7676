// The admin lists (subscriptions, payments, users): paged, sorted and searched in the database through the
// generic engine in db/paging.ts, whose header says how they stay fast at a million rows.
import { eq, inArray, type SQL, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type {
  adminPaymentSchema,
  adminPaymentsQuerySchema,
  adminSubscriptionSchema,
  adminSubscriptionsQuerySchema,
  adminUserSchema,
  adminUsersQuerySchema,
} from '../../../domain/contracts/admin'
import type { z } from 'zod'
import type { Executor } from '../../db/client'
import {
  type Arm,
  containsPattern,
  profileSearchText,
  type ListOptions,
  type ListSpec,
  type Page,
  runList,
  sortKeysOf,
} from '../../db/paging'
import { profiles } from '../../db/schema/auth'
import { payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import type { PaymentRow, SubscriptionRow } from '../../db/schema/billing'
import { hasOwnReceipt, ownReceiptPath, roleIds } from '../../../domain/billing-vocabulary'
import { loadSubscriptionWithPlanAndProfile } from '../../db/subscription-rows'
import {
  cancelScheduledStatuses,
  openPaymentFilter,
  openPaymentStatuses,
  payingStatuses,
  payingStatusFilter,
  saoPauloMonthRange,
} from '../../../domain/admin-filters'

export type AdminSubscription = z.infer<typeof adminSubscriptionSchema>
export type AdminPayment = z.infer<typeof adminPaymentSchema>
export type AdminUser = z.infer<typeof adminUserSchema>
export type AdminSubscriptionsQuery = z.infer<typeof adminSubscriptionsQuerySchema>
export type AdminPaymentsQuery = z.infer<typeof adminPaymentsQuerySchema>
export type AdminUsersQuery = z.infer<typeof adminUsersQuerySchema>

const planRef = { id: plans.id, name: plans.name, priceCents: plans.priceCents }
const customerRef = { id: profiles.id, name: profiles.name, email: profiles.email }

// ---- subscriptions ----

const subscriptionSorts: Record<string, SQL[]> = {
  created_at: [sql`${subscriptions.createdAt}`],
  current_period_end: [sql`${subscriptions.currentPeriodEnd}`],
  // By the status enum's order (active, trialing, canceled, past_due, pending_pix), newest first within one.
  status: [sql`${subscriptions.status}`, sql`${subscriptions.createdAt}`],
}

/** Plans whose id or name contains q: few rows, so each becomes its own index walk. */
async function plansMatching(db: Executor, pattern: string): Promise<string[]> {
  const found = await db
    .select({ id: plans.id })
    .from(plans)
    .where(sql`${plans.id} ilike ${pattern} or ${plans.name} ilike ${pattern}`)
  return found.map((p) => p.id)
}

/**
 * The subscription list's filters (the CSV export has its own copy in SQL text, insights/exports.ts). `status=paying`,
 * `cancel=scheduled` and `periodEnd` follow src/domain/admin-filters.ts, the definitions the admin home counts with.
 */
function subscriptionFilters(query: AdminSubscriptionsQuery): (SQL | undefined)[] {
  const status = query.status
  const period = query.periodEnd ? saoPauloMonthRange(query.periodEnd) : undefined
  return [
    status === payingStatusFilter
      ? inArray(subscriptions.status, [...payingStatuses])
      : status
        ? sql`${subscriptions.status} = ${status}`
        : undefined,
    query.planId ? sql`${subscriptions.planId} = ${query.planId}` : undefined,
    query.method ? sql`${subscriptions.billingMethod} = ${query.method}` : undefined,
    query.cancel === 'scheduled'
      ? sql`${subscriptions.cancelAtPeriodEnd} and ${inArray(subscriptions.status, [...cancelScheduledStatuses])}`
      : undefined,
    period
      ? sql`${subscriptions.currentPeriodEnd} >= ${period.from.toISOString()}::timestamptz and ${subscriptions.currentPeriodEnd} < ${period.to.toISOString()}::timestamptz`
      : undefined,
  ]
}

export async function listAdminSubscriptions(
  db: Executor,
  query: AdminSubscriptionsQuery,
  options: ListOptions = {},
): Promise<Page<AdminSubscription>> {
  const filters = subscriptionFilters(query)
  const own = sql`${subscriptions}`
  let arms: Arm[] = [{ from: own, where: filters }]
  const q = query.q?.trim()
  if (q) {
    const pattern = containsPattern(q)
    const planIds = await plansMatching(db, pattern)
    const planArms =
      planIds.length <= 10
        ? planIds.map((id) => sql`${subscriptions.planId} = ${id}`)
        : [inArray(subscriptions.planId, planIds)]
    arms = [
      {
        from: sql`${subscriptions} inner join ${profiles} on ${profiles.id} = ${subscriptions.userId}`,
        where: [...filters, sql`${profileSearchText()} ilike ${pattern}`],
      },
      { from: own, where: [...filters, sql`${subscriptions.id} = ${q}`] },
      ...planArms.map((condition) => ({ from: own, where: [...filters, condition] })),
    ]
  }
  const spec: ListSpec = {
    id: sql`${subscriptions.id}`,
    sortKeys: sortKeysOf(subscriptionSorts, query.sort),
    arms,
    dir: query.dir,
    page: query.page,
    pageSize: query.pageSize,
  }
  return runList(db, spec, options, async (pageIds, order) => {
    const found = await db
      .select({ subscription: subscriptions, plan: planRef, customer: customerRef })
      .from(subscriptions)
      .innerJoin(plans, eq(plans.id, subscriptions.planId))
      .innerJoin(profiles, eq(profiles.id, subscriptions.userId))
      .where(inArray(subscriptions.id, sql`(${pageIds})`))
      .orderBy(...order)
    return found.map(toAdminSubscription)
  })
}

export function toAdminSubscription(row: {
  subscription: SubscriptionRow
  plan: { id: string; name: string; priceCents: number }
  customer: { id: string; name: string; email: string }
}): AdminSubscription {
  const s = row.subscription
  return {
    id: s.id,
    status: s.status,
    billingMethod: s.billingMethod,
    planId: s.planId,
    plan: row.plan,
    customer: row.customer,
    currentPeriodStart: s.currentPeriodStart.toISOString(),
    currentPeriodEnd: s.currentPeriodEnd.toISOString(),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    createdAt: s.createdAt.toISOString(),
  }
}

/** One subscription as the admin list shows it (after a save or a cancel). */
export async function findAdminSubscription(db: Executor, id: string): Promise<AdminSubscription | null> {
  const row = await loadSubscriptionWithPlanAndProfile(db, id)
  if (!row) return null
  const { plan, profile } = row
  return toAdminSubscription({
    subscription: row.subscription,
    plan: { id: plan.id, name: plan.name, priceCents: plan.priceCents },
    customer: { id: profile.id, name: profile.name, email: profile.email },
  })
}

// ---- payments ----

const paymentSorts: Record<string, SQL[]> = {
  created_at: [sql`${payments.createdAt}`],
  due_date: [sql`${payments.dueDate}`],
  amount: [sql`${payments.amountCents}`],
}

const targetPlans = alias(plans, 'target_plans')

/**
 * The payment list's filters. `status=open` and `due=due|overdue` follow src/domain/admin-filters.ts: open is pending
 * or pending_pix; due/overdue are open invoices whose due date is at or after `now` / before it (the admin home's
 * 'a vencer' and 'vencidas').
 */
function paymentFilters(query: AdminPaymentsQuery, now: Date): (SQL | undefined)[] {
  const status = query.status
  const at = sql`${now.toISOString()}::timestamptz`
  return [
    status === openPaymentFilter
      ? inArray(payments.status, [...openPaymentStatuses])
      : status
        ? sql`${payments.status} = ${status}`
        : undefined,
    query.method ? sql`${payments.paymentMethod} = ${query.method}` : undefined,
    query.due ? inArray(payments.status, [...openPaymentStatuses]) : undefined,
    query.due === 'due' ? sql`${payments.dueDate} >= ${at}` : undefined,
    query.due === 'overdue' ? sql`${payments.dueDate} < ${at}` : undefined,
  ]
}

export async function listAdminPayments(
  db: Executor,
  query: AdminPaymentsQuery,
  options: ListOptions & { now?: Date } = {},
): Promise<Page<AdminPayment>> {
  const filters = paymentFilters(query, options.now ?? new Date())
  let arms: Arm[] = [{ from: sql`${payments}`, where: filters }]
  const q = query.q?.trim()
  if (q) {
    arms = [
      {
        from: sql`${payments} inner join ${subscriptions} on ${subscriptions.id} = ${payments.subscriptionId} inner join ${profiles} on ${profiles.id} = ${subscriptions.userId}`,
        where: [...filters, sql`${profileSearchText()} ilike ${containsPattern(q)}`],
      },
      {
        // Three unique indexes: the planner ORs them in one bitmap.
        from: sql`${payments}`,
        where: [
          ...filters,
          sql`(${payments.id} = ${q} or ${payments.pixReference} = ${q} or ${payments.pixEndToEndId} = ${q})`,
        ],
      },
    ]
  }
  const spec: ListSpec = {
    id: sql`${payments.id}`,
    sortKeys: sortKeysOf(paymentSorts, query.sort),
    arms,
    dir: query.dir,
    page: query.page,
    pageSize: query.pageSize,
  }
  return runList(db, spec, options, async (pageIds, order) => {
    const found = await selectAdminPayments(db)
      .where(inArray(payments.id, sql`(${pageIds})`))
      .orderBy(...order)
    return found.map(toAdminPayment)
  })
}

const refundedCentsSql = sql<string | number>`coalesce((select sum(r.amount_cents) from pix_refunds r
  where r.payment_id = ${payments.id} and r.status <> 'NAO_REALIZADO'), 0)`

function selectAdminPayments(db: Executor) {
  return db
    .select({
      payment: payments,
      plan: planRef,
      customer: customerRef,
      targetPlan: { id: targetPlans.id, name: targetPlans.name },
      refundedCents: refundedCentsSql,
    })
    .from(payments)
    .innerJoin(subscriptions, eq(subscriptions.id, payments.subscriptionId))
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .innerJoin(profiles, eq(profiles.id, subscriptions.userId))
    .leftJoin(targetPlans, eq(targetPlans.id, payments.targetPlanId))
}

export function toAdminPayment(row: {
  payment: PaymentRow
  plan: { id: string; name: string; priceCents: number }
  customer: { id: string; name: string; email: string }
  targetPlan: { id: string; name: string } | null
  refundedCents?: string | number
}): AdminPayment {
  const p = row.payment
  return {
    id: p.id,
    subscriptionId: p.subscriptionId,
    amountCents: p.amountCents,
    amountReceivedCents: p.amountReceivedCents,
    status: p.status,
    paymentMethod: p.paymentMethod,
    type: p.type,
    targetPlan: row.targetPlan,
    dueDate: p.dueDate.toISOString(),
    paidAt: p.paidAt?.toISOString() ?? null,
    createdAt: p.createdAt.toISOString(),
    pixReference: p.pixReference,
    pixEndToEndId: p.pixEndToEndId,
    receiptUrl: hasOwnReceipt(p) ? ownReceiptPath(p.id) : p.receiptUrl,
    plan: row.plan,
    customer: row.customer,
    pixConfirmedVia: p.pixConfirmedVia,
    pixPayerName: p.pixPayerName,
    confirmationSeconds:
      p.status === 'paid' && p.paidAt
        ? Math.max(0, Math.round((p.paidAt.getTime() - p.createdAt.getTime()) / 1000))
        : null,
    refundedCents: Number(row.refundedCents ?? 0),
  }
}

export async function findAdminPayment(db: Executor, id: string): Promise<AdminPayment | null> {
  const [row] = await selectAdminPayments(db).where(eq(payments.id, id)).limit(1)
  return row ? toAdminPayment(row) : null
}

// ---- users and customers ----

const userSorts: Record<string, SQL[]> = {
  created_at: [sql`${profiles.createdAt}`],
  name: [sql`${profiles.name}`],
  email: [sql`${profiles.email}`],
}

// Written out: inside a one-table select drizzle prints columns unqualified, and "id" would mean subscriptions.id.
const activeSubscriptions = sql<number>`(select count(*)::int from subscriptions s where s.user_id = "profiles"."id" and s.status in ('active', 'trialing'))`

/** Everyone (GET /api/admin/users) or, with role 'user', the customers. */
export async function listAdminUsers(
  db: Executor,
  query: AdminUsersQuery,
  options: ListOptions = {},
): Promise<Page<AdminUser>> {
  const roleId = query.role ? roleIds[query.role] : undefined
  const q = query.q?.trim()
  const where = [
    roleId ? sql`${profiles.roleId} = ${roleId}` : undefined,
    // Same table: the planner ORs the primary key and the trigram index in one bitmap.
    q ? sql`(${profiles.id} = ${q} or ${profileSearchText()} ilike ${containsPattern(q)})` : undefined,
  ]
  const spec: ListSpec = {
    id: sql`${profiles.id}`,
    sortKeys: sortKeysOf(userSorts, query.sort),
    arms: [{ from: sql`${profiles}`, where }],
    dir: query.dir,
    page: query.page,
    pageSize: query.pageSize,
  }
  return runList(db, spec, options, async (pageIds, order) => {
    const found = await selectAdminUsers(db)
      .where(inArray(profiles.id, sql`(${pageIds})`))
      .orderBy(...order)
    return found.map(toAdminUser)
  })
}

function selectAdminUsers(db: Executor) {
  return db
    .select({
      id: profiles.id,
      name: profiles.name,
      email: profiles.email,
      companyName: profiles.companyName,
      whatsappNumber: profiles.whatsappNumber,
      roleId: profiles.roleId,
      emailVerified: profiles.emailVerified,
      createdAt: profiles.createdAt,
      activeSubscriptions: activeSubscriptions.mapWith(Number),
    })
    .from(profiles)
}

function toAdminUser(u: Omit<AdminUser, 'createdAt'> & { createdAt: Date }): AdminUser {
  return { ...u, createdAt: u.createdAt.toISOString() }
}

export async function findAdminUser(db: Executor, id: string): Promise<AdminUser | null> {
  const [row] = await selectAdminUsers(db).where(eq(profiles.id, id))
  return row ? toAdminUser(row) : null
}
