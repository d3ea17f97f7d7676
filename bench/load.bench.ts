// Load: 200 simulated customers for 60 s against the real server (one process, jobs on) on a PostgreSQL cluster of
// its own (test/faults/harness.ts). Each customer: opens the plans, signs in (password hashing included), opens the
// dashboard (session, subscriptions, payments), creates a PIX checkout, and the admin confirms the payment; then the
// next customer takes its place. Targets: zero 5xx, p95 < 200 ms and p99 < 400 ms (sign-in < 1 s), resident memory
// < 250 MB, invariants clean afterwards. LOAD_CUSTOMERS, LOAD_SECONDS and LOAD_THINK_MS change the shape.
import { readFileSync } from 'node:fs'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { checkInvariants } from '../src/server/db/invariants'
import {
  adminEmail,
  type AppProcess,
  baseEnv,
  Cluster,
  type Customer,
  call,
  createCustomers,
  prepare,
  signIn,
  sleep,
  startProcess,
  stopGracefully,
} from '../test/faults/harness'
import { printTable, type Timing } from './stats'

export const loadTargets = { p95Ms: 200, p99Ms: 400, signInMs: 1000, rssMb: 250 }

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0
}

function rssMb(pid: number | undefined): number {
  if (!pid) return 0
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : 0
  } catch {
    return 0
  }
}

export type LoadResult = {
  rows: Timing[]
  failures: string[]
  errors5xx: number
  requests: number
  journeys: number
  maxRssMb: number
  invariantViolations: number
}

export async function loadBenchmark(
  options: { customers?: number; seconds?: number; thinkMs?: number } = {},
): Promise<LoadResult> {
  const users = options.customers ?? Number(process.env.LOAD_CUSTOMERS ?? 200)
  const seconds = options.seconds ?? Number(process.env.LOAD_SECONDS ?? 60)
  const thinkMs = options.thinkMs ?? Number(process.env.LOAD_THINK_MS ?? 1000)
  const cluster = new Cluster()
  const dir = mkdtempSync(path.join(tmpdir(), 'load-'))
  let server: AppProcess | undefined
  try {
    await cluster.init()
    const database = await prepare(cluster.url)
    server = await startProcess('server', baseEnv(cluster, dir, { RUN_JOBS: 'true' }))
    const base = server.url
    const admin = { email: adminEmail, ip: '10.250.0.1', cookie: '' }
    await signIn(base, admin)
    // Enough fresh customers for every journey (about one per customer every 6 think times, with room to spare).
    const needed = Math.ceil(users * (seconds / ((6 * thinkMs) / 1000 + 0.5)) * 1.5) + users
    const pool: Customer[] = await createCustomers(database.pool!, needed, 'load')
    const samples = new Map<string, number[]>()
    let errors5xx = 0
    let requests = 0
    let journeys = 0
    const failures: string[] = []
    const record = (name: string, answer: { ms: number; status: number; body: unknown }, expected: number) => {
      requests++
      const list = samples.get(name) ?? []
      list.push(answer.ms)
      samples.set(name, list)
      if (answer.status >= 500 || answer.status === 0) errors5xx++
      if (answer.status !== expected && failures.length < 10)
        failures.push(`${name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`)
      return answer.status === expected
    }
    let maxRss = rssMb(server.child.pid)
    const sampler = setInterval(() => {
      maxRss = Math.max(maxRss, rssMb(server?.child.pid))
    }, 500)
    const until = Date.now() + seconds * 1000
    const think = () => sleep(thinkMs * (0.5 + Math.random()))

    const virtualUser = async (index: number) => {
      await sleep((index / users) * thinkMs * 2) // ramp up over two think times
      while (Date.now() < until) {
        const c = pool.pop()
        if (!c) return
        const o = { ip: c.ip }
        if (!record('GET /api/plans', await call(base, 'GET', '/api/plans', o), 200)) continue
        await think()
        const signed = await call(base, 'POST', '/api/auth/sign-in', {
          ...o,
          body: { email: c.email, password: 'senha-segura-123' },
        })
        if (!record('POST /api/auth/sign-in', signed, 200)) continue
        const cookie = signed.setCookie
        await think()
        record('GET /api/auth/session', await call(base, 'GET', '/api/auth/session', { ...o, cookie }), 200)
        record('GET /api/subscriptions', await call(base, 'GET', '/api/subscriptions', { ...o, cookie }), 200)
        record('GET /api/payments', await call(base, 'GET', '/api/payments', { ...o, cookie }), 200)
        await think()
        const checkout = await call(base, 'POST', '/api/checkout/pix', {
          ...o,
          cookie,
          body: { plan_id: 'plan_basic' },
        })
        if (!record('POST /api/checkout/pix', checkout, 200)) continue
        const payment = (checkout.body as { payment: { id: string; amountCents: number } }).payment
        await think()
        const confirm = await call(base, 'POST', `/api/admin/payments/${payment.id}/confirm`, {
          ip: admin.ip,
          cookie: admin.cookie,
          body: { amount_received_cents: payment.amountCents },
        })
        record('POST /api/admin/payments/:id/confirm', confirm, 200)
        await think()
        record('GET /api/payments (pago)', await call(base, 'GET', '/api/payments', { ...o, cookie }), 200)
        journeys++
      }
    }
    await Promise.all(Array.from({ length: users }, (_, i) => virtualUser(i)))
    clearInterval(sampler)
    maxRss = Math.max(maxRss, rssMb(server.child.pid))

    const rows: Timing[] = [...samples.entries()].map(([name, list]) => {
      const sorted = [...list].sort((a, b) => a - b)
      const p99 = percentile(sorted, 99)
      const target = name.includes('sign-in') ? loadTargets.signInMs : loadTargets.p95Ms
      return {
        name,
        runs: sorted.length,
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
        max: sorted.at(-1) ?? 0,
        note: `p99 ${p99.toFixed(1)} ms (alvo p95 ${target} ms${name.includes('sign-in') ? '' : `, p99 ${loadTargets.p99Ms} ms`})`,
      }
    })
    const report = await checkInvariants(database.db)
    await database.close()
    return {
      rows,
      failures,
      errors5xx,
      requests,
      journeys,
      maxRssMb: maxRss,
      invariantViolations: report.violations.length,
    }
  } finally {
    if (server) await stopGracefully(server)
    cluster.destroy()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Prints the load table and returns the broken targets (empty when all hold). */
export function reportLoad(result: LoadResult, shape: string): string[] {
  printTable(`Carga: ${shape}`, result.rows)
  console.log(
    `Requisições: ${result.requests}, jornadas completas: ${result.journeys}, 5xx: ${result.errors5xx}, ` +
      `memória residente máxima: ${result.maxRssMb.toFixed(0)} MB (alvo < ${loadTargets.rssMb} MB), ` +
      `invariantes violadas: ${result.invariantViolations}`,
  )
  for (const f of result.failures) console.log(`  resposta inesperada: ${f}`)
  const broken: string[] = []
  if (result.errors5xx > 0) broken.push(`${result.errors5xx} respostas 5xx`)
  for (const r of result.rows) {
    const signIn = r.name.includes('sign-in')
    const p99 = Number(/p99 ([\d.]+)/.exec(r.note ?? '')?.[1] ?? 0)
    if (signIn ? r.p95 > loadTargets.signInMs : r.p95 > loadTargets.p95Ms) broken.push(`${r.name} p95`)
    if (!signIn && p99 > loadTargets.p99Ms) broken.push(`${r.name} p99`)
  }
  if (result.maxRssMb >= loadTargets.rssMb) broken.push('memória')
  if (result.invariantViolations > 0) broken.push('invariantes')
  return broken
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const users = Number(process.env.LOAD_CUSTOMERS ?? 200)
  const seconds = Number(process.env.LOAD_SECONDS ?? 60)
  const broken = reportLoad(await loadBenchmark(), `${users} clientes por ${seconds} s, PostgreSQL próprio`)
  if (broken.length > 0) console.error(`Fora do alvo: ${broken.join(', ')}`)
  process.exitCode = broken.length > 0 ? 1 : 0
}
