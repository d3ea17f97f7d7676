// The admin home ('Visão geral do negócio'): live figures plus the monthly aggregates, and the lifecycle pass that
// keeps those aggregates fresh. Metric definitions: README, "Admin home: MRR movements and rates".
import type { AdminInsights, InsightsMonth } from '../../../domain/contracts/insights'
import type { AppContext } from '../../context'
import type { Executor } from '../../db/client'
import { claimSlotEvery, type LifecycleDeps, type PassResult } from '../lifecycle/pass-runner'
import {
  insightsMonths,
  type MonthlyRow,
  monthAfter,
  monthOf,
  monthStart,
  readMonthlyInsights,
  readNeedsYou,
  readNowFigures,
  refreshInsightsMonth,
  refreshMonthlyInsights,
} from './insights.repo'

/** The billing tick recomputes the monthly aggregates at most this often (one instance does it). */
export const insightsRefreshMinutes = 10
const passName = 'insights'

function claimSlot(db: Executor, now: Date): Promise<boolean> {
  return claimSlotEvery(db, passName, now, insightsRefreshMinutes)
}

/**
 * A month's row is final once it was computed this long after the month ended: a payment can still land in a month
 * that has ended (a card's paid_at is Stripe's, and Stripe retries a webhook for up to three days).
 */
export const insightsGraceDays = 3

/** Whether a stored month can still change: computed before its end plus the grace days. */
function isFinal(row: MonthlyRow): boolean {
  const end = monthStart(monthAfter(row.month, 1)).getTime()
  return Date.parse(row.refreshedAt) >= end + insightsGraceDays * 86_400_000
}

/**
 * Brings insights_monthly up to date at `now`, doing only what can have changed: each month of the window from the
 * oldest one that is missing or not final through the current one, in order, each from the row before it
 * (refreshInsightsMonth). In a normal tick that is the current month (and the previous one during its grace days).
 * The whole window is rebuilt at once (refreshMonthlyInsights) only when there is no usable row to start from: an
 * empty table, or a gap older than the window. `rebuildInsights` forces it.
 */
export async function refreshStaleInsights(
  db: Executor,
  now: Date,
): Promise<{ mode: 'full' | 'incremental'; months: string[] }> {
  const windowFrom = monthOf(now, -(insightsMonths - 1))
  const current = monthOf(now)
  const stored = new Map((await readMonthlyInsights(db, monthAfter(windowFrom, -1))).map((r) => [r.month, r]))
  let from: string | undefined
  for (let month = windowFrom; month <= current; month = monthAfter(month, 1)) {
    const row = stored.get(month)
    if (!row || !isFinal(row)) {
      from = month
      break
    }
  }
  if (!from) return { mode: 'incremental', months: [] }
  // The row the first refreshed month starts from must hold that month's first instant (refreshed after it).
  const base = stored.get(monthAfter(from, -1))
  if (!base || Date.parse(base.refreshedAt) < monthStart(from).getTime()) {
    await rebuildInsights(db, now)
    return { mode: 'full', months: monthsBetween(windowFrom, current) }
  }
  const months = monthsBetween(from, current)
  for (const month of months) await refreshInsightsMonth(db, now, month)
  return { mode: 'incremental', months }
}

/** Recomputes the whole window from subscription_history and payments (an empty table, or on demand). */
export async function rebuildInsights(db: Executor, now: Date): Promise<void> {
  await refreshMonthlyInsights(db, now)
}

function monthsBetween(from: string, to: string): string[] {
  const months: string[] = []
  for (let month = from; month <= to; month = monthAfter(month, 1)) months.push(month)
  return months
}

/**
 * Lifecycle pass: brings insights_monthly up to date (refreshStaleInsights) when the last refresh is older than
 * insightsRefreshMinutes. It handles no rows of its own (the tick's report counts rows changed), so it always reports
 * 0; refreshed_at tells when it ran.
 */
export async function refreshInsightsPass(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  if (await claimSlot(deps.db, now)) await refreshStaleInsights(deps.db, now)
  return { processed: 0 }
}

function rate(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null
}

export function monthFigures(row: MonthlyRow): InsightsMonth {
  const { refreshedAt: _refreshedAt, ...figures } = row
  return {
    ...figures,
    netCents: row.mrrEndCents - row.mrrStartCents,
    logoChurnRate: rate(row.churnedCustomers, row.customersStart),
    revenueChurnRate: rate(row.churnedCents + row.contractionCents, row.mrrStartCents),
  }
}

export async function adminInsights(deps: Pick<AppContext, 'db' | 'now' | 'config'>): Promise<AdminInsights> {
  const now = deps.now()
  const from = monthOf(now, -(insightsMonths - 1))
  // The three reads go in parallel (each its own round trip on PostgreSQL).
  let [months, current, needsYou] = await Promise.all([
    readMonthlyInsights(deps.db, from),
    readNowFigures(deps.db, now),
    readNeedsYou(deps.db, now, deps.config.PIX_PROVIDER),
  ])
  // Never refreshed for this month yet (a fresh install, or the tick is off): compute once now.
  if (!months.some((m) => m.month === monthOf(now))) {
    await refreshStaleInsights(deps.db, now)
    months = await readMonthlyInsights(deps.db, from)
  }
  return {
    now: now.toISOString(),
    pixProvider: deps.config.PIX_PROVIDER,
    current,
    needsYou,
    months: months.map(monthFigures),
    refreshedAt: months.reduce<string | null>(
      (latest, m) => (!latest || m.refreshedAt > latest ? m.refreshedAt : latest),
      null,
    ),
  }
}
