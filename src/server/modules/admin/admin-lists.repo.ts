// The admin lists: paginated, sorted and searched in the database, fast at 100 000 customers, 200 000 subscriptions
// and 1 000 000 payments (bench/list-payments.bench.ts measures it). How:
//
// - Every sort is (key, id) in one direction, served by a btree index on (key, id) (or (filter, key, id)), so a
//   page is an index walk. The walk selects only ids (with the joins the search needs) and the page's 20 rows are
//   joined afterwards, in the same statement ("deferred join"), so a deep page skips index entries, not joined rows.
// - A search matches several things (customer name/e-mail/company/WhatsApp through a pg_trgm GIN index, ids,
//   references, plans). OR across tables would stop the planner from using any index, so each alternative is an
//   "arm" with its own ORDER BY … LIMIT, and the arms are merged with UNION: each arm walks its best index.
// - The total is exact up to `exactCountCap` rows (a count over at most cap + 1 index entries); above that it is
//   the planner's estimate of the same query (`totalExact: false`), because an exact count(*) over a million rows
//   costs more than the whole page budget. Pages past the estimate are simply empty. The page, the capped count and
//   the estimate are three statements sent in parallel.
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
import { profiles } from '../../db/schema/auth'
import { payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import type { PaymentRow, SubscriptionRow } from '../../db/schema/billing'
import { hasOwnReceipt, ownReceiptPath, roleIds } from '../../../domain/billing-vocabulary'

export type AdminSubscription = z.infer<typeof adminSubscriptionSchema>
export type AdminPayment = z.infer<typeof adminPaymentSchema>
export type AdminUser = z.infer<typeof adminUserSchema>
export type AdminSubscriptionsQuery = z.infer<typeof adminSubscriptionsQuerySchema>
export type AdminPaymentsQuery = z.infer<typeof adminPaymentsQuerySchema>
export type AdminUsersQuery = z.infer<typeof adminUsersQuerySchema>

export type Page<T> = { items: T[]; total: number; page: number; pageSize: number; totalExact: boolean }

/** Totals are counted exactly up to this many rows; above it they are the planner's estimate. */
export const exactCountCap = 1000

export type ListOptions = { countCap?: number }

/**
 * The text the admin search looks in: the exact expression of the index profiles_search_trgm_idx (schema/auth.ts).
 * Change both together, or the planner stops using the index.
 */
export function profileSearchText(): SQL {
  return sql`(${profiles.name} || ' ' || ${profiles.email} || ' ' || ${profiles.companyName} || ' ' || ${profiles.whatsappNumber})`
}

/** q as an ILIKE "contains" pattern: %, _ and \ typed by the admin are literal. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

type Arm = { from: SQL; where: (SQL | undefined)[] }
type ListSpec = {
  id: SQL
  /** Sort expressions before the id tie-breaker; all go in `dir`. */
  sortKeys: SQL[]
  /** Alternatives merged with UNION (one arm without a search). */
  arms: Arm[]
  dir: 'asc' | 'desc'
  page: number
  pageSize: number
}

async function rows<T>(db: Executor, query: SQL): Promise<T[]> {
  // node-postgres and PGlite both answer { rows }; the columns selected here are text and int only.
  const result = (await db.execute(query)) as unknown as { rows: T[] }
  return result.rows
}

function whereSql(conditions: (SQL | undefined)[]): SQL {
  const present = conditions.filter((c): c is SQL => c !== undefined)
  return present.length > 0 ? sql` where ${sql.join(present, sql` and `)}` : sql``
}

function armSql(spec: ListSpec, arm: Arm, limit: number, offset = 0): SQL {
  const dir = sql.raw(spec.dir)
  const columns = [sql`${spec.id} as id`, ...spec.sortKeys.map((key, i) => sql`${key} as ${sql.identifier(`k${i}`)}`)]
  const order = [...spec.sortKeys, spec.id].map((key) => sql`${key} ${dir}`)
  return sql`select ${sql.join(columns, sql`, `)} from ${arm.from}${whereSql(arm.where)} order by ${sql.join(order, sql`, `)} limit ${limit}${offset > 0 ? sql` offset ${offset}` : sql``}`
}

function orderSql(spec: ListSpec): SQL[] {
  const dir = sql.raw(spec.dir)
  return [...spec.sortKeys, spec.id].map((key) => sql`${key} ${dir}`)
}

/** The ids of one page, in order: a subquery of the query that loads the page's rows (one round trip). */
function pageIdsSql(spec: ListSpec): SQL {
  const offset = (spec.page - 1) * spec.pageSize
  const [single] = spec.arms
  if (spec.arms.length === 1 && single) return sql`select id from (${armSql(spec, single, spec.pageSize, offset)}) page`
  const dir = sql.raw(spec.dir)
  const outerOrder = [...spec.sortKeys.map((_, i) => sql`${sql.identifier(`k${i}`)} ${dir}`), sql`id ${dir}`]
  const union = sql.join(
    spec.arms.map((arm) => sql`(${armSql(spec, arm, offset + spec.pageSize)})`),
    sql` union `,
  )
  return sql`select id from (${union}) page order by ${sql.join(outerOrder, sql`, `)} limit ${spec.pageSize} offset ${offset}`
}

/** The capped exact count and the planner's estimate, side by side (each its own round trip, in parallel). */
async function countTotal(db: Executor, spec: ListSpec, cap: number): Promise<{ total: number; exact: boolean }> {
  const capped = sql.join(
    spec.arms.map((arm) => sql`(select ${spec.id} as id from ${arm.from}${whereSql(arm.where)} limit ${cap + 1})`),
    sql` union `,
  )
  const full = sql.join(
    spec.arms.map((arm) => sql`select ${spec.id} as id from ${arm.from}${whereSql(arm.where)}`),
    sql` union `,
  )
  const [[counted], [plan]] = await Promise.all([
    rows<{ n: number }>(db, sql`select count(*)::int as n from (${capped}) c`),
    rows<{ 'QUERY PLAN': unknown }>(db, sql`explain (format json) ${full}`),
  ])
  const n = Number(counted?.n ?? 0)
  if (n <= cap) return { total: n, exact: true }
  const raw = plan?.['QUERY PLAN']
  const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan?: { 'Plan Rows'?: number } }] | undefined
  const estimate = Math.round(Number(parsed?.[0]?.Plan?.['Plan Rows'] ?? 0))
  return { total: Math.max(n, estimate), exact: false }
}

/** `load` gets the page's id subquery and the sort, and answers the page's rows in that order. */
async function runList<T>(
  db: Executor,
  spec: ListSpec,
  options: ListOptions,
  load: (pageIds: SQL, order: SQL[]) => Promise<T[]>,
): Promise<Page<T>> {
  const [items, count] = await Promise.all([
    load(pageIdsSql(spec), orderSql(spec)),
    countTotal(db, spec, options.countCap ?? exactCountCap),
  ])
  return { items, total: count.total, page: spec.page, pageSize: spec.pageSize, totalExact: count.exact }
}

/** The sort's keys, or created_at's: own keys only, so `sort=constructor` or `__proto__` is just unknown. */
function sortKeysOf(sorts: Record<string, SQL[]>, sort: string | undefined): SQL[] {
  const keys = sort && Object.hasOwn(sorts, sort) ? sorts[sort] : sorts.created_at
  if (!keys) throw new Error('a sort table without created_at')
  return keys
}

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

export async function listAdminSubscriptions(
  db: Executor,
  query: AdminSubscriptionsQuery,
  options: ListOptions = {},
): Promise<Page<AdminSubscription>> {
  const filters = [
    query.status ? sql`${subscriptions.status} = ${query.status}` : undefined,
    query.planId ? sql`${subscriptions.planId} = ${query.planId}` : undefined,
  ]
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
  const [row] = await db
    .select({ subscription: subscriptions, plan: planRef, customer: customerRef })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .innerJoin(profiles, eq(profiles.id, subscriptions.userId))
    .where(eq(subscriptions.id, id))
    .limit(1)
  return row ? toAdminSubscription(row) : null
}

// ---- payments ----

const paymentSorts: Record<string, SQL[]> = {
  created_at: [sql`${payments.createdAt}`],
  due_date: [sql`${payments.dueDate}`],
  amount: [sql`${payments.amountCents}`],
}

const targetPlans = alias(plans, 'target_plans')

export async function listAdminPayments(
  db: Executor,
  query: AdminPaymentsQuery,
  options: ListOptions = {},
): Promise<Page<AdminPayment>> {
  const filters = [
    query.status ? sql`${payments.status} = ${query.status}` : undefined,
    query.method ? sql`${payments.paymentMethod} = ${query.method}` : undefined,
  ]
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
