// The admin home ('Visão geral do negócio'): live figures plus the monthly aggregates, and the lifecycle pass that
// keeps those aggregates fresh. Metric definitions: README, "Admin home: MRR movements and rates".
import { lte } from 'drizzle-orm'
import type { AdminInsights, InsightsMonth } from '../../../domain/contracts/insights'
import type { AppContext } from '../../context'
import type { Executor } from '../../db/client'
import { lifecyclePassRuns } from '../../db/schema/lifecycle'
import type { LifecycleDeps, PassResult } from '../lifecycle/pass-runner'
import {
  insightsMonths,
  type MonthlyRow,
  monthOf,
  readMonthlyInsights,
  readNeedsYou,
  readNowFigures,
  refreshMonthlyInsights,
} from './insights.repo'

/** The billing tick recomputes the monthly aggregates at most this often (one instance does it). */
export const insightsRefreshMinutes = 10
const passName = 'insights'

async function claimSlot(db: Executor, now: Date): Promise<boolean> {
  const [slot] = await db
    .insert(lifecyclePassRuns)
    .values({ name: passName, lastRunAt: now })
    .onConflictDoUpdate({
      target: lifecyclePassRuns.name,
      set: { lastRunAt: now },
      setWhere: lte(lifecyclePassRuns.lastRunAt, new Date(now.getTime() - insightsRefreshMinutes * 60_000)),
    })
    .returning()
  return slot !== undefined
}

/**
 * Lifecycle pass: refreshes insights_monthly when the last refresh is older than insightsRefreshMinutes. It handles no
 * rows of its own (the tick's report counts rows changed), so it always reports 0; refreshed_at tells when it ran.
 */
export async function refreshInsightsPass(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  if (await claimSlot(deps.db, now)) await refreshMonthlyInsights(deps.db, now)
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
    await refreshMonthlyInsights(deps.db, now)
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
