// The admin home's figures. "Over time" is computed in SQL from subscription_history (written by triggers, migration
// 0017) and payments, month by month in America/Sao_Paulo, and kept in insights_monthly (refreshed by the billing
// tick), so the page reads 12 small rows. "Now" and "Needs you" are read live, each from an index.
// Metric definitions: README, "Admin home: MRR movements and rates".
import { sql, type SQL } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { cancelScheduledStatuses, openPaymentStatuses, payingStatuses } from '../../../domain/admin-filters'

export const insightsTimeZone = 'America/Sao_Paulo'
/** Months shown (the current one included). */
export const insightsMonths = 12

async function rows<T>(db: Executor, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] }
  return result.rows
}

const tz = sql.raw(`'${insightsTimeZone}'`)
const inList = (values: readonly string[]) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )

/**
 * Recomputes the months from `fromMonth` (YYYY-MM-01) through the month of `now` into insights_monthly, in one
 * statement (the billing tick passes only the months that can still change: see refreshStaleInsights in the service).
 *
 * MRR of a customer at an instant = the sum of the `mrr_cents` in force then (the latest history row of each of their
 * subscriptions effective before it). Each month compares every customer's MRR at its first instant with the one at
 * the first instant of the next month (or `now` for the current month).
 */
export async function refreshMonthlyInsights(
  db: Executor,
  now: Date,
  fromMonth: string = monthOf(now, -(insightsMonths - 1)),
): Promise<number> {
  const result = await withSortMemory(db, (tx) => rows<{ month: string }>(tx, monthlyInsightsSql(now, fromMonth)))
  return result.length
}

/** The refresh statement (exported for EXPLAIN in the bench). */
export function monthlyInsightsSql(now: Date, fromMonth: string): SQL {
  const at = sql`${now.toISOString()}::timestamptz`
  return sql`
with months as (
  select m::date as month,
    (m at time zone ${tz}) as starts,
    least((m + interval '1 month') at time zone ${tz}, ${at}) as ends
  from generate_series(
    ${fromMonth}::timestamp,
    date_trunc('month', ${at} at time zone ${tz}),
    interval '1 month') as m
),
points as (select starts as t from months union select ends from months),
spans as (
  select user_id, mrr_cents, effective_at as from_t,
    lead(effective_at) over (partition by subscription_id order by effective_at, id) as to_t
  from subscription_history
  where effective_at < ${at}
),
cust as (
  select p.t, s.user_id, sum(s.mrr_cents) as mrr
  from points p
  join spans s on s.from_t < p.t and (s.to_t is null or s.to_t >= p.t)
  where s.mrr_cents > 0
  group by p.t, s.user_id
),
pairs as (
  select m.month, m.starts, c.user_id,
    sum(case when c.t = m.starts then c.mrr else 0 end) as a,
    sum(case when c.t = m.ends then c.mrr else 0 end) as b
  from months m join cust c on c.t = m.starts or c.t = m.ends
  group by m.month, m.starts, c.user_id
),
firsts as (
  select user_id, min(effective_at) as first_at from subscription_history where mrr_cents > 0 group by user_id
),
moves as (
  select p.month,
    sum(p.a) as mrr_start, sum(p.b) as mrr_end,
    sum(case when p.a = 0 and p.b > 0 and f.first_at >= p.starts then p.b else 0 end) as new_cents,
    sum(case when p.a = 0 and p.b > 0 and f.first_at < p.starts then p.b else 0 end) as reactivated_cents,
    sum(case when p.a > 0 and p.b > p.a then p.b - p.a else 0 end) as expansion_cents,
    sum(case when p.a > 0 and p.b > 0 and p.b < p.a then p.a - p.b else 0 end) as contraction_cents,
    sum(case when p.a > 0 and p.b = 0 then p.a else 0 end) as churned_cents,
    count(*) filter (where p.a > 0) as customers_start,
    count(*) filter (where p.b > 0) as customers_end,
    count(*) filter (where p.a = 0 and p.b > 0 and f.first_at >= p.starts) as new_customers,
    count(*) filter (where p.a = 0 and p.b > 0 and f.first_at < p.starts) as reactivated_customers,
    count(*) filter (where p.a > 0 and p.b = 0) as churned_customers
  from pairs p left join firsts f on f.user_id = p.user_id
  group by p.month
),
${revenueAndUpsert(at)}`
}

/**
 * The end of both refresh statements: revenue and PIX confirmation times per month of `months` (month, starts,
 * ends), then the upsert of one insights_monthly row per month from `months`, `moves` and `revenue`.
 */
function revenueAndUpsert(at: SQL): SQL {
  return sql`paid as (
  select date_trunc('month', pm.paid_at at time zone ${tz})::date as month, pm.payment_method,
    coalesce(pm.amount_received_cents, pm.amount_cents) as cents,
    case when pm.payment_method = 'pix' then coalesce(pm.pix_confirmed_via, 'manual') end as via,
    greatest(0, round(extract(epoch from pm.paid_at - pm.created_at)))::int as seconds
  from payments pm
  where pm.status = 'paid' and pm.paid_at >= (select min(starts) from months) and pm.paid_at < (select max(ends) from months)
),
revenue as (
  select month,
    coalesce(sum(cents) filter (where payment_method = 'pix'), 0) as pix_cents,
    coalesce(sum(cents) filter (where payment_method = 'card'), 0) as card_cents,
    coalesce(sum(cents) filter (where payment_method = 'manual_confirmation'), 0) as manual_cents,
    count(*) filter (where via = 'api_pix') as auto_n,
    percentile_disc(0.5) within group (order by seconds) filter (where via = 'api_pix') as auto_p50,
    percentile_disc(0.95) within group (order by seconds) filter (where via = 'api_pix') as auto_p95,
    count(*) filter (where via = 'manual') as manual_n,
    percentile_disc(0.5) within group (order by seconds) filter (where via = 'manual') as manual_p50,
    percentile_disc(0.95) within group (order by seconds) filter (where via = 'manual') as manual_p95
  from paid group by month
)
insert into insights_monthly as i (month, mrr_start_cents, mrr_end_cents, new_cents, expansion_cents, contraction_cents,
  churned_cents, reactivated_cents, customers_start, customers_end, new_customers, churned_customers,
  reactivated_customers, revenue_pix_cents, revenue_card_cents, revenue_manual_cents, pix_auto_count,
  pix_auto_p50_seconds, pix_auto_p95_seconds, pix_manual_count, pix_manual_p50_seconds, pix_manual_p95_seconds,
  refreshed_at)
select m.month, coalesce(v.mrr_start, 0), coalesce(v.mrr_end, 0), coalesce(v.new_cents, 0),
  coalesce(v.expansion_cents, 0), coalesce(v.contraction_cents, 0), coalesce(v.churned_cents, 0),
  coalesce(v.reactivated_cents, 0), coalesce(v.customers_start, 0), coalesce(v.customers_end, 0),
  coalesce(v.new_customers, 0), coalesce(v.churned_customers, 0), coalesce(v.reactivated_customers, 0),
  coalesce(r.pix_cents, 0), coalesce(r.card_cents, 0), coalesce(r.manual_cents, 0), coalesce(r.auto_n, 0),
  r.auto_p50, r.auto_p95, coalesce(r.manual_n, 0), r.manual_p50, r.manual_p95, ${at}
from months m left join moves v on v.month = m.month left join revenue r on r.month = m.month
on conflict (month) do update set
  mrr_start_cents = excluded.mrr_start_cents, mrr_end_cents = excluded.mrr_end_cents,
  new_cents = excluded.new_cents, expansion_cents = excluded.expansion_cents,
  contraction_cents = excluded.contraction_cents, churned_cents = excluded.churned_cents,
  reactivated_cents = excluded.reactivated_cents, customers_start = excluded.customers_start,
  customers_end = excluded.customers_end, new_customers = excluded.new_customers,
  churned_customers = excluded.churned_customers, reactivated_customers = excluded.reactivated_customers,
  revenue_pix_cents = excluded.revenue_pix_cents, revenue_card_cents = excluded.revenue_card_cents,
  revenue_manual_cents = excluded.revenue_manual_cents, pix_auto_count = excluded.pix_auto_count,
  pix_auto_p50_seconds = excluded.pix_auto_p50_seconds, pix_auto_p95_seconds = excluded.pix_auto_p95_seconds,
  pix_manual_count = excluded.pix_manual_count, pix_manual_p50_seconds = excluded.pix_manual_p50_seconds,
  pix_manual_p95_seconds = excluded.pix_manual_p95_seconds, refreshed_at = excluded.refreshed_at
returning i.month`
}

/**
 * Recomputes one month (YYYY-MM-01) from the row of the month before it, which must be final (refreshed after that
 * month ended): only the customers whose MRR can have moved in the month (those with a subscription_history row
 * effective in it) are looked at, through subscription_history_user_idx; the others carry the previous month's end
 * into this one. mrr_start and customers_start are the previous row's mrr_end and customers_end (the same instant);
 * the ends are the starts plus the month's movements. Revenue is read for this month only.
 */
export async function refreshInsightsMonth(db: Executor, now: Date, month: string): Promise<void> {
  await withSortMemory(db, (tx) => tx.execute(insightsMonthSql(now, month)))
}

/**
 * Runs the refresh with 32 MB for sorts and hashes and a 10-minute statement bound (the default 4 MB spills a month's paid invoices, sorted for the
 * percentiles, to disk), for this transaction only.
 */
async function withSortMemory<T>(db: Executor, run: (tx: Executor) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local work_mem = '32MB'`)
    // A rebuild from empty over a large history can outlast DATABASE_STATEMENT_TIMEOUT_MS (a guard for requests);
    // this background statement gets its own, longer bound.
    await tx.execute(sql`set local statement_timeout = '10min'`)
    return run(tx)
  })
}

/** The one-month refresh statement (exported for EXPLAIN in the bench). */
export function insightsMonthSql(now: Date, month: string): SQL {
  const at = sql`${now.toISOString()}::timestamptz`
  const starts = monthStart(month).toISOString()
  const next = monthStart(monthAfter(month, 1)).toISOString()
  const previous = monthAfter(month, -1)
  return sql`
with months as (
  select ${month}::date as month, ${starts}::timestamptz as starts, least(${next}::timestamptz, ${at}) as ends
),
prev as (select mrr_end_cents, customers_end from insights_monthly where month = ${previous}::date),
changed as (
  select distinct h.user_id from subscription_history h cross join months m
  where h.effective_at >= m.starts and h.effective_at < m.ends
),
pairs as (
  select m.month, m.starts, c.user_id,
    coalesce((select sum(x.mrr_cents) from (select distinct on (h.subscription_id) h.mrr_cents
      from subscription_history h where h.user_id = c.user_id and h.effective_at < m.starts
      order by h.subscription_id, h.effective_at desc, h.id desc) x), 0) as a,
    coalesce((select sum(x.mrr_cents) from (select distinct on (h.subscription_id) h.mrr_cents
      from subscription_history h where h.user_id = c.user_id and h.effective_at < m.ends
      order by h.subscription_id, h.effective_at desc, h.id desc) x), 0) as b
  from changed c cross join months m
),
firsts as (
  select p.user_id,
    (select min(h.effective_at) from subscription_history h where h.user_id = p.user_id and h.mrr_cents > 0) as first_at
  from pairs p where p.a = 0 and p.b > 0
),
deltas as (
  select coalesce(sum(p.b - p.a), 0) as mrr_delta,
    count(*) filter (where p.a = 0 and p.b > 0) - count(*) filter (where p.a > 0 and p.b = 0) as customers_delta,
    coalesce(sum(case when p.a = 0 and p.b > 0 and f.first_at >= p.starts then p.b else 0 end), 0) as new_cents,
    coalesce(sum(case when p.a = 0 and p.b > 0 and f.first_at < p.starts then p.b else 0 end), 0) as reactivated_cents,
    coalesce(sum(case when p.a > 0 and p.b > p.a then p.b - p.a else 0 end), 0) as expansion_cents,
    coalesce(sum(case when p.a > 0 and p.b > 0 and p.b < p.a then p.a - p.b else 0 end), 0) as contraction_cents,
    coalesce(sum(case when p.a > 0 and p.b = 0 then p.a else 0 end), 0) as churned_cents,
    count(*) filter (where p.a = 0 and p.b > 0 and f.first_at >= p.starts) as new_customers,
    count(*) filter (where p.a = 0 and p.b > 0 and f.first_at < p.starts) as reactivated_customers,
    count(*) filter (where p.a > 0 and p.b = 0) as churned_customers
  from pairs p left join firsts f on f.user_id = p.user_id
),
moves as (
  select m.month, pr.mrr_end_cents as mrr_start, pr.mrr_end_cents + d.mrr_delta as mrr_end, d.new_cents,
    d.reactivated_cents, d.expansion_cents, d.contraction_cents, d.churned_cents,
    pr.customers_end as customers_start, pr.customers_end + d.customers_delta as customers_end, d.new_customers,
    d.reactivated_customers, d.churned_customers
  from months m cross join prev pr cross join deltas d
),
${revenueAndUpsert(at)}`
}

export type MonthlyRow = {
  month: string
  mrrStartCents: number
  mrrEndCents: number
  newCents: number
  expansionCents: number
  contractionCents: number
  churnedCents: number
  reactivatedCents: number
  customersStart: number
  customersEnd: number
  newCustomers: number
  churnedCustomers: number
  reactivatedCustomers: number
  revenuePixCents: number
  revenueCardCents: number
  revenueManualCents: number
  pixAutoCount: number
  pixAutoP50Seconds: number | null
  pixAutoP95Seconds: number | null
  pixManualCount: number
  pixManualP50Seconds: number | null
  pixManualP95Seconds: number | null
  refreshedAt: string
}

const n = (v: unknown): number => Number(v ?? 0)
const nOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
const isoOf = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString())
const dayOf = (v: unknown): string => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10))

/** The stored months from `fromMonth` (YYYY-MM-01) on, oldest first. */
export async function readMonthlyInsights(db: Executor, fromMonth: string): Promise<MonthlyRow[]> {
  const result = await rows<Record<string, unknown>>(
    db,
    sql`select * from insights_monthly where month >= ${fromMonth}::date order by month`,
  )
  return result.map((r) => ({
    month: dayOf(r.month),
    mrrStartCents: n(r.mrr_start_cents),
    mrrEndCents: n(r.mrr_end_cents),
    newCents: n(r.new_cents),
    expansionCents: n(r.expansion_cents),
    contractionCents: n(r.contraction_cents),
    churnedCents: n(r.churned_cents),
    reactivatedCents: n(r.reactivated_cents),
    customersStart: n(r.customers_start),
    customersEnd: n(r.customers_end),
    newCustomers: n(r.new_customers),
    churnedCustomers: n(r.churned_customers),
    reactivatedCustomers: n(r.reactivated_customers),
    revenuePixCents: n(r.revenue_pix_cents),
    revenueCardCents: n(r.revenue_card_cents),
    revenueManualCents: n(r.revenue_manual_cents),
    pixAutoCount: n(r.pix_auto_count),
    pixAutoP50Seconds: nOrNull(r.pix_auto_p50_seconds),
    pixAutoP95Seconds: nOrNull(r.pix_auto_p95_seconds),
    pixManualCount: n(r.pix_manual_count),
    pixManualP50Seconds: nOrNull(r.pix_manual_p50_seconds),
    pixManualP95Seconds: nOrNull(r.pix_manual_p95_seconds),
    refreshedAt: isoOf(r.refreshed_at),
  }))
}

/** The first day (YYYY-MM-01) of the month `offset` months from the one holding `now`, in America/Sao_Paulo. */
export function monthOf(now: Date, offset = 0): string {
  // São Paulo has kept UTC−3 all year since 2019.
  const local = new Date(now.getTime() - 3 * 3_600_000)
  const d = new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth() + offset, 1))
  return d.toISOString().slice(0, 10)
}

/** The month (YYYY-MM-01) `offset` months after `month`. */
export function monthAfter(month: string, offset: number): string {
  const [year, m] = month.split('-').map(Number) as [number, number]
  return new Date(Date.UTC(year, m - 1 + offset, 1)).toISOString().slice(0, 10)
}

/** The instant a São Paulo month (YYYY-MM-01) begins. */
export function monthStart(month: string): Date {
  return new Date(`${month}T03:00:00.000Z`)
}

export type NowFigures = {
  mrrCents: number
  byPlan: { planId: string; planName: string; count: number; mrrCents: number }[]
  byMethod: { method: 'pix' | 'card'; count: number; mrrCents: number }[]
  receivables: {
    count: number
    totalCents: number
    dueCount: number
    dueCents: number
    overdueCount: number
    overdueCents: number
  }
  pastDue: number
  cancellationsThisMonth: number
}

/**
 * Live figures of today's state: subscription_counts (trigger-kept), subscriptions_status_idx,
 * subscriptions_cancel_scheduled_idx and payments_status_idx.
 */
export async function readNowFigures(db: Executor, now: Date): Promise<NowFigures> {
  const at = sql`${now.toISOString()}::timestamptz`
  const monthFrom = sql`${monthStart(monthOf(now)).toISOString()}::timestamptz`
  const monthTo = sql`${monthStart(monthOf(now, 1)).toISOString()}::timestamptz`
  const [plansRows, receivables, counts] = await Promise.all([
    rows<{ plan_id: string; plan_name: string; billing_method: 'pix' | 'card'; n: number; mrr: string }>(
      db,
      // subscription_counts: kept by a trigger (migration 0017), a few rows whatever the number of subscriptions.
      sql`select c.plan_id, p.name as plan_name, c.billing_method, sum(c.count)::int as n,
          sum(c.count * p.price_cents)::bigint as mrr
        from subscription_counts c join plans p on p.id = c.plan_id
        where c.status in (${inList(payingStatuses)}) and c.count > 0
        group by c.plan_id, p.name, c.billing_method`,
    ),
    rows<{ due_n: number; due_c: string; over_n: number; over_c: string }>(
      db,
      sql`select count(*) filter (where due_date >= ${at})::int as due_n,
          coalesce(sum(amount_cents) filter (where due_date >= ${at}), 0)::bigint as due_c,
          count(*) filter (where due_date < ${at})::int as over_n,
          coalesce(sum(amount_cents) filter (where due_date < ${at}), 0)::bigint as over_c
        from payments where status in (${inList(openPaymentStatuses)})`,
    ),
    rows<{ past_due: number; scheduled: number }>(
      db,
      sql`select
          (select count(*)::int from subscriptions where status = 'past_due') as past_due,
          (select count(*)::int from subscriptions
            where status in (${inList(cancelScheduledStatuses)}) and cancel_at_period_end
              and current_period_end >= ${monthFrom} and current_period_end < ${monthTo}) as scheduled`,
    ),
  ])
  const byPlan = new Map<string, { planId: string; planName: string; count: number; mrrCents: number }>()
  const byMethod = { pix: { count: 0, mrrCents: 0 }, card: { count: 0, mrrCents: 0 } }
  let mrrCents = 0
  for (const r of plansRows) {
    const plan = byPlan.get(r.plan_id) ?? { planId: r.plan_id, planName: r.plan_name, count: 0, mrrCents: 0 }
    plan.count += n(r.n)
    plan.mrrCents += n(r.mrr)
    byPlan.set(r.plan_id, plan)
    byMethod[r.billing_method].count += n(r.n)
    byMethod[r.billing_method].mrrCents += n(r.mrr)
    mrrCents += n(r.mrr)
  }
  const rc = receivables[0]
  return {
    mrrCents,
    byPlan: [...byPlan.values()].sort((a, b) => b.mrrCents - a.mrrCents || a.planId.localeCompare(b.planId)),
    byMethod: (['pix', 'card'] as const).map((method) => ({ method, ...byMethod[method] })),
    receivables: {
      count: n(rc?.due_n) + n(rc?.over_n),
      totalCents: n(rc?.due_c) + n(rc?.over_c),
      dueCount: n(rc?.due_n),
      dueCents: n(rc?.due_c),
      overdueCount: n(rc?.over_n),
      overdueCents: n(rc?.over_c),
    },
    pastDue: n(counts[0]?.past_due),
    cancellationsThisMonth: n(counts[0]?.scheduled),
  }
}

export type WaitingPayment = {
  id: string
  amountCents: number
  createdAt: string
  ageSeconds: number
  customerName: string
  status: string
}

export type NeedsYou = {
  pixAwaiting: { count: number; oldest: WaitingPayment[] }
  inReview: { count: number; oldest: WaitingPayment[] }
  failedDeliveries: {
    count: number
    oldest: { id: string; type: string; attempts: number; lastError: string | null; createdAt: string }[]
  }
}

/** What waits for an admin: open PIX invoices (manual: all; API Pix: left on the static code), reviews, deliveries. */
export async function readNeedsYou(db: Executor, now: Date, provider: 'manual' | 'api-pix'): Promise<NeedsYou> {
  const awaiting =
    provider === 'api-pix'
      ? sql`p.status = 'pending_pix' and p.payment_method = 'pix' and (p.pix_charge_status is null or p.pix_charge_status = 'fallback')`
      : sql`p.status = 'pending_pix' and p.payment_method = 'pix'`
  const list = (where: SQL) =>
    rows<{ id: string; amount_cents: string; created_at: Date | string; name: string; status: string }>(
      db,
      sql`select p.id, p.amount_cents, p.created_at, pr.name, p.status from payments p
        join subscriptions s on s.id = p.subscription_id join profiles pr on pr.id = s.user_id
        where ${where} order by p.created_at asc, p.id asc limit 10`,
    )
  const count = async (where: SQL) =>
    n((await rows<{ n: number }>(db, sql`select count(*)::int as n from payments p where ${where}`))[0]?.n)
  const failedWhere = sql`status = 'pending' and attempts > 0`
  const [aList, aCount, rList, rCount, fList, fCount] = await Promise.all([
    list(awaiting),
    count(awaiting),
    list(sql`p.status = 'review'`),
    count(sql`p.status = 'review'`),
    rows<{ id: string; type: string; attempts: number; last_error: string | null; created_at: Date | string }>(
      db,
      sql`select id, type, attempts, last_error, created_at from platform_events where ${failedWhere} order by seq limit 10`,
    ),
    rows<{ n: number }>(db, sql`select count(*)::int as n from platform_events where ${failedWhere}`),
  ])
  const waiting = (r: {
    id: string
    amount_cents: string
    created_at: Date | string
    name: string
    status: string
  }) => {
    const createdAt = isoOf(r.created_at)
    return {
      id: r.id,
      amountCents: n(r.amount_cents),
      createdAt,
      ageSeconds: Math.max(0, Math.floor((now.getTime() - Date.parse(createdAt)) / 1000)),
      customerName: r.name,
      status: r.status,
    }
  }
  return {
    pixAwaiting: { count: aCount, oldest: aList.map(waiting) },
    inReview: { count: rCount, oldest: rList.map(waiting) },
    failedDeliveries: {
      count: n(fCount[0]?.n),
      oldest: fList.map((f) => ({
        id: f.id,
        type: f.type,
        attempts: n(f.attempts),
        lastError: f.last_error,
        createdAt: isoOf(f.created_at),
      })),
    },
  }
}
