// The fault scripts' harness: a PostgreSQL cluster of their own in a temporary directory (Debian's initdb/pg_ctl),
// the REAL server and worker as child processes (the compiled dist/server/main.js and worker.js, which run.ts
// compiles first; one process each, so kill -9 hits the process that holds the work), customers made straight in the database, and a small HTTP client that records every answer.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import Stripe from 'stripe'
import { connectPostgres, type Database } from '../../src/server/db/client'
import { checkInvariants } from '../../src/server/db/invariants'
import { freePort } from '../../src/server/test/free-port'
import { seedDemo } from '../../src/server/db/seed'
import type { FakeStripe } from '../../src/server/modules/stripe/fake-stripe-server'

export const root = path.resolve(import.meta.dirname, '../..')
export const adminEmail = 'admin@falhas.example.com.br'
export const password = 'senha-segura-123'

export function log(line: string) {
  console.log(`[${new Date().toISOString().slice(11, 23)}] ${line}`)
}

export function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function postgresBin(name: string): string {
  const base = '/usr/lib/postgresql'
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : []
  for (const v of versions) {
    const file = path.join(base, v, 'bin', name)
    if (existsSync(file)) return file
  }
  throw new Error(`${name} not found under ${base}/*/bin`)
}

/** PostgreSQL refuses to run as root: there (a container, CI as root) its tools run as the postgres user. */
function runPostgresTool(name: string, args: string[], owner: string): void {
  if (process.getuid?.() === 0) {
    execFileSync('chown', ['-R', 'postgres:postgres', owner], { stdio: 'ignore' })
    execFileSync('runuser', ['-u', 'postgres', '--', postgresBin(name), ...args], { stdio: 'ignore' })
  } else execFileSync(postgresBin(name), args, { stdio: 'ignore' })
}

/** A throwaway PostgreSQL cluster: only this one is ever started or stopped by the fault scripts. */
export class Cluster {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'faults-pg-'))
  readonly dataDir = path.join(this.dir, 'data')
  port = 0
  get url() {
    return `postgres://postgres@127.0.0.1:${this.port}/billing`
  }

  async init(): Promise<void> {
    this.port = await freePort()
    runPostgresTool(
      'initdb',
      ['-D', this.dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'],
      this.dir,
    )
    this.start()
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${this.port}/postgres` })
    await admin.connect()
    await admin.query('create database billing')
    await admin.end()
  }

  start(): void {
    // fsync off: the scripts kill the app, never this server, and the shared machine is slow enough already.
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`
    runPostgresTool(
      'pg_ctl',
      ['-D', this.dataDir, '-o', options, '-l', path.join(this.dir, 'log'), '-w', 'start'],
      this.dir,
    )
  }

  stop(mode: 'fast' | 'immediate' = 'fast'): void {
    runPostgresTool('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', 'stop'], this.dir)
  }

  destroy(): void {
    try {
      this.stop('immediate')
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** Migrations and the demo plans and PIX settings, from the scripts' own connection. */
export async function prepare(url: string): Promise<Database> {
  const database = connectPostgres(url, { max: 4 })
  await database.migrate()
  await seedDemo(database.db)
  return database
}

export type ProcessKind = 'server' | 'worker'

export type AppProcess = {
  kind: ProcessKind
  port: number
  url: string
  child: ChildProcess
  output: string[]
  exited: Promise<number | null>
  /** Milliseconds from spawn to ready (health 200, or the worker's ready line). */
  startMs: number
}

export type AppEnv = Record<string, string>

/**
 * Compiles the server into dist/server (esbuild, about a second; `npm run build` does the same step), and
 * `scripts/billing-tick.ts` into dist/faults/billing-tick.js the same way (with the migrations beside it): under tsx
 * each tick paid 5-15 s of start-up on the shared machine, and the crash rounds run three.
 */
export async function buildServer(): Promise<void> {
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build-server.ts'], { cwd: root, stdio: 'inherit' })
  const out = path.join(root, 'dist/faults')
  rmSync(out, { recursive: true, force: true })
  const { build } = await import('esbuild')
  await build({
    absWorkingDir: root,
    entryPoints: [{ in: 'scripts/billing-tick.ts', out: 'billing-tick' }],
    outdir: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    packages: 'external',
    tsconfig: path.join(root, 'tsconfig.json'),
    sourcemap: true,
    logLevel: 'warning',
  })
  cpSync(path.join(root, 'src/server/db/migrations'), path.join(out, 'migrations'), { recursive: true })
}

/** `npm run billing:tick`, compiled by buildServer: its exit code. */
export function billingTick(env: AppEnv): { done: Promise<number | null>; child: ChildProcess } {
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/faults/billing-tick.js'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: 'ignore',
  })
  return { child, done: new Promise((resolve) => child.once('exit', (code) => resolve(code))) }
}

/**
 * How `npm start` runs node (package.json): the variables set before it (glibc's MALLOC_MMAP_THRESHOLD_) and node's
 * flags (--max-semi-space-size). Read from there, so the fault scripts and the load bench run
 * the server and the worker exactly as production does.
 */
export const startCommand = (() => {
  const words = String(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start).split(/\s+/)
  const node = words.indexOf('node')
  const env = Object.fromEntries(words.slice(0, node).map((w) => w.split('=') as [string, string]))
  return { env, flags: words.slice(node + 1).filter((w) => w.startsWith('--')) }
})()

/** Starts `dist/server/main.js` (or worker.js) and waits for /api/health (the worker: for its ready line). */
export async function startProcess(
  kind: ProcessKind,
  env: AppEnv,
  options: { port?: number } = {},
): Promise<AppProcess> {
  const port = options.port ?? (await freePort())
  // The compiled server (dist/server, as `npm start` and `npm run worker` run it): it starts in about a second
  // where tsx took 5-10 s on the shared machine, which is what kept the full crash run from its 50 rounds.
  const script = kind === 'server' ? 'dist/server/main.js' : 'dist/server/worker.js'
  const child = spawn(process.execPath, [...startCommand.flags, script], {
    cwd: root,
    // The worker says it is ready at info level (it has no health endpoint).
    env: {
      ...process.env,
      ...startCommand.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      ...(kind === 'worker' ? { LOG_LEVEL: 'info' } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output: string[] = []
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line) output.push(line)
    if (output.length > 5000) output.splice(0, output.length - 5000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const spawnedAt = Date.now()
  const app: AppProcess = { kind, port, url: `http://127.0.0.1:${port}`, child, output, exited, startMs: 0 }
  const deadline = Date.now() + 90_000
  let done = false
  void exited.then(() => {
    done = true
  })
  while (Date.now() < deadline) {
    if (done) throw new Error(`${kind} exited while starting:\n${output.slice(-20).join('\n')}`)
    if (kind === 'server') {
      try {
        const response = await fetch(`${app.url}/api/health`, { signal: AbortSignal.timeout(2000) })
        if (response.status === 200) {
          app.startMs = Date.now() - spawnedAt
          return app
        }
      } catch {
        // not listening yet
      }
    } else if (output.some((l) => l.includes('Worker de cobrança pronto'))) {
      app.startMs = Date.now() - spawnedAt
      return app
    }
    await sleep(200)
  }
  child.kill('SIGKILL')
  throw new Error(`${kind} did not start in 90 s:\n${output.slice(-20).join('\n')}`)
}

export async function kill9(app: AppProcess): Promise<void> {
  if (app.child.exitCode !== null || app.child.signalCode !== null) return
  app.child.kill('SIGKILL')
  await app.exited
}

export async function stopGracefully(app: AppProcess): Promise<void> {
  if (app.child.exitCode !== null || app.child.signalCode !== null) return
  app.child.kill('SIGTERM')
  const timer = setTimeout(() => app.child.kill('SIGKILL'), 25_000)
  await app.exited
  clearTimeout(timer)
}

/** The environment every server and worker of one run shares. */
export function baseEnv(cluster: Cluster, dataDir: string, extra: AppEnv = {}): AppEnv {
  mkdirSync(dataDir, { recursive: true })
  return {
    NODE_ENV: 'test',
    DATABASE_URL: cluster.url,
    DATA_DIR: dataDir,
    AUTH_SECRET: 'faults-auth-secret-0123456789abcdef0123456789',
    ADMIN_EMAIL: adminEmail,
    ADMIN_PASSWORD: password,
    LOG_LEVEL: 'warn',
    // Each simulated customer comes from an address of its own (X-Forwarded-For), as on the Internet.
    TRUST_PROXY: 'loopback',
    APP_URL: 'http://localhost:3000',
    ...extra,
  }
}

let customerSerial = 0

export type Customer = { id: string; email: string; phone: string; ip: string; cookie?: string }

/**
 * `count` verified customers with the admin's password hash (so sign-in works with `password` and the scripts do
 * not pay a sign-up each): the admin must exist (a server started once with ADMIN_EMAIL).
 */
export async function createCustomers(
  db: pg.Pool,
  count: number,
  tag = randomBytes(3).toString('hex'),
): Promise<Customer[]> {
  const hash = await db.query<{ password: string }>(
    `select a.password from accounts a join profiles p on p.id = a.user_id where p.email = $1 and a.provider_id = 'credential'`,
    [adminEmail],
  )
  const passwordHash = hash.rows[0]?.password
  if (!passwordHash) throw new Error('the admin account is missing: start a server first')
  const customers: Customer[] = []
  for (let i = 0; i < count; i++) {
    const id = randomUUID()
    // Numbered across calls: customers made one at a time used to share 10.0.0.1 (and its sign-in limit).
    customerSerial += 1
    const n = customerSerial
    const email = `cliente${tag}${n}@falhas.example.com.br`
    const phone = `5585${String(900000000 + Math.floor(Math.random() * 99999999)).slice(0, 9)}`
    const ip = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`
    await db.query(
      `insert into profiles (id, name, email, email_verified, company_name, whatsapp_number, role_id)
       values ($1, $2, $3, true, 'Loja Teste', $4, 2)`,
      [id, `Cliente ${n}`, email, phone],
    )
    await db.query(
      `insert into accounts (id, account_id, provider_id, user_id, password) values ($1, $2, 'credential', $2, $3)`,
      [randomUUID(), id, passwordHash],
    )
    customers.push({ id, email, phone, ip })
  }
  return customers
}

/**
 * One active PIX subscription per customer whose period in force was paid (by PIX, with its endToEndId, as db:check
 * requires of an active subscription) and whose renewal invoice is due now: the period ends in two days.
 */
export async function insertDueRenewals(db: pg.Pool, customers: { id: string }[], tag: string): Promise<string[]> {
  const ids: string[] = []
  for (const c of customers) {
    const id = `sub_${tag}_${randomBytes(6).toString('hex')}`
    ids.push(id)
    await db.query(
      `insert into subscriptions (id, user_id, plan_id, status, billing_method, current_period_start, current_period_end, anchor_day)
       values ($1, $2, 'plan_basic', 'active', 'pix', now() - interval '28 days', now() + interval '2 days',
               extract(day from now() - interval '28 days')::int)`,
      [id, c.id],
    )
    await db.query(
      `insert into payments (id, subscription_id, amount_cents, status, payment_method, type, due_date, paid_at,
                             pix_reference, pix_end_to_end_id)
       values ($1, $2, 9900, 'paid', 'pix', 'new', now() - interval '28 days', now() - interval '28 days', $3, $4)`,
      [
        `pay_${tag}_${randomBytes(6).toString('hex')}`,
        id,
        `ASS${randomBytes(11).toString('hex')}`,
        `E${randomBytes(15).toString('hex')}F`,
      ],
    )
  }
  return ids
}

/** Renewal invoices of `ids` in all, and the `payment.renewal_invoice` audit entries of their payments. */
export async function renewalTotals(db: pg.Pool, ids: string[]): Promise<{ n: number; audits: number }> {
  const totals = await db.query<{ n: number; audits: number }>(
    `select count(*)::int as n,
            (select count(*)::int from audit_log where action = 'payment.renewal_invoice'
              and entity_id in (select id from payments where subscription_id = any($1))) as audits
     from payments where subscription_id = any($1) and type = 'renewal'`,
    [ids],
  )
  return totals.rows[0] ?? { n: 0, audits: 0 }
}

/**
 * A new card subscription (plan_pro, R$ 199,00, 31 days) of `customerId` put in the fake Stripe, and its first
 * `invoice.paid` event; `deliver` posts the event to a server's webhook, signed anew each time as Stripe does.
 */
export function paidCardSubscription(stripe: FakeStripe, customerId: string, webhookSecret: string) {
  const subId = `sub_${randomUUID().replaceAll('-', '')}`
  const invoiceId = `in_${randomUUID().replaceAll('-', '')}`
  const t0 = Math.floor(Date.now() / 1000)
  const period = { current_period_start: t0, current_period_end: t0 + 31 * 86_400 }
  const metadata = { userId: customerId, planId: 'plan_pro' }
  stripe.subscriptions.set(subId, {
    id: subId,
    object: 'subscription',
    customer: `cus_${customerId}`,
    status: 'active',
    cancel_at_period_end: false,
    created: t0,
    metadata,
    items: {
      object: 'list',
      data: [
        {
          id: `si_${subId}`,
          object: 'subscription_item',
          price: { id: 'price_1', product: 'prod_pro', unit_amount: 19900, currency: 'brl' },
          ...period,
        },
      ],
    },
  })
  const event = {
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    object: 'event',
    type: 'invoice.paid',
    created: t0,
    livemode: false,
    api_version: '2026-10-28.endive',
    data: {
      object: {
        id: invoiceId,
        object: 'invoice',
        customer: `cus_${customerId}`,
        currency: 'brl',
        status: 'paid',
        billing_reason: 'subscription_create',
        amount_paid: 19900,
        created: t0,
        due_date: null,
        hosted_invoice_url: `https://invoice.stripe.com/i/${invoiceId}`,
        status_transitions: { paid_at: t0 },
        parent: { type: 'subscription_details', subscription_details: { subscription: subId, metadata } },
        lines: {
          object: 'list',
          data: [{ id: `il_${invoiceId}`, amount: 19900, period: { start: t0, end: t0 + 31 * 86_400 } }],
        },
      },
    },
  }
  const payload = JSON.stringify(event)
  const deliver = (base: string) =>
    call(base, 'POST', '/api/webhooks/stripe', {
      body: event,
      headers: { 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret }) },
    })
  return { subId, invoiceId, event, deliver }
}

/** The last lines each process printed, after a scenario failed. */
export function printOutputs(processes: (AppProcess | undefined)[], lines: number): void {
  for (const p of processes)
    if (p) console.error(`--- ${p.kind} (exit ${p.child.exitCode}):\n${p.output.slice(-lines).join('\n')}`)
}

export type Answer = { at: number; ms: number; method: string; path: string; status: number; body: unknown }

/** fetch with a deadline; status 0 = no answer (connection refused, reset or the deadline). */
export async function call(
  base: string,
  method: string,
  pathname: string,
  options: { body?: unknown; cookie?: string; ip?: string; timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<Answer & { setCookie: string }> {
  const started = performance.now()
  const headers: Record<string, string> = { origin: 'http://localhost:3000', ...options.headers }
  if (options.cookie) headers.cookie = options.cookie
  if (options.ip) headers['x-forwarded-for'] = options.ip
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  try {
    const response = await fetch(base + pathname, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
      redirect: 'manual',
    })
    const text = await response.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      // not JSON
    }
    const setCookie = response.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ')
    return {
      at: Date.now(),
      ms: performance.now() - started,
      method,
      path: pathname,
      status: response.status,
      body,
      setCookie,
    }
  } catch (error) {
    return {
      at: Date.now(),
      ms: performance.now() - started,
      method,
      path: pathname,
      status: 0,
      body: error instanceof Error ? error.message : String(error),
      setCookie: '',
    }
  }
}

export async function signIn(base: string, customer: { email: string; ip: string; cookie?: string }): Promise<string> {
  // Set-up, not under test: a generous deadline (scrypt on a machine at load average 40 took over 15 s, which ended
  // a full crash run at round 23 with a client-side timeout).
  const answer = await call(base, 'POST', '/api/auth/sign-in', {
    body: { email: customer.email, password },
    ip: customer.ip,
    timeoutMs: 60_000,
  })
  if (answer.status !== 200)
    throw new Error(`sign-in ${customer.email}: ${answer.status} ${JSON.stringify(answer.body)}`)
  customer.cookie = answer.setCookie
  return answer.setCookie
}

/** Fails (throws) listing the violated invariants. */
export async function assertInvariants(db: Database['db'], label: string): Promise<void> {
  const report = await checkInvariants(db)
  const broken = report.violations
  if (broken.length > 0) {
    throw new Error(
      `${label}: invariants violated:\n${broken.map((b) => `  ${b.name}: ${JSON.stringify(b.rows).slice(0, 800)}`).join('\n')}`,
    )
  }
  log(`${label}: ${report.checked} invariants hold`)
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message)
}

export const short = process.argv.includes('--short') || process.env.FAULTS_SHORT === '1'

export { type SmtpMode, startSmtp } from '../../src/server/test/smtp'
