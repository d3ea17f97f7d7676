// The admin home ('Visão geral do negócio', GET /api/admin/insights) against the load set (npm run db:seed-load:
// 100 000 customers, 200 000 subscriptions, 1 000 000 payments), through the same service the route calls.
// Target: p95 ≤ 50 ms for the whole answer (live figures + the 12 stored monthly rows). The monthly refresh the
// billing tick runs (at most every 10 minutes: only the months that can still change) and the full rebuild of the
// 12 months are printed without a target. Alone: `npx tsx bench/admin-home.bench.ts` (BENCH_DATABASE_URL, the
// seeded load database; it only rewrites insights_monthly).
import type { AppContext } from '../src/server/context'
import type { Db } from '../src/server/db/client'
import { connectPostgres } from '../src/server/db/client'
import {
  monthOf,
  readMonthlyInsights,
  readNeedsYou,
  readNowFigures,
} from '../src/server/modules/insights/insights.repo'
import { adminInsights, rebuildInsights, refreshStaleInsights } from '../src/server/modules/insights/insights.service'
import { measure, printTable, type Timing } from './stats'

export const adminHomeTargetMs = 50

export async function adminHomeBenchmarks(db: Db, options: { runs?: number } = {}) {
  const now = new Date()
  const rebuild = await measure('monthly aggregates: full rebuild (12 months)', () => rebuildInsights(db, now), {
    runs: 1,
    warmup: 0,
  })
  // Each tick at a later instant, as the billing tick does (the current month is never final).
  const refresh = await measure(
    'monthly aggregates: billing tick (months not final)',
    () => refreshStaleInsights(db, new Date()),
    { runs: 5, warmup: 1 },
  )
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
  return { results, refresh, rebuild }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.BENCH_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/billing_bench'
  const database = connectPostgres(url, { max: 4 })
  const home = await adminHomeBenchmarks(database.db)
  printTable(`Visão geral do negócio (alvo: p95 ≤ ${adminHomeTargetMs} ms)`, home.results, adminHomeTargetMs)
  printTable('Agregados mensais (sem alvo)', [home.refresh, home.rebuild])
  process.exit(0)
}
