import { afterAll, beforeAll, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import type { Payment, Subscription } from '../../../domain/contracts/billing'
import { createTestApp, type TestApp } from '../../test/test-app'
import { createUser, get, post, type TestUser } from '../../test/users'
import { insertPayment, insertSubscription } from '../lifecycle/lifecycle-fixtures'
import { seedPlans } from './test-fixtures'
import type { SessionUser } from '../../../domain/contracts/auth'
import {
  listMyPayments,
  listMyPaymentsWithSession,
  listMySubscriptions,
  listMySubscriptionsWithSession,
} from './customer-lists.repo'

let t: TestApp
let maria: TestUser
let joao: TestUser
const day = 86_400_000
const base = new Date('2026-01-01T12:00:00.000Z').getTime()

beforeAll(async () => {
  t = await createTestApp()
  await seedPlans(t.database.db)
  maria = await createUser(t)
  joao = await createUser(t)
  const db = t.database.db
  // Maria: 24 canceled subscriptions with one paid invoice each, then one active with an open renewal invoice.
  for (let i = 0; i < 24; i += 1) {
    const end = new Date(base + i * day)
    const sub = await insertSubscription(db, { userId: maria.id, status: 'canceled', currentPeriodEnd: end })
    await insertPayment(db, { subscriptionId: sub.id, dueDate: end, status: 'paid', paidAt: end })
  }
  const active = await insertSubscription(db, { userId: maria.id, currentPeriodEnd: new Date(base + 40 * day) })
  await insertPayment(db, { subscriptionId: active.id, dueDate: new Date(base + 40 * day), type: 'renewal' })
  const other = await insertSubscription(db, { userId: joao.id, currentPeriodEnd: new Date(base + 40 * day) })
  await insertPayment(db, { subscriptionId: other.id, dueDate: new Date(base + 40 * day), status: 'paid' })
})
afterAll(async () => {
  await t.close()
})

type Page<T> = { items: T[]; total: number; page: number; pageSize: number }

it("pages the customer's payments on the server, newest first, only their own", async () => {
  const first: Page<Payment> = (await get(t.app, '/api/payments', maria.cookie)).json()
  expect(first).toMatchObject({ total: 25, page: 1, pageSize: 20 })
  expect(first.items).toHaveLength(20)
  expect(first.items[0]?.status).toBe('pending_pix') // the newest
  const second: Page<Payment> = (await get(t.app, '/api/payments?page=2', maria.cookie)).json()
  expect(second.items).toHaveLength(5)
  const ids = new Set([...first.items, ...second.items].map((p) => p.id))
  expect(ids.size).toBe(25)

  const open: Page<Payment> = (await get(t.app, '/api/payments?open=true', maria.cookie)).json()
  expect(open.items.map((p) => p.status)).toEqual(['pending_pix'])
  const history: Page<Payment> = (await get(t.app, '/api/payments?open=false&pageSize=10', maria.cookie)).json()
  expect(history).toMatchObject({ total: 24, pageSize: 10 })
  expect(history.items.every((p) => p.status === 'paid')).toBe(true)

  const joaoList: Page<Payment> = (await get(t.app, '/api/payments', joao.cookie)).json()
  expect(joaoList.total).toBe(1)
})

it("pages the customer's subscriptions, and finds the current one on its own", async () => {
  const first: Page<Subscription> = (await get(t.app, '/api/subscriptions?pageSize=10', maria.cookie)).json()
  expect(first).toMatchObject({ total: 25, page: 1, pageSize: 10 })
  expect(first.items).toHaveLength(10)
  expect(first.items.every((s) => s.userId === maria.id)).toBe(true)
  const last: Page<Subscription> = (await get(t.app, '/api/subscriptions?page=3&pageSize=10', maria.cookie)).json()
  expect(last.items).toHaveLength(5)
  const current: Page<Subscription> = (
    await get(t.app, '/api/subscriptions?current=true&pageSize=1', maria.cookie)
  ).json()
  expect(current.total).toBe(1)
  expect(current.items[0]?.status).toBe('active')
})

it('refuses page sizes and pages past the bounds, and over-long ids', async () => {
  for (const url of [
    '/api/payments?pageSize=101',
    '/api/payments?page=1001',
    '/api/payments?page=0',
    '/api/subscriptions?pageSize=1000',
    '/api/subscriptions?page=99999999',
  ]) {
    const response = await get(t.app, url, maria.cookie)
    expect(response.statusCode, url).toBe(400)
    expect(response.json().code).toBe('validation_failed')
  }
  const cancel = await post(t.app, '/api/subscriptions/cancel', { subscription_id: 'x'.repeat(5000) }, maria.cookie)
  expect(cancel.statusCode).toBe(400)
})

it('answers in one statement with the session, and the same past the last page, without payments or signed out', async () => {
  // Ana: one subscription without any payment, one with one: the empty one counts for nothing in the payments.
  const ana = await createUser(t)
  const db = t.database.db
  await insertSubscription(db, { userId: ana.id, status: 'canceled', currentPeriodEnd: new Date(base + day) })
  const paying = await insertSubscription(db, { userId: ana.id, currentPeriodEnd: new Date(base + 40 * day) })
  await insertPayment(db, { subscriptionId: paying.id, dueDate: new Date(base + 40 * day), status: 'paid' })
  const anaPayments: Page<Payment> = (await get(t.app, '/api/payments', ana.cookie)).json()
  expect(anaPayments.total).toBe(1)
  expect(anaPayments.items.map((p) => p.subscriptionId)).toEqual([paying.id])
  const anaSubs: Page<Subscription> = (await get(t.app, '/api/subscriptions', ana.cookie)).json()
  expect(anaSubs.total).toBe(2)
  // A newcomer without anything gets empty pages.
  const newcomer = await createUser(t)
  expect((await get(t.app, '/api/payments', newcomer.cookie)).json()).toMatchObject({ items: [], total: 0 })
  expect((await get(t.app, '/api/subscriptions?current=true', newcomer.cookie)).json()).toMatchObject({
    items: [],
    total: 0,
  })
  // Past the last page: no row comes back, the ordinary path answers with the total.
  const past: Page<Payment> = (await get(t.app, '/api/payments?page=3&pageSize=20', maria.cookie)).json()
  expect(past).toMatchObject({ items: [], total: 25, page: 3 })
  // Signed out (the session row gone) or without a cookie: refused at once.
  await db.execute(sql`delete from sessions where user_id = ${ana.id}`)
  expect((await get(t.app, '/api/payments', ana.cookie)).statusCode).toBe(401)
  expect((await get(t.app, '/api/subscriptions', ana.cookie)).statusCode).toBe(401)
  expect((await get(t.app, '/api/subscriptions')).statusCode).toBe(401)
})

it('answers in one statement exactly what the ordinary statements answer, for every filter and page', async () => {
  const db = t.database.db
  const [row] = (
    (await db.execute(sql`select token from sessions where user_id = ${maria.id} limit 1`)) as unknown as {
      rows: { token: string }[]
    }
  ).rows
  const token = row?.token as string
  const user = { id: maria.id } as SessionUser
  for (const pageSize of [1, 7, 20]) {
    for (const page of [1, 2, 4]) {
      for (const filter of [undefined, 'true', 'false'] as const) {
        const label = `${pageSize} ${page} ${filter}`
        const subscriptions = await listMySubscriptionsWithSession(t.database, token, {
          page,
          pageSize,
          current: filter,
        })
        const payments = await listMyPaymentsWithSession(t.database, token, { page, pageSize, open: filter })
        const ordinarySubscriptions = await listMySubscriptions(db, user, { page, pageSize, current: filter })
        const ordinaryPayments = await listMyPayments(db, user, { page, pageSize, open: filter })
        // A page past the end goes to the ordinary path (null); any other page is the same, item for item.
        if (ordinarySubscriptions.items.length > 0 || page === 1)
          expect(subscriptions?.data, label).toEqual(ordinarySubscriptions)
        else expect(subscriptions, label).toBeNull()
        if (ordinaryPayments.items.length > 0 || page === 1) expect(payments?.data, label).toEqual(ordinaryPayments)
        else expect(payments, label).toBeNull()
        expect(subscriptions?.session.user.id ?? maria.id).toBe(maria.id)
      }
    }
  }
  expect(await listMyPaymentsWithSession(t.database, 'no-such-token', { page: 1, pageSize: 20 })).toBeNull()
})
