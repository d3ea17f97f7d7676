import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/test-app'
import { insertCustomer, insertPayment, insertSubscription, seedPlans } from './admin-fixtures'
import { containsPattern } from '../../db/paging'
import { listAdminPayments, listAdminSubscriptions, listAdminUsers } from './admin-lists.repo'

let t: TestApp
const paymentIds: string[] = []
let subscriptionCount = 0

beforeAll(async () => {
  t = await createTestApp()
  await seedPlans(t.database.db)
  // 6 customers × 2 subscriptions × 3 payments; many share created_at so the id tie-breaker matters.
  for (let c = 0; c < 6; c++) {
    const customer = await insertCustomer(t.database.db, { name: `Pessoa Paginada ${c}` })
    for (let s = 0; s < 2; s++) {
      const sub = await insertSubscription(t.database.db, {
        userId: customer.id,
        planId: ['plan_basic', 'plan_pro', 'plan_business'][(c + s) % 3],
        createdAt: new Date(Date.UTC(2026, 0, 1 + (c % 3))),
      })
      subscriptionCount += 1
      for (let p = 0; p < 3; p++) {
        const payment = await insertPayment(t.database.db, {
          subscriptionId: sub.id,
          amountCents: 1_000 * ((c + p) % 4) + 500,
          createdAt: new Date(Date.UTC(2026, 1, 1 + p)),
          dueDate: new Date(Date.UTC(2026, 1, 10 + ((c + s) % 2))),
        })
        paymentIds.push(payment.id)
      }
    }
  }
})
afterAll(async () => {
  await t.close()
})

const base = { page: 1, pageSize: 5, dir: 'desc' as const }

describe('admin list paging', () => {
  it('walks every payment exactly once, in order, whatever the sort and direction', async () => {
    for (const sort of ['created_at', 'due_date', 'amount']) {
      for (const dir of ['asc', 'desc'] as const) {
        const seen: string[] = []
        const keys: [number, string][] = []
        for (let page = 1; page <= 8; page++) {
          const result = await listAdminPayments(t.database.db, { ...base, sort, dir, page })
          expect(result.total).toBe(36)
          for (const p of result.items) {
            seen.push(p.id)
            const key = sort === 'amount' ? p.amountCents : Date.parse(sort === 'due_date' ? p.dueDate : p.createdAt)
            keys.push([key, p.id])
          }
        }
        expect([...seen].sort()).toEqual([...paymentIds].sort())
        const sorted = [...keys].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
        expect(keys).toEqual(dir === 'asc' ? sorted : sorted.reverse())
      }
    }
  })

  it('pages a search merged from several alternatives without duplicates', async () => {
    // "Paginada" matches the customers; plan names match through their own arm ("Básico" is one plan).
    const seen: string[] = []
    for (let page = 1; page <= 4; page++) {
      const result = await listAdminSubscriptions(t.database.db, { ...base, q: 'a', page })
      seen.push(...result.items.map((s) => s.id))
    }
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen).toHaveLength(subscriptionCount)
    const basic = await listAdminSubscriptions(t.database.db, { ...base, q: 'básico', pageSize: 100 })
    expect(basic.total).toBe(4)
    expect(basic.items.every((s) => s.planId === 'plan_basic')).toBe(true)
  })

  it('answers the planner estimate above the exact-count cap, and exact totals below it', async () => {
    const capped = await listAdminPayments(t.database.db, base, { countCap: 10 })
    expect(capped.totalExact).toBe(false)
    expect(capped.total).toBeGreaterThan(10)
    expect(capped.items).toHaveLength(5)
    const exact = await listAdminUsers(t.database.db, { ...base, q: 'Paginada 3' }, { countCap: 10 })
    expect(exact).toMatchObject({ total: 1, totalExact: true })
    const searched = await listAdminSubscriptions(t.database.db, { ...base, q: 'Paginada' }, { countCap: 3 })
    expect(searched.totalExact).toBe(false)
    expect(searched.total).toBeGreaterThan(3)
  })

  it('answers an empty page past the end', async () => {
    const result = await listAdminPayments(t.database.db, { ...base, page: 100 })
    expect(result).toMatchObject({ items: [], total: 36, page: 100 })
  })
})

describe('containsPattern', () => {
  it('escapes the LIKE wildcards and the escape character', () => {
    expect(containsPattern('50%_a\\b')).toBe('%50\\%\\_a\\\\b%')
  })
})
