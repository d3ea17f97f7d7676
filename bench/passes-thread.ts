// The billing passes of bench/billing-passes.bench.ts in a worker thread, as an API process on PostgreSQL runs its
// jobs (src/server/jobs-thread.ts): its own app context on the copy; for each day, the clock at that day and the
// named passes run in rounds until a round finds nothing (or limitS). Posts each round's line and, last, each day's
// time and totals.
import { parentPort, workerData } from 'node:worker_threads'
import { buildApp } from '../src/server/app'
import { loadConfig } from '../src/server/config'
import { connectPostgres } from '../src/server/db/client'
import { detectionPasses, runPasses } from '../src/server/modules/lifecycle/lifecycle.service'

export type PassesInput = {
  url: string
  days: { label: string; futureMs: number }[]
  passNames: string[]
  limitS: number
}
export type DayResult = { label: string; seconds: number; finished: boolean; totals: Record<string, number> }
export type PassesMessage = { kind: 'round'; line: string } | { kind: 'done'; days: DayResult[] }

const input = workerData as PassesInput
const database = connectPostgres(input.url)
const app = await buildApp({ config: loadConfig(), database, logger: false })
const passes = detectionPasses.filter(([name]) => input.passNames.includes(name))

/** The passes in rounds with the clock at `futureMs` until a round finds nothing (or limitS). */
async function runDay(label: string, futureMs: number): Promise<DayResult> {
  const future = new Date(futureMs)
  const deps = { ...app.ctx, now: () => future, log: app.log }
  const totals: Record<string, number> = {}
  const started = performance.now()
  while ((performance.now() - started) / 1000 < input.limitS) {
    const report: Record<string, number> = {}
    const times: string[] = []
    for (const pass of passes) {
      const passStarted = performance.now()
      Object.assign(report, await runPasses(deps, [pass]))
      times.push(`${pass[0]} ${report[pass[0]]} in ${((performance.now() - passStarted) / 1000).toFixed(1)} s`)
    }
    parentPort?.postMessage({ kind: 'round', line: `${label}: ${times.join(', ')}` } satisfies PassesMessage)
    for (const [name, n] of Object.entries(report)) totals[name] = (totals[name] ?? 0) + n
    if (Object.values(report).every((n) => n === 0))
      return { label, seconds: (performance.now() - started) / 1000, finished: true, totals }
  }
  return { label, seconds: (performance.now() - started) / 1000, finished: false, totals }
}

const days: DayResult[] = []
for (const day of input.days) days.push(await runDay(day.label, day.futureMs))
await app.close()
await database.close()
parentPort?.postMessage({ kind: 'done', days } satisfies PassesMessage)
