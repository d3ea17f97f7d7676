// API throughput against the floor: the compiled server (dist/server/main.js, NODE_ENV=production) and a bare
// `node:http` + `pg` server running the same SQL (bench/bare-server.ts), both on the bench PostgreSQL, in the same
// run, alternating, with autocannon at 64 connections. The customer calls carry one signed session cookie of a load
// customer (a session row inserted for the run and deleted after). Also samples the server's resident memory, and
// times `npm start` on an existing build with PGlite. Standalone: `npm run bench:api` (BENCH_DATABASE_URL).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { createHmac, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import autocannon from 'autocannon'
import pg from 'pg'
import { freePort } from '../src/server/test/free-port'
import { startCommand } from '../test/faults/harness'
import { printTargets, residentMb, type TargetRow } from './targets'

const root = path.resolve(import.meta.dirname, '..')
export const apiTargets = { ratio: 0.8, p99Ms: 25, rssMb: 250, startMs: 3000 }
const connections = 64
const seconds = Number(process.env.BENCH_API_SECONDS ?? 8)
const secret = randomBytes(32).toString('hex')

export async function waitFor(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`o processo terminou (código ${child.exitCode}) antes de responder`)
    try {
      const res = await fetch(url)
      if (res.ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`${url} não respondeu em ${timeoutMs} ms`)
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

/** The bench measures the code as it is now: the server is compiled again first (about a second). */
export function buildServer(): void {
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-server.ts'], {
    cwd: root,
    stdio: 'inherit',
  })
  if (built.status !== 0) throw new Error('falha ao compilar o servidor')
}

export function startApp(env: Record<string, string>): ChildProcess {
  // As `npm start` runs it (its node flags and variables, from package.json).
  return spawn(process.execPath, [...startCommand.flags, 'dist/server/main.js'], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...startCommand.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
}

export function productionEnv(port: number, extra: Record<string, string>): Record<string, string> {
  return {
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    APP_URL: `http://127.0.0.1:${port}`,
    AUTH_SECRET: secret,
    STRIPE_SECRET_KEY: 'sk_test_bench',
    STRIPE_WEBHOOK_SECRET: 'whsec_bench',
    SMTP_URL: 'smtp://127.0.0.1:9',
    WHATSAPP_TOKEN: 'bench',
    WHATSAPP_PHONE_NUMBER_ID: '1',
    WHATSAPP_API_URL: 'http://127.0.0.1:9',
    RUN_JOBS: 'false',
    ...extra,
  }
}

/** A session row for one load customer, and its signed cookie as better-auth would set it. */
export async function benchSession(url: string): Promise<{ cookie: string; cleanup: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ id: string }>(
      `select u.id from profiles u where u.email like '%@carga.example.com.br'
       and exists (select 1 from subscriptions s join payments p on p.subscription_id = s.id where s.user_id = u.id)
       order by u.id limit 1`,
    )
    const userId = rows[0]?.id
    if (!userId) throw new Error('sem clientes da carga de teste (npm run db:seed-load)')
    const id = `bench_${randomBytes(8).toString('hex')}`
    const token = randomBytes(24).toString('base64url')
    await client.query(
      `insert into sessions (id, token, user_id, expires_at, created_at, updated_at)
       values ($1, $2, $3, now() + interval '7 days', now(), now())`,
      [id, token, userId],
    )
    const signature = createHmac('sha256', secret).update(token).digest('base64')
    return {
      cookie: `billing.session_token=${encodeURIComponent(`${token}.${signature}`)}`,
      cleanup: async () => {
        const c = new pg.Client({ connectionString: url })
        await c.connect()
        await c.query('delete from sessions where id = $1', [id]).finally(() => c.end())
      },
    }
  } finally {
    await client.end()
  }
}

type Measured = { requests: number; seconds: number; p99: number; errors: number }

async function hammer(base: string, route: string, cookie: string, duration: number): Promise<Measured> {
  const result = await autocannon({ url: `${base}${route}`, connections, duration, headers: { cookie } })
  return {
    requests: result.requests.total,
    seconds: result.duration,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  }
}

/** Two halves of one server's measurement: requests per second over both, p99 the mean of the two. */
function combined(first: Measured, second: Measured) {
  return {
    rps: (first.requests + second.requests) / (first.seconds + second.seconds),
    p99: Math.round((first.p99 + second.p99) / 2),
    errors: first.errors + second.errors,
  }
}

export const apiRoutes = [
  { name: 'GET /api/plans', route: '/api/plans' },
  { name: 'GET /api/auth/session', route: '/api/auth/session' },
  { name: 'GET /api/subscriptions', route: '/api/subscriptions' },
  { name: 'GET /api/payments', route: '/api/payments' },
]

export async function apiBenchmark(databaseUrl: string): Promise<TargetRow[]> {
  buildServer()
  const session = await benchSession(databaseUrl)
  const [appPort, barePort] = [await freePort(), await freePort()]
  const app = startApp(productionEnv(appPort, { DATABASE_URL: databaseUrl }))
  const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, PORT: String(barePort), AUTH_SECRET: secret },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  let peakRss = 0
  const sampler = setInterval(() => {
    if (app.pid)
      void residentMb(app.pid).then((mb) => {
        if (mb !== null) peakRss = Math.max(peakRss, mb)
      })
  }, 100)
  const rows: TargetRow[] = []
  try {
    const appBase = `http://127.0.0.1:${appPort}`
    const bareBase = `http://127.0.0.1:${barePort}`
    await Promise.all([waitFor(`${appBase}/api/health`, app), waitFor(`${bareBase}/api/health`, bare)])
    for (const { name, route } of apiRoutes) {
      // Warm both (JIT, pools, caches), then measure them in the order app, bare, bare, app, half the time each:
      // a drift of the machine during the four runs (another process, the page cache, PostgreSQL's autovacuum)
      // weighs on both alike, and neither always runs first.
      await hammer(appBase, route, session.cookie, 2)
      await hammer(bareBase, route, session.cookie, 2)
      const half = seconds / 2
      const a1 = await hammer(appBase, route, session.cookie, half)
      const b1 = await hammer(bareBase, route, session.cookie, half)
      const b2 = await hammer(bareBase, route, session.cookie, half)
      const a2 = await hammer(appBase, route, session.cookie, half)
      const [a, b] = [combined(a1, a2), combined(b1, b2)]
      const ratio = a.rps / b.rps
      const errors = a.errors + b.errors > 0 ? ` (${a.errors}/${b.errors} erros)` : ''
      rows.push({
        figure: `${name}: req/s app ÷ bare`,
        target: `≥ ${apiTargets.ratio}`,
        measured: `${ratio.toFixed(2)} (${Math.round(a.rps)} ÷ ${Math.round(b.rps)})${errors}`,
        pass: ratio >= apiTargets.ratio && a.errors === 0,
      })
      rows.push({
        figure: `${name}: p99 at ${connections} connections`,
        target: `< ${apiTargets.p99Ms} ms`,
        measured: `${a.p99} ms (bare ${b.p99} ms)`,
        pass: a.p99 < apiTargets.p99Ms,
      })
    }
  } finally {
    clearInterval(sampler)
    await Promise.all([stop(app), stop(bare)])
    await session.cleanup()
  }
  rows.push({
    figure: 'server resident memory, peak through the API bench',
    target: `< ${apiTargets.rssMb} MB`,
    measured: `${Math.round(peakRss)} MB`,
    pass: peakRss > 0 && peakRss < apiTargets.rssMb,
  })
  return rows
}

/** `npm start` on an existing build and an existing embedded database: spawn to GET /api/health answering 200. */
export async function startBenchmark(): Promise<TargetRow> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-start-'))
  try {
    const port = await freePort()
    const env = { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }
    const health = `http://127.0.0.1:${port}/api/health`
    const first = startApp(env) // creates, migrates and seeds the database
    await waitFor(health, first, 120_000)
    await stop(first)
    const times: number[] = []
    for (let i = 0; i < 3; i++) {
      const started = performance.now()
      const child = startApp(env)
      await waitFor(health, child)
      times.push(performance.now() - started)
      await stop(child)
    }
    times.sort((a, b) => a - b)
    const median = times[1] ?? 0
    return {
      figure: 'npm start to healthy (existing build, PGlite), median of 3',
      target: `< ${apiTargets.startMs / 1000} s`,
      measured: `${(median / 1000).toFixed(2)} s`,
      pass: median < apiTargets.startMs,
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

async function main(): Promise<number> {
  const url = process.env.BENCH_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/billing_bench'
  const rows = await apiBenchmark(url)
  rows.push(await startBenchmark())
  printTargets('API (servidor compilado × node:http + pg, mesma execução)', rows)
  return rows.every((r) => r.pass !== false) ? 0 : 1
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error)
    return 1
  })
}
