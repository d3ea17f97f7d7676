import { expect, it } from 'vitest'
import { plans } from '../../db/schema/plans'
import { get } from '../../test/users'
import { fileAdminApp, send } from './admin-fixtures'

const { t, admin } = fileAdminApp()

const lists = [
  '/api/admin/subscriptions',
  '/api/admin/payments',
  '/api/admin/users',
  '/api/admin/customers',
  '/api/admin/platform-events',
]

it('treats sort=constructor or __proto__ as an unknown sort (created_at), not a 500', async () => {
  for (const list of lists.slice(0, 4))
    for (const sort of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const response = await get(t.app, `${list}?sort=${sort}`, admin.cookie)
      expect(response.statusCode, `${list} ${sort}: ${response.body}`).toBe(200)
    }
})

it('bounds every admin list: page size at most 100 and page at most 1000', async () => {
  for (const list of lists) {
    expect((await get(t.app, `${list}?pageSize=100&page=1000`, admin.cookie)).statusCode, list).toBe(200)
    for (const query of ['pageSize=101', 'page=1001', 'page=100000000']) {
      const response = await get(t.app, `${list}?${query}`, admin.cookie)
      expect(response.statusCode, `${list}?${query}`).toBe(400)
      expect(response.json().code).toBe('validation_failed')
    }
  }
  expect((await get(t.app, `/api/admin/subscriptions?planId=${'p'.repeat(101)}`, admin.cookie)).statusCode).toBe(400)
})

it('refuses plans with unbounded features or quantities, and stores nothing', async () => {
  const before = await t.database.db.select().from(plans)
  const plan = { id: 'plan_big', name: 'Grande', priceCents: 1000 }
  for (const extra of [
    { features: Array.from({ length: 31 }, (_, i) => `item ${i}`) },
    { features: ['x'.repeat(201)] },
    { boxQuantity: 2 ** 31 },
    { agentQuantity: 2 ** 31 },
  ]) {
    const response = await send(t.app, 'POST', '/api/admin/plans', {
      cookie: admin.cookie,
      body: { ...plan, ...extra },
    })
    expect(response.statusCode, JSON.stringify(extra).slice(0, 80)).toBe(400)
  }
  expect(await t.database.db.select().from(plans)).toEqual(before)
})
