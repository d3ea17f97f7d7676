import { eq } from 'drizzle-orm'
import { beforeAll, expect, it } from 'vitest'
import type { Plan } from '../../../domain/contracts/plans'
import { plans } from '../../db/schema/plans'
import { fileTestApp } from '../../test/http'
import { get } from '../../test/users'
import { seedPlans } from '../admin/admin-fixtures'

const t = fileTestApp()
beforeAll(() => seedPlans(t.database.db))

async function names(): Promise<string[]> {
  return ((await get(t.app, '/api/plans')).json() as Plan[]).map((p) => p.name)
}

it('answers with an ETag and 304 when the browser already has the list', async () => {
  const first = await get(t.app, '/api/plans')
  expect(first.statusCode).toBe(200)
  expect(first.headers['content-type']).toBe('application/json; charset=utf-8')
  const etag = String(first.headers.etag)
  expect(etag).toMatch(/^".+"$/)
  const again = await t.app.inject({ method: 'GET', url: '/api/plans', headers: { 'if-none-match': etag } })
  expect(again.statusCode).toBe(304)
  expect(again.body).toBe('')
})

it('shows a change made by any writer (another instance, a script) on the next requests', async () => {
  expect(await names()).toContain('Básico') // cached now
  const before = String((await get(t.app, '/api/plans')).headers.etag)
  // Not through the admin service: only the table's trigger and this process's LISTEN can tell the cache.
  await t.database.db.update(plans).set({ name: 'Básico Novo' }).where(eq(plans.id, 'plan_basic'))
  let seen: string[] = []
  for (let i = 0; i < 50 && !seen.includes('Básico Novo'); i++) {
    seen = await names()
    if (!seen.includes('Básico Novo')) await new Promise((r) => setTimeout(r, 20))
  }
  expect(seen).toContain('Básico Novo')
  const after = await t.app.inject({ method: 'GET', url: '/api/plans', headers: { 'if-none-match': before } })
  expect(after.statusCode).toBe(200)

  await t.database.db.update(plans).set({ active: false }).where(eq(plans.id, 'plan_basic'))
  for (let i = 0; i < 50 && seen.includes('Básico Novo'); i++) {
    seen = await names()
    if (seen.includes('Básico Novo')) await new Promise((r) => setTimeout(r, 20))
  }
  expect(seen).not.toContain('Básico Novo')
})
