// Load: 200 simulated customers for 60 s against the real server (one process, jobs on) on a PostgreSQL cluster of
// its own (test/faults/harness.ts). Each customer: opens the plans, signs in (password hashing included), opens the
// dashboard (session, subscriptions, payments), creates a PIX checkout, and the admin confirms the payment; then the
// next customer takes its place. Targets: zero 5xx, p95 < 200 ms and p99 < 400 ms (sign-in < 1 s), resident memory
// < 250 MB, invariants clean afterwards. LOAD_CUSTOMERS, LOAD_SECONDS and LOAD_THINK_MS change the shape.
// The server is the compiled one (dist/server/main.js, built first) in production mode, as `npm start` runs it.
import { readFileSync } from 'node:fs'
import { mkdtempSync, rmSync } from 'node:fs'
import { scryptSync } from 'node:crypto'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { SMTPServer } from 'smtp-server'
import { checkInvariants } from '../src/server/db/invariants'
import { billingTemplates } from '../src/server/modules/lifecycle/notification-templates'
import { type FakeGraph, startFakeGraph } from '../src/server/test/fake-graph/fake-graph'
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
import { buildServer } from './api.bench'
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

/** An SMTP server on loopback that accepts and drops every message (production requires SMTP_URL). */
async function startSmtpSink(): Promise<{ url: string; close: () => Promise<void> }> {
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => {})
      stream.on('end', () => callback())
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  const address = smtp.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return { url: `smtp://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) }
}

/** CPU seconds (user + system, every thread) the process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/** CPU milliseconds of one password hash with better-auth's parameters, measured here (synchronous scrypt). */
function hashCpuMs(): number {
  const started = process.cpuUsage()
  for (let i = 0; i < 3; i++)
    scryptSync('senha-segura-123', 'sal', 64, { N: 16384, r: 16, p: 1, maxmem: 64 * 1024 * 1024 })
  const used = process.cpuUsage(started)
  return (used.user + used.system) / 1000 / 3
}

export type LoadResult = {
  rows: Timing[]
  failures: string[]
  errors5xx: number
  /** Requests the client gave up on (15 s) or whose connection failed: status 0. */
  noAnswer: number
  /** Every answer that was not the expected one, counted by route, status and error code. */
  unexpected: Map<string, number>
  /** Distinct error lines the server logged (at most 10), with their count. */
  serverErrors: Map<string, number>
  loadAverage: { before: number; after: number }
  /** The server's CPU during the load, and what one password hash costs: capacity on an idle machine. */
  cpu: { serverS: number; wallS: number; hashed: number; hashMs: number; cores: number; demandPerS: number }
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
  let graph: FakeGraph | undefined
  let smtp: Awaited<ReturnType<typeof startSmtpSink>> | undefined
  const loadBefore = loadavg()[0] ?? 0
  try {
    buildServer()
    await cluster.init()
    const database = await prepare(cluster.url)
    // Production refuses the dev outbox: WhatsApp goes to the Graph API fake, e-mail to an SMTP sink.
    graph = await startFakeGraph({
      templates: {
        codigo_verificacao: { bodyParams: 1, urlButton: true },
        ...Object.fromEntries(Object.values(billingTemplates).map((b) => [b.name, { bodyParams: b.params.length }])),
      },
    })
    smtp = await startSmtpSink()
    server = await startProcess(
      'server',
      baseEnv(cluster, dir, {
        RUN_JOBS: 'true',
        NODE_ENV: 'production',
        // Production's required settings, pointed at nothing (no e-mail leaves; no card is charged in the load).
        STRIPE_SECRET_KEY: 'sk_test_load',
        STRIPE_WEBHOOK_SECRET: 'whsec_load',
        SMTP_URL: smtp.url,
        ...graph.env(),
        // The admin who confirms the payments has no authenticator app in the load.
        ADMIN_MFA: 'optional',
      }),
    )
    const base = server.url
    const admin = { email: adminEmail, ip: '10.250.0.1', cookie: '' }
    await signIn(base, admin)
    // Enough fresh customers for every journey (about one per customer every 6 think times, with room to spare).
    const needed = Math.ceil(users * (seconds / ((6 * thinkMs) / 1000 + 0.5)) * 1.5) + users
    const pool: Customer[] = await createCustomers(database.pool!, needed, 'load')
    const samples = new Map<string, number[]>()
    let errors5xx = 0
    let signInAnswers = 0
    let noAnswer = 0
    const unexpected = new Map<string, number>()
    let requests = 0
    let journeys = 0
    const failures: string[] = []
    const record = (name: string, answer: { ms: number; status: number; body: unknown }, expected: number) => {
      requests++
      const list = samples.get(name) ?? []
      list.push(answer.ms)
      samples.set(name, list)
      if (answer.status >= 500) errors5xx++
      if (answer.status === 0) noAnswer++
      if (answer.status !== expected) {
        const body = answer.body as { code?: unknown } | string
        const code = typeof body === 'object' && body && 'code' in body ? String(body.code) : String(body).slice(0, 80)
        const key = `${name} → ${answer.status} ${code}`
        unexpected.set(key, (unexpected.get(key) ?? 0) + 1)
        if (failures.length < 5) failures.push(`${name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`)
      }
      return answer.status === expected
    }
    const hashMs = hashCpuMs()
    const cpuBefore = cpuSeconds(server.child.pid)
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
        if (signed.status === 200 || signed.status === 401) signInAnswers++
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
    const serverCpuS = cpuSeconds(server.child.pid) - cpuBefore
    const wallS = (Date.now() - until) / 1000 + seconds

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
    const serverErrors = new Map<string, number>()
    for (const line of server.output) {
      let message = line.slice(0, 160)
      try {
        const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } }
        if ((entry.level ?? 0) < 50) continue
        message = `${entry.msg ?? ''}${entry.err?.message ? `: ${entry.err.message}` : ''}`.slice(0, 160)
      } catch {
        // not a pino line (a warning printed by node): kept as it is
      }
      if (serverErrors.has(message) || serverErrors.size < 10)
        serverErrors.set(message, (serverErrors.get(message) ?? 0) + 1)
    }
    return {
      rows,
      failures,
      errors5xx,
      noAnswer,
      unexpected,
      serverErrors,
      loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
      requests,
      journeys,
      maxRssMb: maxRss,
      invariantViolations: report.violations.length,
      cpu: {
        serverS: serverCpuS,
        wallS,
        // Answered 200 or 401: the password was hashed (a 503 or a timed-out attempt may not have been).
        hashed: signInAnswers,
        // Each customer signs in once per journey of five pauses: the rate the load asks for at zero latency.
        demandPerS: users / ((5 * thinkMs) / 1000),
        hashMs,
        cores: availableParallelism(),
      },
    }
  } finally {
    if (server) await stopGracefully(server)
    await graph?.close()
    await smtp?.close()
    cluster.destroy()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Prints the load table and returns the broken targets (empty when all hold). */
export function reportLoad(result: LoadResult, shape: string): string[] {
  printTable(`Carga: ${shape}`, result.rows)
  console.log(
    `Requisições: ${result.requests}, jornadas completas: ${result.journeys}, 5xx: ${result.errors5xx}, ` +
      `sem resposta: ${result.noAnswer}, ` +
      `memória residente máxima: ${result.maxRssMb.toFixed(0)} MB (alvo < ${loadTargets.rssMb} MB), ` +
      `invariantes violadas: ${result.invariantViolations}, ` +
      `carga da máquina (loadavg 1 min): ${result.loadAverage.before.toFixed(1)} antes, ${result.loadAverage.after.toFixed(1)} depois`,
  )
  const { cpu } = result
  console.log(
    `CPU do servidor: ${cpu.serverS.toFixed(1)} s em ${cpu.wallS.toFixed(0)} s de carga ` +
      `(${((100 * cpu.serverS) / cpu.wallS).toFixed(0)}% de um núcleo); um hash de senha custa ` +
      `${cpu.hashMs.toFixed(0)} ms de CPU (${cpu.hashed} entradas respondidas ≈ ` +
      `${((cpu.hashed * cpu.hashMs) / 1000).toFixed(1)} s); a carga pede ≈ ${cpu.demandPerS.toFixed(0)} entradas/s, ` +
      `${((cpu.demandPerS * cpu.hashMs) / 1000).toFixed(1)} núcleos só de hashes (a máquina tem ${cpu.cores})`,
  )
  for (const [key, count] of [...result.unexpected].sort((a, b) => b[1] - a[1]))
    console.log(`  resposta inesperada ×${count}: ${key}`)
  for (const f of result.failures) console.log(`  exemplo: ${f}`)
  for (const [message, count] of result.serverErrors) console.log(`  erro no log do servidor ×${count}: ${message}`)
  const broken: string[] = []
  if (result.errors5xx > 0) broken.push(`${result.errors5xx} respostas 5xx`)
  if (result.noAnswer > 0) broken.push(`${result.noAnswer} requisições sem resposta`)
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
