import { spawn } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { eq, inArray } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectPglite, connectPostgres, type Database } from './db/client'
import { profiles } from './db/schema/auth'
import { pixSettings } from './db/schema/billing'
import { plans } from './db/schema/plans'
import { auditLog } from './db/schema/platform'
import { testDatabaseUrl } from './test/database-url'
import { withDatabase } from './test/global-setup'
import { adminQuery, repoRoot, runScript, type ScriptRun } from './test/scripts'

// The operator scripts run as the operator runs them: a child process configured only by its environment.
// Embedded mode uses a PGlite DATA_DIR (one process at a time: every direct connection here is closed before a
// script starts); with TEST_DATABASE_URL, a brand-new empty PostgreSQL database.

const root = repoRoot
const dataDir = mkdtempSync(path.join(tmpdir(), 'billing-scripts-'))
const serverUrl = testDatabaseUrl()
const databaseName = `billing_scripts_${randomBytes(6).toString('hex')}`
const databaseUrl = serverUrl ? withDatabase(serverUrl, databaseName) : undefined

beforeAll(async () => {
  if (serverUrl) await adminQuery(serverUrl, `create database ${databaseName}`)
})
afterAll(async () => {
  if (serverUrl) await adminQuery(serverUrl, `drop database if exists ${databaseName} with (force)`)
  rmSync(dataDir, { recursive: true, force: true })
})

type Run = ScriptRun

function run(script: string, args: string[] = []): Promise<Run> {
  return runScript(script, args, { DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) })
}

async function withConnection<T>(work: (database: Database) => Promise<T>): Promise<T> {
  const database = databaseUrl
    ? connectPostgres(databaseUrl, { max: 1 })
    : await connectPglite({ dataDir: path.join(dataDir, 'db') })
  try {
    return await work(database)
  } finally {
    await database.close()
  }
}

const ana = { id: randomUUID(), email: 'ana@example.com' }
const bia = { id: randomUUID(), email: 'bia@example.com' }

async function rolesOf(): Promise<Record<string, number>> {
  return withConnection(async (database) => {
    const rows = await database.db
      .select({ email: profiles.email, roleId: profiles.roleId })
      .from(profiles)
      .where(inArray(profiles.id, [ana.id, bia.id]))
    return Object.fromEntries(rows.map((r) => [r.email, r.roleId]))
  })
}

describe('operator scripts', () => {
  it('db:migrate applies the migrations and the PIX settings row, and can run again', async () => {
    const first = await run('db-migrate')
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toMatch(/Migrações aplicadas: \d+ nova\(s\)/)
    expect(first.stdout).toContain('Configurações PIX')
    const second = await run('db-migrate')
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toMatch(/Nenhuma migração pendente \(\d+ já aplicadas\)/)

    await withConnection(async (database) => {
      expect(await database.db.select().from(pixSettings)).toHaveLength(1)
      await database.db.insert(profiles).values([
        { ...ana, name: 'Ana', companyName: 'Loja da Ana' },
        { ...bia, name: 'Bia', companyName: 'Loja da Bia' },
      ])
    })
  }, 240_000)

  it('user:role grants admin, writes an audit row by the CLI, and changes nothing when run again', async () => {
    const granted = await run('user-role', ['Ana@Example.com', 'admin'])
    expect(granted.code, granted.stderr).toBe(0)
    expect(granted.stdout).toBe('ana@example.com agora é administrador (role_id 1).')
    const again = await run('user-role', [ana.email, 'admin'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toBe('ana@example.com já é administrador; nada mudou.')

    expect(await rolesOf()).toEqual({ [ana.email]: 1, [bia.email]: 2 })
    const rows = await withConnection((database) =>
      database.db.select().from(auditLog).where(eq(auditLog.entityId, ana.id)),
    )
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      actorId: null,
      action: 'user.role',
      entity: 'user',
      before: { roleId: 2 },
      after: { roleId: 1, by: 'cli' },
    })
  }, 240_000)

  it('user:role refuses to demote the last admin, and demotes one of two', async () => {
    const refused = await run('user-role', [ana.email, 'user'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe('Não é possível remover o último administrador.')
    expect(await rolesOf()).toEqual({ [ana.email]: 1, [bia.email]: 2 })

    expect((await run('user-role', [bia.email, 'admin'])).code).toBe(0)
    const demoted = await run('user-role', [ana.email, 'user'])
    expect(demoted.code, demoted.stderr).toBe(0)
    expect(demoted.stdout).toBe('ana@example.com agora é usuário comum (role_id 2).')
    expect(await rolesOf()).toEqual({ [ana.email]: 2, [bia.email]: 1 })
  }, 240_000)

  it('user:role fails with one Portuguese line for an unknown e-mail', async () => {
    const result = await run('user-role', ['ninguem@example.com', 'admin'])
    expect(result.code).toBe(1)
    expect(result.stderr).toBe('Nenhuma conta com o e-mail ninguem@example.com.')
    expect(result.stdout).toBe('')
  }, 120_000)

  it('user:role exits 1 with the usage line for bad arguments, before touching the database', async () => {
    const usage = 'Uso: npm run user:role -- <e-mail> admin|user'
    const cases: [string[], string][] = [
      [[], usage],
      [['ana@example.com'], usage],
      [['ana@example.com', 'admin', 'extra'], usage],
      [['ana@example.com', 'root'], `Papel inválido: root. ${usage}`],
      [['nao-e-email', 'admin'], `E-mail inválido: nao-e-email. ${usage}`],
    ]
    // In parallel: none of them opens the database.
    const results = await Promise.all(cases.map(([args]) => run('user-role', args)))
    results.forEach((result, i) => {
      expect(result.code, JSON.stringify(cases[i]?.[0])).toBe(1)
      expect(result.stderr).toBe(cases[i]?.[1])
    })
  }, 120_000)

  it('db:seed-demo adds the demo plans and PIX settings once', async () => {
    const first = await run('db-seed-demo')
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toContain('Planos de demonstração criados: 3')
    expect(first.stdout).toContain('Configurações PIX de demonstração gravadas')
    const second = await run('db-seed-demo')
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toContain('Planos de demonstração já existiam; nada mudou.')
    const ids = await withConnection(async (database) =>
      (await database.db.select({ id: plans.id }).from(plans)).map((p) => p.id).sort(),
    )
    expect(ids).toEqual(['plan_basic', 'plan_business', 'plan_pro'])
  }, 240_000)

  it('fails with one line naming the variable when the configuration is bad', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/db-migrate.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, DATABASE_URL: 'mysql://x' },
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
    })
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code).toBe(1)
    expect(stderr.trim()).toBe('Configuração inválida: DATABASE_URL deve começar com postgres:// ou postgresql://')
  }, 120_000)
})
