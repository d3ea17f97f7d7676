import { rmSync } from 'node:fs'
import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { currentDatabaseName, testDatabaseUrl } from './test/database-url'
import { createTestApp, type TestApp } from './test/test-app'
import { createUser, get } from './test/users'
import { seedPlans } from './modules/billing/test-fixtures'
import { expectUnavailable } from './test/http'

// Its own file and app: the database is closed on purpose.
let t: TestApp
let cookie: string
beforeAll(async () => {
  t = await createTestApp()
  await seedPlans(t.database.db)
  cookie = (await createUser(t)).cookie
})
// The test closes the database itself (on PostgreSQL that also drops it): only the app and DATA_DIR are left.
afterAll(async () => {
  await t?.app.close()
  if (t) rmSync(t.config.dataDir, { recursive: true, force: true })
})

// PostgreSQL only: the server refuses new connections and drops the open ones, then takes them again.
it.runIf(testDatabaseUrl())(
  'answers 503 service_unavailable while PostgreSQL refuses connections and recovers by itself',
  async () => {
    const name = await currentDatabaseName(t.database.db)
    const admin = new pg.Client({ connectionString: testDatabaseUrl() })
    await admin.connect()
    try {
      await admin.query(`alter database ${name} allow_connections false`)
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name])
      expectUnavailable(await get(t.app, '/api/plans'))
      expectUnavailable(await get(t.app, '/api/payments', cookie))
      await admin.query(`alter database ${name} allow_connections true`)
      expect((await get(t.app, '/api/plans')).statusCode).toBe(200)
      expect((await get(t.app, '/api/payments', cookie)).statusCode).toBe(200)
    } finally {
      await admin.query(`alter database ${name} allow_connections true`)
      await admin.end()
    }
  },
)

it('answers 503 with the database down once it is unreachable', async () => {
  expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200)
  expect((await get(t.app, '/api/plans')).statusCode).toBe(200)
  await t.database.close()
  const response = await t.app.inject({ method: 'GET', url: '/api/health' })
  expect(response.statusCode).toBe(503)
  expect(response.json()).toMatchObject({ status: 'degraded', database: 'down' })
  expect(response.headers['cache-control']).toBe('no-store')

  // Any route whose query fails on the connection: 503 service_unavailable with Retry-After, not 500 unknown.
  expectUnavailable(await get(t.app, '/api/plans'))
  expectUnavailable(await get(t.app, '/api/payments', cookie))
  expectUnavailable(await get(t.app, '/api/auth/session', cookie))
})
