// Load: 200 simulated customers for 60 s against the real server (the compiled dist/server/main.js in production
// mode, as `npm start` runs it; one process, jobs on) on a PostgreSQL cluster of its own (test/faults/harness.ts),
// with PIX through the fake PSP (API Pix over mutual TLS, src/server/test/fake-psp/).
// Run alone: `npx tsx bench/load.bench.ts` (it compiles the server first); `npm run bench` runs it last.
//
// The model: each simulated customer is one person with an account (made in the database beforehand, verified)
// who arrives once, at a moment spread evenly (with jitter) over the ramp, the first LOAD_RAMP_SECONDS (default:
// two thirds of the run, 40 s), and then stays until the end. On arrival: opens the plans, signs in ONCE
// (password hashing included), opens the dashboard (session, subscriptions, payments), creates a PIX checkout (the
// server creates the charge at the PSP), pays it in the bank app (the fake PSP records the PIX; its callback to
// /api/webhooks/pix is posted by the bench, the fake's own delivery dropped, as test/faults/crash.ts does), then
// looks at the payments until the invoice is paid. For the rest of the run it keeps its session and browses: the
// dashboard again or the plans. Between two steps a human pause, uniform in 0.5-1.5 × LOAD_THINK_MS (default
// 4 s: 2-6 s). So sign-ins arrive at LOAD_CUSTOMERS / LOAD_RAMP_SECONDS a second (200 / 40 s = 5/s) during the
// ramp and none after it. What is not simulated: sign-ups (each hashes a password like a sign-in and sends a
// verification code), a browser's static files and its parallel requests, and customers who leave.
// Capacity: one hash is ≈ 90-120 ms of CPU and at most half the cores hash at once (password-hash.ts), so sign-ins
// arriving faster than ≈ (cores / 2) / 0.118 s a second (≈ 8.5/s on 2 idle cores, far fewer on a busy machine)
// queue, and beyond 32 waiting are answered 503 with Retry-After by design; the bench's customer then tries again
// after the Retry-After (5 s) and a pause, and every 503 still counts against the zero-5xx target.
// Targets: zero 5xx, p95 < 200 ms and p99 < 400 ms over every request but the sign-ins (per route printed too),
// sign-in p95 < 1 s, peak resident memory of the server process alone (VmHWM) < 250 MB, invariants clean
// afterwards. LOAD_CUSTOMERS, LOAD_SECONDS, LOAD_RAMP_SECONDS and LOAD_THINK_MS change the shape;
// LOAD_NODE_OPTIONS adds flags to the server's node (memory experiments).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { scryptSync } from 'node:crypto'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { startSmtp, type TestSmtp } from '../src/server/test/smtp'
import { pixTxidFor } from '../src/domain/pix-txid'
import { checkInvariants } from '../src/server/db/invariants'
import { billingTemplates } from '../src/server/modules/lifecycle/notification-templates'
import { type FakeGraph, startFakeGraph } from '../src/server/test/fake-graph/fake-graph'
import { type FakePsp, startFakePsp } from '../src/server/test/fake-psp/fake-psp'
import {
  type AppProcess,
  baseEnv,
  Cluster,
  type Customer,
  call,
  createCustomers,
  prepare,
  sleep,
  startProcess,
  stopGracefully,
} from '../test/faults/harness'
import { buildServer } from './api.bench'
import { printTable, type Timing } from './stats'
import type { TargetRow } from './targets'

export const loadTargets = { p95Ms: 200, p99Ms: 400, signInMs: 1000, rssMb: 250 }

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0
}

/** Megabytes of a `/proc/<pid>/status` field (VmRSS, VmHWM = peak RSS, RssAnon, RssFile), 0 when unreadable. */
function statusMb(pid: number | undefined, field: string): number {
  if (!pid) return 0
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : 0
  } catch {
    return 0
  }
}

export type ServerMemory = {
  /** The server process's peak resident memory (VmHWM: the kernel's high-water mark, not a sample). */
  peakRssMb: number
  rssMb: number
  anonMb: number
  fileMb: number
  /** V8's heap (total reserved and used) from a diagnostic report (SIGUSR2), 0 when none came. */
  heapTotalMb: number
  heapUsedMb: number
  /** The same right after start-up, before the load. */
  atStart?: Omit<ServerMemory, 'atStart'>
}

const reportsRead = new Set<string>()

/** The server's memory now: /proc for RSS, a node diagnostic report (a new one each call) for the heap. */
async function serverMemory(server: AppProcess, dir: string): Promise<ServerMemory> {
  const pid = server.child.pid
  const memory = {
    peakRssMb: statusMb(pid, 'VmHWM'),
    rssMb: statusMb(pid, 'VmRSS'),
    anonMb: statusMb(pid, 'RssAnon'),
    fileMb: statusMb(pid, 'RssFile'),
    heapTotalMb: 0,
    heapUsedMb: 0,
  }
  server.child.kill('SIGUSR2')
  for (let i = 0; i < 50; i++) {
    const file = readdirSync(dir).find((f) => f.startsWith('report.') && f.endsWith('.json') && !reportsRead.has(f))
    if (file) {
      try {
        const report = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
          javascriptHeap?: { totalMemory?: number; usedMemory?: number }
        }
        memory.heapTotalMb = (report.javascriptHeap?.totalMemory ?? 0) / 2 ** 20
        memory.heapUsedMb = (report.javascriptHeap?.usedMemory ?? 0) / 2 ** 20
        reportsRead.add(file)
        break
      } catch {
        // still being written
      }
    }
    await sleep(100)
  }
  return memory
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
  /** Shape: customers, seconds, ramp seconds, mean think time. */
  shape: { users: number; seconds: number; rampSeconds: number; thinkMs: number }
  /** Every request but the sign-ins: the overall p95 and p99 the targets apply to. */
  overall: { runs: number; p95: number; p99: number }
  memory: ServerMemory
  maxRssMb: number
  invariantViolations: number
}

export async function loadBenchmark(
  options: { customers?: number; seconds?: number; thinkMs?: number; rampSeconds?: number } = {},
): Promise<LoadResult> {
  const users = options.customers ?? Number(process.env.LOAD_CUSTOMERS ?? 200)
  const seconds = options.seconds ?? Number(process.env.LOAD_SECONDS ?? 60)
  const thinkMs = options.thinkMs ?? Number(process.env.LOAD_THINK_MS ?? 4000)
  const rampSeconds = options.rampSeconds ?? Number(process.env.LOAD_RAMP_SECONDS ?? (seconds * 2) / 3)
  const cluster = new Cluster()
  const dir = mkdtempSync(path.join(tmpdir(), 'load-'))
  let server: AppProcess | undefined
  let graph: FakeGraph | undefined
  let smtp: TestSmtp | undefined
  let psp: FakePsp | undefined
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
    // Production requires SMTP_URL: a real SMTP server on loopback takes the e-mails.
    smtp = await startSmtp()
    await smtp.mode('ok')
    psp = await startFakePsp()
    // The PSP refuses charges for another key: the demo settings take the fake's.
    await database.pool!.query('update pix_settings set pix_key = $1 where id = 1', [psp.merchantKey])
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
        ...psp.env(),
        ADMIN_MFA: 'optional',
        // A diagnostic report (heap figures) on SIGUSR2, read once the load is over: no cost until then.
        // LOAD_NODE_OPTIONS: extra flags for the server's node (memory experiments: --max-semi-space-size=…).
        NODE_OPTIONS: `--report-on-signal --report-signal=SIGUSR2 --report-directory=${dir} ${process.env.LOAD_NODE_OPTIONS ?? ''}`,
      }),
    )
    const base = server.url
    const pay = psp.controls
    // Right after start-up (migrations, pg-boss, the first requests of the health check): before any load.
    const atStart = await serverMemory(server, dir)
    const pool: Customer[] = await createCustomers(database.pool!, users, 'load')
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
    const started = Date.now()
    const until = started + seconds * 1000
    const think = () => sleep(thinkMs * (0.5 + Math.random()))
    const open = () => Date.now() < until

    const customer = async (index: number, c: Customer) => {
      // Arrivals spread evenly over the ramp, each at a random moment of its own slot.
      await sleep(((index + Math.random()) / users) * rampSeconds * 1000)
      const o = { ip: c.ip }
      record('GET /api/plans', await call(base, 'GET', '/api/plans', o), 200)
      await think()
      let cookie = ''
      while (open() && !cookie) {
        const signed = await call(base, 'POST', '/api/auth/sign-in', {
          ...o,
          body: { email: c.email, password: 'senha-segura-123' },
        })
        if (signed.status === 200 || signed.status === 401) signInAnswers++
        if (record('POST /api/auth/sign-in', signed, 200)) cookie = signed.setCookie
        // Refused (503 + Retry-After 5 s from the hashing line) or lost: the person reads the message and tries
        // again a little later.
        else {
          await sleep(5000)
          await think()
        }
      }
      const dashboard = async () => {
        record('GET /api/auth/session', await call(base, 'GET', '/api/auth/session', { ...o, cookie }), 200)
        record('GET /api/subscriptions', await call(base, 'GET', '/api/subscriptions', { ...o, cookie }), 200)
        return record('GET /api/payments', await call(base, 'GET', '/api/payments', { ...o, cookie }), 200)
      }
      if (!open()) return
      await think()
      await dashboard()
      if (!open()) return
      await think()
      const checkout = await call(base, 'POST', '/api/checkout/pix', { ...o, cookie, body: { plan_id: 'plan_basic' } })
      if (record('POST /api/checkout/pix', checkout, 200)) {
        const payment = (checkout.body as { payment: { id: string } }).payment
        await think()
        // Paid in the bank app: the PSP records the PIX and calls the server (its own delivery dropped, sent here).
        const pix = (await pay.pay({ txid: pixTxidFor(payment.id), callback: 'drop' })) as Record<string, unknown>
        record(
          'POST /api/webhooks/pix (PSP)',
          await call(base, 'POST', '/api/webhooks/pix', { body: { pix: [pix] } }),
          200,
        )
        // The page shows "pago" once the server has re-read the charge at the PSP.
        for (let look = 0; look < 5 && open(); look++) {
          await think()
          const listed = await call(base, 'GET', '/api/payments', { ...o, cookie })
          record('GET /api/payments', listed, 200)
          const rows = (listed.body as { items?: { id: string; status: string }[] } | undefined)?.items ?? []
          if (rows.some((p) => p.id === payment.id && p.status === 'paid')) {
            journeys++
            break
          }
        }
      }
      // The rest of the visit: the dashboard again, or the plans, with the same session.
      while (open()) {
        await think()
        if (!open()) break
        if (Math.random() < 0.7) await dashboard()
        else record('GET /api/plans', await call(base, 'GET', '/api/plans', { ...o, cookie }), 200)
      }
    }
    await Promise.all(pool.map((c, i) => customer(i, c)))
    const output = [...server.output]
    const memory = { ...(await serverMemory(server, dir)), atStart }
    const serverCpuS = cpuSeconds(server.child.pid) - cpuBefore
    const wallS = (Date.now() - started) / 1000

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
        note: `p99 ${p99.toFixed(1)} ms (alvo p95 ${target} ms${name.includes('sign-in') ? '' : `, p99 ${loadTargets.p99Ms} ms no total`})`,
      }
    })
    const all = [...samples.entries()]
      .filter(([name]) => !name.includes('sign-in'))
      .flatMap(([, list]) => list)
      .sort((a, b) => a - b)
    const overall = { runs: all.length, p95: percentile(all, 95), p99: percentile(all, 99) }
    const report = await checkInvariants(database.db)
    await database.close()
    const serverErrors = new Map<string, number>()
    for (const line of output) {
      // The diagnostic reports' own lines on stderr.
      if (/Node\.js report|^report\..*\.json$/.test(line.trim())) continue
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
      shape: { users, seconds, rampSeconds, thinkMs },
      overall,
      memory,
      maxRssMb: memory.peakRssMb,
      invariantViolations: report.violations.length,
      cpu: {
        serverS: serverCpuS,
        wallS,
        // Answered 200 or 401: the password was hashed (a 503 or a timed-out attempt may not have been).
        hashed: signInAnswers,
        // Each customer signs in once, on arrival: the ramp's rate.
        demandPerS: users / rampSeconds,
        hashMs,
        cores: availableParallelism(),
      },
    }
  } finally {
    if (server) await stopGracefully(server)
    await graph?.close()
    await smtp?.close()
    await psp?.stop()
    cluster.destroy()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Prints the load table and returns the broken targets (empty when all hold). */
export function reportLoad(result: LoadResult, shape: string): string[] {
  printTable(`Carga: ${shape}`, result.rows)
  const { shape: sh, overall, memory: m } = result
  console.log(
    `Modelo: ${sh.users} clientes chegando ao longo de ${sh.rampSeconds} s (≈ ${(sh.users / sh.rampSeconds).toFixed(1)} ` +
      `entradas/s), uma entrada cada, pausas de ${(sh.thinkMs / 2000).toFixed(1)}-${((1.5 * sh.thinkMs) / 1000).toFixed(1)} s, ` +
      `${sh.seconds} s no total`,
  )
  console.log(
    `Requisições: ${result.requests}, jornadas completas (PIX pago visto): ${result.journeys}, 5xx: ${result.errors5xx}, ` +
      `sem resposta: ${result.noAnswer}; todas menos entradas: p95 ${overall.p95.toFixed(1)} ms ` +
      `(alvo ${loadTargets.p95Ms}), p99 ${overall.p99.toFixed(1)} ms (alvo ${loadTargets.p99Ms}) em ${overall.runs}; ` +
      `invariantes violadas: ${result.invariantViolations}; ` +
      `carga da máquina (loadavg 1 min): ${result.loadAverage.before.toFixed(1)} antes, ${result.loadAverage.after.toFixed(1)} depois`,
  )
  console.log(
    `Memória do processo do servidor: pico ${m.peakRssMb.toFixed(0)} MB (alvo < ${loadTargets.rssMb} MB); ` +
      `depois de iniciar ${(m.atStart?.rssMb ?? 0).toFixed(0)} MB (pico ${(m.atStart?.peakRssMb ?? 0).toFixed(0)}, ` +
      `heap ${(m.atStart?.heapUsedMb ?? 0).toFixed(0)} de ${(m.atStart?.heapTotalMb ?? 0).toFixed(0)} MB); ao fim ` +
      `${m.rssMb.toFixed(0)} MB residentes = ${m.anonMb.toFixed(0)} anônimos + ${m.fileMb.toFixed(0)} de arquivos; ` +
      `heap do V8 ${m.heapUsedMb.toFixed(0)} MB usados de ${m.heapTotalMb.toFixed(0)} MB`,
  )
  const { cpu } = result
  console.log(
    `CPU do servidor: ${cpu.serverS.toFixed(1)} s em ${cpu.wallS.toFixed(0)} s de carga ` +
      `(${((100 * cpu.serverS) / cpu.wallS).toFixed(0)}% de um núcleo); um hash de senha custa ` +
      `${cpu.hashMs.toFixed(0)} ms de CPU (${cpu.hashed} entradas respondidas ≈ ` +
      `${((cpu.hashed * cpu.hashMs) / 1000).toFixed(1)} s); a rampa pede ≈ ${cpu.demandPerS.toFixed(1)} entradas/s, ` +
      `${((cpu.demandPerS * cpu.hashMs) / 1000).toFixed(2)} núcleo só de hashes (a máquina tem ${cpu.cores})`,
  )
  for (const [key, count] of [...result.unexpected].sort((a, b) => b[1] - a[1]))
    console.log(`  resposta inesperada ×${count}: ${key}`)
  for (const f of result.failures) console.log(`  exemplo: ${f}`)
  for (const [message, count] of result.serverErrors) console.log(`  erro no log do servidor ×${count}: ${message}`)
  return loadTargetRows(result)
    .filter((r) => !r.pass)
    .map((r) => `${r.figure}: ${r.measured}`)
}

/** The load's targets as rows of the summary table that closes `npm run bench` (bench/run.ts). */
export function loadTargetRows(result: LoadResult): TargetRow[] {
  const { overall } = result
  const signIn = result.rows.find((r) => r.name.includes('sign-in'))
  return [
    {
      figure: 'load: 5xx and unanswered requests; journeys that saw their PIX paid',
      target: '0; > 0',
      measured: `${result.errors5xx} · ${result.noAnswer} of ${result.requests}; ${result.journeys}`,
      pass: result.errors5xx === 0 && result.noAnswer === 0 && result.journeys > 0,
    },
    {
      figure: 'load: p95 · p99 over all requests but sign-ins',
      target: `< ${loadTargets.p95Ms} · < ${loadTargets.p99Ms} ms`,
      measured: `${overall.p95.toFixed(1)} · ${overall.p99.toFixed(1)} ms`,
      pass: overall.p95 <= loadTargets.p95Ms && overall.p99 <= loadTargets.p99Ms,
    },
    {
      figure: 'load: sign-in p95',
      target: `< ${loadTargets.signInMs} ms`,
      measured: signIn ? `${signIn.p95.toFixed(0)} ms` : 'none',
      pass: signIn !== undefined && signIn.p95 <= loadTargets.signInMs,
    },
    {
      figure: 'load: server peak RSS',
      target: `< ${loadTargets.rssMb} MB`,
      measured: `${result.maxRssMb.toFixed(0)} MB`,
      pass: result.maxRssMb < loadTargets.rssMb,
    },
    {
      figure: 'load: invariants broken',
      target: '0',
      measured: String(result.invariantViolations),
      pass: result.invariantViolations === 0,
    },
  ]
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const broken = reportLoad(await loadBenchmark(), 'PostgreSQL próprio, servidor compilado')
  if (broken.length > 0) console.error(`Fora do alvo: ${broken.join(', ')}`)
  process.exitCode = broken.length > 0 ? 1 : 0
}
