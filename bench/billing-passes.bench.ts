// The billing passes at scale: a copy of the load database (200 000 subscriptions) where every subscription still
// in force is a PIX one, and the clock 31 days ahead, so that the renewal pass has an invoice to issue for each of
// them and the overdue and notification passes have their share. Runs the renewal, overdue and notification passes
// (as the billing tick does, until nothing is left) and meanwhile customers read their subscriptions at a fixed rate
// from two servers: the compiled server in a process of its own (the passes in `npm run worker`) and the app whose
// process runs the passes in a worker thread (bench/passes-thread.ts: the jobs thread `npm start` runs on PostgreSQL
// unless RUN_JOBS=false). Prints how long the passes took and each customer's p99.
// Standalone: `npm run bench:passes` (BENCH_DATABASE_URL: the seeded load database; `<name>_passes` is its copy, or
// BENCH_PASSES_COPY; BENCH_PASSES_VERBOSE=1 prints each pass's time per round; BENCH_PASSES_READS_PER_S: the
// customer reads' rate, 100 by default).
import { type ChildProcess, fork } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { addDays } from '../src/domain/billing-period'
import { buildApp } from '../src/server/app'
import { loadConfig } from '../src/server/config'
import { connectPostgres } from '../src/server/db/client'
import { demoPixSettings } from '../src/server/db/seed'
import { jobsThreadLimits, moduleWorker } from '../src/server/jobs-thread'
import { overdueGraceDays } from '../src/server/modules/lifecycle/notification-templates'
import { freePort } from '../src/server/test/free-port'
import { benchSession, buildServer, productionEnv, startApp, stop, waitFor } from './api.bench'
import type { DayResult, PassesInput, PassesMessage } from './passes-thread'
import { printTargets, type TargetRow } from './targets'

export const passTargets = { seconds: 60, customerP99Ms: 100 }
const passNames = ['renewals', 'overdue', 'overdue_cancellations', 'notifications']
const limitS = Number(process.env.BENCH_PASSES_LIMIT_S ?? 120)

function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

/**
 * Applies to the copy the migrations the load database lacks (drizzle's migrator skips a migration numbered below the
 * last one applied, as a branch numbered below main's newest would be), so the passes run against the current schema.
 */
async function applyMissingMigrations(client: pg.Client): Promise<void> {
  const folder = new URL('../src/server/db/migrations/', import.meta.url)
  const journal = JSON.parse(readFileSync(new URL('meta/_journal.json', folder), 'utf8')) as {
    entries: { tag: string; when: number }[]
  }
  const { rows } = await client.query<{ hash: string }>('select hash from drizzle.__drizzle_migrations')
  const applied = new Set(rows.map((r) => r.hash))
  for (const entry of journal.entries) {
    const text = readFileSync(new URL(`${entry.tag}.sql`, folder), 'utf8')
    const hash = createHash('sha256').update(text).digest('hex')
    if (applied.has(hash)) continue
    for (const statement of text.split('--> statement-breakpoint')) await client.query(statement)
    await client.query('insert into drizzle.__drizzle_migrations (hash, created_at) values ($1, $2)', [
      hash,
      entry.when,
    ])
  }
}

/** A fresh `<name>_passes` copied from the load database, every subscription in force made a PIX one. */
async function preparedCopy(url: string): Promise<{ url: string; subscriptions: number }> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1))
  const copy = process.env.BENCH_PASSES_COPY?.trim() || `${name}_passes`
  const admin = new pg.Client({ connectionString: withDatabase(url, 'postgres') })
  await admin.connect()
  try {
    await admin.query(`drop database if exists "${copy}" with (force)`)
    await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1`, [name])
    await admin.query(`create database "${copy}" template "${name}"`)
  } finally {
    await admin.end()
  }
  const copyUrl = withDatabase(url, copy)
  const client = new pg.Client({ connectionString: copyUrl })
  await client.connect()
  try {
    await applyMissingMigrations(client)
    // The load seed wrote periods with SQL's microseconds; the app writes milliseconds (a JS Date), and the renewal
    // invoice's due date is the period end read into one: at microseconds it never equals the period end again, so
    // every run would issue the renewal again (and the claim would meet the same subscriptions over and over).
    await client.query(
      `update subscriptions set
         current_period_start = date_trunc('milliseconds', current_period_start),
         current_period_end = date_trunc('milliseconds', current_period_end),
         billing_method = case when status in ('active', 'trialing') then 'pix' else billing_method end,
         cancel_at_period_end = case when status in ('active', 'trialing') then false else cancel_at_period_end end,
         status = case when status = 'trialing' then 'active' else status end`,
    )
    // PIX configured, as a shop in business has it: every invoice message carries its BR Code.
    await client.query(
      'update pix_settings set pix_key = $1, beneficiary_name = $2, beneficiary_city = $3, description = $4 where id = 1',
      [
        demoPixSettings.pixKey,
        demoPixSettings.beneficiaryName,
        demoPixSettings.beneficiaryCity,
        demoPixSettings.description,
      ],
    )
    await client.query('vacuum analyze subscriptions')
    const { rows } = await client.query<{ n: number }>('select count(*)::int as n from subscriptions')
    return { url: copyUrl, subscriptions: rows[0]?.n ?? 0 }
  } finally {
    await client.end()
  }
}

/** Customer reads during the passes: this many a second, on 4 connections, whatever the answers take. */
export const customerReadsPerSecond = Number(process.env.BENCH_PASSES_READS_PER_S ?? 100)

/**
 * The customers (bench/customer-reads.ts) in a process of their own; `stop()` answers their latencies, `kill()` ends
 * them without (after a failure).
 */
function startCustomers(base: string, cookie: string): { stop(): Promise<number[]>; kill(): void } {
  const child = fork(new URL('./customer-reads.ts', import.meta.url), [], { execArgv: ['--import', 'tsx'] })
  const samples = new Promise<number[]>((resolve, reject) => {
    child.once('message', (value) => resolve(value as number[]))
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`the customers' process ended (${code}) before its answer`)))
  })
  samples.catch(() => undefined) // killed after a failure: that failure is the one reported
  child.send({ base, cookie, readsPerSecond: customerReadsPerSecond })
  return {
    async stop() {
      child.send('stop')
      return samples
    },
    kill() {
      if (child.exitCode === null) child.kill()
    },
  }
}

/** A customer's p99 row: latencies (sorted) of GET /api/subscriptions during the passes, `where` they ran. */
function customerRow(where: string, samples: number[]): TargetRow {
  const at = (q: number) => samples[Math.max(0, Math.ceil(samples.length * q) - 1)] ?? 0
  const p99 = at(0.99)
  return {
    figure: `a customer request (GET /api/subscriptions, ${customerReadsPerSecond}/s) during the passes, p99; ${where}`,
    target: `< ${passTargets.customerP99Ms} ms`,
    measured: `${p99.toFixed(0)} ms (p50 ${at(0.5).toFixed(0)}, p90 ${at(0.9).toFixed(0)}, max ${at(1).toFixed(0)}; ${samples.length} requests)`,
    pass: p99 < passTargets.customerP99Ms,
  }
}

/** The passes in a worker thread of this process (bench/passes-thread.ts), as the API process runs its jobs. */
function runPassesThread(input: PassesInput): Promise<Extract<PassesMessage, { kind: 'done' }>> {
  const thread = moduleWorker(new URL('./passes-thread.ts', import.meta.url), {
    workerData: input,
    resourceLimits: jobsThreadLimits,
  })
  return new Promise((resolve, reject) => {
    thread.on('message', (message: PassesMessage) => {
      if (message.kind === 'round') {
        if (process.env.BENCH_PASSES_VERBOSE) console.log(message.line)
      } else resolve(message)
    })
    thread.once('error', reject)
    thread.once('exit', (code) => reject(new Error(`the passes' thread ended (${code}) before its answer`)))
  })
}

export async function billingPassesBenchmark(databaseUrl: string): Promise<TargetRow[]> {
  buildServer()
  const copy = await preparedCopy(databaseUrl)
  const session = await benchSession(copy.url)
  const port = await freePort()
  const server: ChildProcess = startApp(productionEnv(port, { DATABASE_URL: copy.url }))
  const env = productionEnv(port, { DATABASE_URL: copy.url, LOG_LEVEL: 'silent' })
  for (const [key, value] of Object.entries(env)) process.env[key] = value
  const database = connectPostgres(copy.url)
  const app = await buildApp({ config: loadConfig(), database, logger: false })
  const customers: ReturnType<typeof startCustomers>[] = []
  try {
    const base = `http://127.0.0.1:${port}`
    await waitFor(`${base}/api/health`, server)
    // This process serves requests while its thread runs the passes: a customer of an API process running the jobs.
    const ownPort = await freePort()
    await app.listen({ port: ownPort, host: '127.0.0.1' })
    customers.push(startCustomers(base, session.cookie), startCustomers(`http://127.0.0.1:${ownPort}`, session.cookie))
    const catchUp = addDays(new Date(), 31)
    const result = await runPassesThread({
      url: copy.url,
      days: [
        { label: 'the catch-up', futureMs: catchUp.getTime() },
        // The grace counts from the renewal's issue (graceEndsAt): the overdue ones are canceled a week later.
        { label: 'the cancellations', futureMs: addDays(catchUp, overdueGraceDays + 1).getTime() },
      ],
      passNames,
      limitS,
    })
    const [apart, shared] = await Promise.all(customers.map((c) => c.stop()))
    const [catchUpDay, cancellationDay] = result.days
    if (!catchUpDay || !cancellationDay) throw new Error("the passes' thread answered without its two days")
    const dayRow = (figure: string, day: DayResult): TargetRow => {
      const done = Object.entries(day.totals)
        .filter(([, n]) => n > 0)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ')
      return {
        figure,
        target: `< ${passTargets.seconds} s`,
        measured: day.finished
          ? `${day.seconds.toFixed(1)} s (${done})`
          : `unfinished after ${day.seconds.toFixed(0)} s (${done})`,
        pass: day.finished && day.seconds < passTargets.seconds,
      }
    }
    return [
      dayRow(
        `renewal, overdue and notification passes over ${copy.subscriptions} subscriptions, the clock 31 days ahead`,
        catchUpDay,
      ),
      dayRow(`the same passes ${overdueGraceDays + 1} days later: the overdue ones canceled`, cancellationDay),
      customerRow('the passes in a worker process', apart ?? []),
      customerRow("the passes in the API process's jobs thread", shared ?? []),
    ]
  } finally {
    for (const c of customers) c.kill()
    await app.close()
    await database.close()
    await stop(server)
  }
}

async function main(): Promise<number> {
  const url = process.env.BENCH_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/billing_bench'
  const rows = await billingPassesBenchmark(url)
  printTargets('Ciclo de cobrança em escala (PostgreSQL)', rows)
  return rows.every((r) => r.pass !== false) ? 0 : 1
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error)
    return 1
  })
}
