// The fault scripts' harness: a PostgreSQL cluster of their own in a temporary directory (Debian's initdb/pg_ctl),
// the REAL server and worker as child processes (`node --import tsx`, one process each, so kill -9 hits the process
// that holds the work), customers made straight in the database, and a small HTTP client that records every answer.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { connectPostgres, type Database } from '../../src/server/db/client'
import { checkInvariants } from '../../src/server/db/invariants'
import { seedDemo } from '../../src/server/db/seed'

export const root = path.resolve(import.meta.dirname, '../..')
export const adminEmail = 'admin@falhas.example.com.br'
export const password = 'senha-segura-123'

export function log(line: string) {
  console.log(`[${new Date().toISOString().slice(11, 23)}] ${line}`)
}

export function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
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
}

export type AppEnv = Record<string, string>

/**
 * Starts `src/server/main.ts` (or worker.ts) and waits for /api/health (the worker: for its ready line).
 * `compiled`: runs the built `dist/server/*.js` with node instead, as `npm start` does (build it first).
 */
export async function startProcess(
  kind: ProcessKind,
  env: AppEnv,
  options: { port?: number; compiled?: boolean } = {},
): Promise<AppProcess> {
  const port = options.port ?? (await freePort())
  const script = kind === 'server' ? 'src/server/main.ts' : 'src/server/worker.ts'
  const args = options.compiled
    ? ['--enable-source-maps', `dist/server/${kind === 'server' ? 'main' : 'worker'}.js`]
    : ['--import', 'tsx', script]
  const child = spawn(process.execPath, args, {
    cwd: root,
    // The worker says it is ready at info level (it has no health endpoint).
    env: {
      ...process.env,
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
  const app: AppProcess = { kind, port, url: `http://127.0.0.1:${port}`, child, output, exited }
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
        if (response.status === 200) return app
      } catch {
        // not listening yet
      }
    } else if (output.some((l) => l.includes('Worker de cobrança pronto'))) return app
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
    const n = customers.length + 1
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
  const answer = await call(base, 'POST', '/api/auth/sign-in', {
    body: { email: customer.email, password },
    ip: customer.ip,
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
