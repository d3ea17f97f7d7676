import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PixCheckoutResult } from '../../domain/contracts/billing'
import { confirmReceived, e2eId } from '../modules/admin/admin-fixtures'
import { openShop } from '../modules/billing/test-fixtures'
import { withDatabase } from '../test/global-setup'
import { runScript } from '../test/scripts'
import { createTestApp, type TestApp } from '../test/test-app'
import { createUser, post } from '../test/users'
import { connectPglite, connectPostgres, type Database } from './client'

// `npm run db:backup` then `npm run db:restore` into a fresh database give back every table, row by row: on a
// PGlite DATA_DIR (PGlite's own dump), or with TEST_DATABASE_URL on PostgreSQL (pg_dump / pg_restore).

const work = mkdtempSync(path.join(tmpdir(), 'billing-backup-'))
let t: TestApp

beforeAll(async () => {
  t = await createTestApp()
  const admin = await openShop(t)
  const maria = await createUser(t, { name: 'Maria Cliente' })
  const joao = await createUser(t, { name: 'João Cliente' })
  const paid: PixCheckoutResult = (await post(t.app, '/api/checkout/pix', { plan_id: 'plan_pro' }, maria.cookie)).json()
  await post(t.app, '/api/checkout/pix', { plan_id: 'plan_basic' }, joao.cookie)
  await confirmReceived(t.app, admin.cookie, paid.payment.id, paid.payment.amountCents, {
    end_to_end_id: e2eId('backup1'),
  })
}, 60_000)
afterAll(async () => {
  await t.close()
  rmSync(work, { recursive: true, force: true })
})

function run(script: string, args: string[], env: Record<string, string>) {
  return runScript(script, args, env)
}

/** Every table of the app and of the migration journal, each row as text, sorted. */
async function contents(database: Database): Promise<Record<string, string[]>> {
  const tables = (await database.db.execute(
    sql.raw(`select table_schema || '.' || table_name as name from information_schema.tables
              where table_schema in ('public', 'drizzle') and table_type = 'BASE TABLE' order by 1`),
  )) as unknown as { rows: { name: string }[] }
  const out: Record<string, string[]> = {}
  for (const { name } of tables.rows) {
    const [schema, table] = name.split('.')
    const rows = (await database.db.execute(
      sql.raw(`select t::text as r from "${schema}"."${table}" t order by 1`),
    )) as unknown as { rows: { r: string }[] }
    out[name] = rows.rows.map((r) => r.r)
  }
  return out
}

describe('npm run db:backup and db:restore', () => {
  it('round-trips every table row by row, and refuses to restore over a database without --force', async () => {
    const original = await contents(t.database)
    expect(Object.keys(original).length).toBeGreaterThan(20)
    expect(original['public.payments']?.length).toBe(2)
    expect(original['public.audit_log']?.length).toBeGreaterThan(3)

    let source: Record<string, string>
    let target: Record<string, string>
    let openTarget: () => Promise<Database>
    let cleanup = async () => {}
    if (t.database.kind === 'postgres') {
      const url = (t.database.pool as unknown as { options: { connectionString: string } }).options.connectionString
      const name = `billing_restore_${randomBytes(6).toString('hex')}`
      const admin = new pg.Client({ connectionString: url })
      await admin.connect()
      await admin.query(`create database ${name}`)
      await admin.end()
      const restoredUrl = withDatabase(url, name)
      source = { DATABASE_URL: url }
      target = { DATABASE_URL: restoredUrl }
      openTarget = async () => connectPostgres(restoredUrl, { max: 1 })
      cleanup = async () => {
        const dropper = new pg.Client({ connectionString: url })
        await dropper.connect()
        await dropper.query(`drop database if exists ${name} with (force)`)
        await dropper.end()
      }
    } else {
      // The app's database is in memory: put it in a DATA_DIR as the server would have it.
      const sourceDir = path.join(work, 'source')
      const dump = await t.database.pglite!.dumpDataDir('none')
      await (await connectPglite({ dataDir: path.join(sourceDir, 'db'), loadDataDir: dump })).close()
      const targetDir = path.join(work, 'target')
      source = { DATA_DIR: sourceDir }
      target = { DATA_DIR: targetDir }
      openTarget = () => connectPglite({ dataDir: path.join(targetDir, 'db') })
    }
    try {
      const file = path.join(work, t.database.kind === 'postgres' ? 'copia.dump' : 'copia.tar.gz')
      const backup = await run('db-backup', [file], source)
      expect(backup.code, backup.stderr).toBe(0)
      expect(backup.stdout).toContain(`Backup gravado em ${file}`)

      const restore = await run('db-restore', [file], target)
      expect(restore.code, restore.stderr).toBe(0)
      expect(restore.stdout).toContain(`Backup restaurado de ${file}`)
      const restored = await openTarget()
      try {
        expect(await contents(restored)).toEqual(original)
      } finally {
        await restored.close()
      }

      const again = await run('db-restore', [file], target)
      expect(again.code).toBe(1)
      expect(again.stderr).toMatch(/Use --force para substitu/)
      const forced = await run('db-restore', [file, '--force'], target)
      expect(forced.code, forced.stderr).toBe(0)
      const check = await run('db-check', [], target)
      expect(check.code, check.stdout + check.stderr).toBe(0)

      const missing = await run('db-restore', [path.join(work, 'nada.dump')], target)
      expect(missing.code).toBe(1)
      expect(missing.stderr).toMatch(/Arquivo de backup não encontrado/)
    } finally {
      await cleanup()
    }
  }, 180_000)
})
