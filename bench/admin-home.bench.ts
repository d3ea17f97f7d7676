// The admin home ('Visão geral do negócio', GET /api/admin/insights) against the load set (npm run db:seed-load:
// 100 000 customers, 200 000 subscriptions, 1 000 000 payments), through the same service the route calls.
// Target: p95 ≤ 50 ms for the whole answer (live figures + the 12 stored monthly rows). The monthly refresh the
// billing tick runs (at most every 10 minutes) is printed without a target.
import type { AppContext } from '../src/server/context'
import type { Db } from '../src/server/db/client'
import {
  monthOf,
  readMonthlyInsights,
  readNeedsYou,
  readNowFigures,
  refreshMonthlyInsights,
} from '../src/server/modules/insights/insights.repo'
import { adminInsights } from '../src/server/modules/insights/insights.service'
import { measure, type Timing } from './stats'

export const adminHomeTargetMs = 50

export async function adminHomeBenchmarks(db: Db, options: { runs?: number } = {}) {
  const now = new Date()
  const refresh = await measure('monthly refresh (billing tick)', () => refreshMonthlyInsights(db, now), {
    runs: 3,
    warmup: 0,
  })
  const deps = { db, now: () => now, config: { PIX_PROVIDER: 'manual' } } as unknown as Pick<
    AppContext,
    'db' | 'now' | 'config'
  >
  const cases: [string, () => Promise<unknown>, string][] = [
    ['admin home: whole answer', () => adminInsights(deps), ''],
    ['admin home: now (MRR, receivables)', () => readNowFigures(db, now), ''],
    ['admin home: needs you', () => readNeedsYou(db, now, 'manual'), ''],
    ['admin home: 12 monthly rows', () => readMonthlyInsights(db, monthOf(now, -11)), ''],
  ]
  const results: Timing[] = []
  for (const [name, run] of cases) {
    await run()
    results.push(await measure(name, run, { runs: options.runs ?? 100, warmup: 10 }))
  }
  return { results, refresh }
}
