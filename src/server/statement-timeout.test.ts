import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { loadConfig } from './config'
import { isDatabaseUnavailable } from './http/problem'
import { seedPlans } from './modules/billing/test-fixtures'
import { currentDatabaseName, testDatabaseUrl } from './test/database-url'
import { createTestApp, type TestApp } from './test/test-app'
import { createUser, get } from './test/users'
import { expectUnavailable } from './test/http'

// DATABASE_STATEMENT_TIMEOUT_MS on the pool's connections: a statement running (or waiting for a lock) longer is
// cancelled by PostgreSQL and the request answers 503 service_unavailable instead of hanging. PGlite has no timeout
// (one in-process connection), so the statements themselves run on PostgreSQL only.
let t: TestApp
let cookie: string
beforeAll(async () => {
  t = await createTestApp({ env: { DATABASE_STATEMENT_TIMEOUT_MS: '600' } })
  await seedPlans(t.database.db)
  cookie = (await createUser(t)).cookie
})
afterAll(async () => {
  await t?.close()
})

it('defaults to 15 s and takes 0 (no limit)', () => {
  const base = { NODE_ENV: 'test', DATA_DIR: '/tmp/x', AUTH_SECRET: 'x'.repeat(40) }
  expect(loadConfig(base).DATABASE_STATEMENT_TIMEOUT_MS).toBe(15_000)
  expect(loadConfig({ ...base, DATABASE_STATEMENT_TIMEOUT_MS: '0' }).DATABASE_STATEMENT_TIMEOUT_MS).toBe(0)
  expect(() => loadConfig({ ...base, DATABASE_STATEMENT_TIMEOUT_MS: 'muito' })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS/)
})

it.runIf(testDatabaseUrl())(
  'cancels a slow statement (pg_sleep) after the timeout as "database unavailable"',
  async () => {
    const started = performance.now()
    const error = await t.database.db.execute(sql`select pg_sleep(5)`).then(
      () => undefined,
      (e: unknown) => e,
    )
    const ms = performance.now() - started
    expect(error).toBeDefined()
    expect(isDatabaseUnavailable(error)).toBe(true)
    expect(ms).toBeLessThan(3_000)
    // The connection is fine afterwards.
    const ok = (await t.database.db.execute(sql`select 1 as one`)) as unknown as { rows: { one: number }[] }
    expect(ok.rows[0]?.one).toBe(1)
  },
)

it.runIf(testDatabaseUrl())(
  'a request stuck behind a lock answers 503 service_unavailable in Portuguese, then works again',
  async () => {
    const name = await currentDatabaseName(t.database.db)
    const url = new URL(testDatabaseUrl()!)
    url.pathname = `/${name}`
    // Another session holds the payments table locked (a stuck migration, a runaway transaction).
    const holder = new pg.Client({ connectionString: url.toString() })
    await holder.connect()
    try {
      await holder.query('begin')
      await holder.query('lock table payments in access exclusive mode')
      const started = performance.now()
      const response = await get(t.app, '/api/payments', cookie)
      const ms = performance.now() - started
      expectUnavailable(response)
      expect(ms).toBeLessThan(5_000)
      await holder.query('rollback')
      expect((await get(t.app, '/api/payments', cookie)).statusCode).toBe(200)
    } finally {
      await holder.end()
    }
  },
)
