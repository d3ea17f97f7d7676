// The customer's own lists (GET /api/subscriptions, GET /api/payments): paged on the server like the admin lists,
// newest first, bounded by listLimits (domain/contracts/paging.ts). One customer's rows are few and indexed by user,
// so a plain count and LIMIT/OFFSET are enough here. The common request (a valid session that needs nothing
// written) is answered by one statement: the session row joined with its user, the page and the total
// (`…WithSession`); the routes fall back to the session check and the separate statements otherwise. Queries and
// their row mapping only; billing.routes.ts calls them.
import { and, count, desc, eq, inArray, notInArray, type SQL, sql } from 'drizzle-orm'
import type { SessionUser } from '../../../domain/contracts/auth'
import type { Payment, Subscription } from '../../../domain/contracts/billing'
import type { SubscriptionStatus } from '../../../domain/subscription-status'
import type { Database, Executor } from '../../db/client'
import { type SessionRow, sessionColumns, sessionFrom, toSessionRow } from '../../http/session-lookup'
import { hotRows, isoOf, isoOrNull } from '../../db/hot-rows'
import { type PaymentRow, payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import { openPaymentStatuses } from '../../../domain/subscription-status'
import { paymentOf, toPayment, toSubscription } from './billing.repo'

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

// ——— One statement per request: session, user, page and total ———
// Written out in SQL and read as arrays through db/hot-rows.ts (no ORM row mapping: these run on every dashboard
// request). The first row is the session with its user (the columns session-lookup.ts reads, 0–10; the page's
// columns null), the rows after it the page (the session's columns null; the total, a window count taken before
// LIMIT/OFFSET, in the last column): the session's eleven columns are sent and read once, not again on every row.
// On PostgreSQL named statements, parsed and planned once per connection.

const inList = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ')

type WithSession<T> = { session: SessionRow; data: CustomerPage<T> } | null

const nulls = (n: number) => Array.from({ length: n }, () => 'null').join(', ')
/** Names for the session's columns (session-lookup.ts's `sessionColumns`, in its order). */
const me = [
  'session_id',
  'expires_at',
  'session_created_at',
  'user_id',
  'name',
  'email',
  'user_created_at',
  'company_name',
  'whatsapp_number',
  'role_id',
  'two_factor_enabled',
]

/**
 * The session row, then the page: its `columns` and `count(*) over ()` selected `from` (joins, filter, order, and
 * LIMIT $2 OFFSET $3).
 */
const sessionThenPage = (columns: string[], from: string) =>
  `with me (${me.join(', ')}) as (select ${sessionColumns} ${sessionFrom} where s.token = $1)
  select me.*, ${nulls(columns.length + 1)} from me
  union all
  (select ${nulls(me.length)}, ${columns.join(', ')}, count(*) over () ${from})`

/**
 * Runs one of the statements below for `token` and the page, and maps its rows: the session from the first row, an
 * item from each row after it, the total from the last column of the first item. null when no row comes back (an
 * unknown token) or a page past the end brings no item: the caller then takes the ordinary path.
 */
async function pageWithSession<T>(
  database: Database,
  name: string,
  text: string,
  token: string,
  query: PageQuery,
  toItem: (r: unknown[]) => T,
): Promise<WithSession<T>> {
  const rows = await hotRows(database, name, text, [token, query.pageSize, (query.page - 1) * query.pageSize])
  const session = rows.find((r) => r[0] !== null)
  if (!session) return null
  const pageRows = rows.filter((r) => r[0] === null)
  const last = pageRows[0]?.at(-1)
  if (last === undefined && query.page > 1) return null
  return {
    session: toSessionRow(session),
    data: { items: pageRows.map(toItem), total: Number(last ?? 0), page: query.page, pageSize: query.pageSize },
  }
}

const subscriptionsSql = (filter: string) =>
  sessionThenPage(
    ['sub.id', 'sub.user_id', 'sub.plan_id', 'sub.status', 'sub.billing_method', 'sub.current_period_start']
      .concat(['sub.current_period_end', 'sub.cancel_at_period_end', 'sub.canceled_at', 'sub.created_at'])
      .concat(['p.id', 'p.name', 'p.price_cents', 'p.box_quantity', 'p.agent_quantity']),
    `from me join subscriptions sub on sub.user_id = me.user_id${filter} join plans p on p.id = sub.plan_id
    order by sub.created_at desc, sub.id desc limit $2 offset $3`,
  )

const subscriptionsSqlBy = {
  all: subscriptionsSql(''),
  current: subscriptionsSql(` and sub.status in (${inList(current)})`),
  past: subscriptionsSql(` and sub.status not in (${inList(current)})`),
}

/** The session of `token` with its user's page of subscriptions (plan included) and their total. */
export async function listMySubscriptionsWithSession(
  database: Database,
  token: string,
  query: PageQuery & { current?: 'true' | 'false' | undefined },
): Promise<WithSession<Subscription>> {
  const variant = query.current === 'true' ? 'current' : query.current === 'false' ? 'past' : 'all'
  return pageWithSession(
    database,
    `my_subscriptions_session_${variant}`,
    subscriptionsSqlBy[variant],
    token,
    query,
    (r): Subscription => ({
      id: String(r[11]),
      userId: String(r[12]),
      planId: String(r[13]),
      plan: {
        id: String(r[21]),
        name: String(r[22]),
        priceCents: Number(r[23]),
        boxQuantity: Number(r[24]),
        agentQuantity: Number(r[25]),
      },
      status: r[14] as Subscription['status'],
      billingMethod: r[15] as Subscription['billingMethod'],
      currentPeriodStart: isoOf(r[16]),
      currentPeriodEnd: isoOf(r[17]),
      cancelAtPeriodEnd: r[18] === true,
      canceledAt: isoOrNull(r[19]),
      createdAt: isoOf(r[20]),
    }),
  )
}

const paymentsSql = (filter: string) =>
  sessionThenPage(
    ['pa.id', 'pa.subscription_id', 'pa.amount_cents', 'pa.status', 'pa.payment_method', 'pa.type']
      .concat(['pa.target_plan_id', 'pa.due_date', 'pa.paid_at', 'pa.created_at', 'pa.receipt_url', 'pa.metadata'])
      .concat(['p.id', 'p.name', 'p.price_cents'])
      .concat([
        `(select sum(r.amount_cents) from pix_refunds r where r.payment_id = pa.id and r.status <> 'NAO_REALIZADO')`,
      ]),
    `from me join subscriptions sub on sub.user_id = me.user_id join payments pa on pa.subscription_id = sub.id${filter}
      join plans p on p.id = sub.plan_id
    order by pa.created_at desc, pa.id desc limit $2 offset $3`,
  )

const paymentsSqlBy = {
  all: paymentsSql(''),
  open: paymentsSql(` and pa.status in (${inList(openPaymentStatuses)})`),
  closed: paymentsSql(` and pa.status not in (${inList(openPaymentStatuses)})`),
}

/** The session of `token` with its user's page of payments (plan and refunded sum included) and their total. */
export async function listMyPaymentsWithSession(
  database: Database,
  token: string,
  query: PageQuery & { open?: 'true' | 'false' | undefined },
): Promise<WithSession<Payment & { refundedCents?: number }>> {
  const variant = query.open === 'true' ? 'open' : query.open === 'false' ? 'closed' : 'all'
  return pageWithSession(database, `my_payments_session_${variant}`, paymentsSqlBy[variant], token, query, (r) => {
    const payment = paymentOf(
      {
        id: String(r[11]),
        subscriptionId: String(r[12]),
        amountCents: Number(r[13]),
        status: r[14] as PaymentRow['status'],
        paymentMethod: r[15] as PaymentRow['paymentMethod'],
        type: r[16] as PaymentRow['type'],
        targetPlanId: r[17] as string | null,
        receiptUrl: r[21] as string | null,
        metadata: r[22] as PaymentRow['metadata'],
      },
      isoOf(r[18]),
      isoOrNull(r[19]),
      isoOf(r[20]),
      r[23] === null ? null : { id: String(r[23]), name: String(r[24]), priceCents: Number(r[25]) },
    )
    // A paid payment shows what was refunded of it, when anything was.
    return payment.status === 'paid' && r[26] !== null ? { ...payment, refundedCents: Number(r[26]) } : payment
  })
}
