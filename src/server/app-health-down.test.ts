import { rmSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTestApp, type TestApp } from './test/test-app'

// Its own file and app: the database is closed on purpose.
let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
// The test closes the database itself (on PostgreSQL that also drops it): only the app and DATA_DIR are left.
afterAll(async () => {
  await t?.app.close()
  if (t) rmSync(t.config.dataDir, { recursive: true, force: true })
})

it('answers 503 with the database down once it is unreachable', async () => {
  expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200)
  await t.database.close()
  const response = await t.app.inject({ method: 'GET', url: '/api/health' })
  expect(response.statusCode).toBe(503)
  expect(response.json()).toMatchObject({ status: 'degraded', database: 'down' })
  expect(response.headers['cache-control']).toBe('no-store')
})
