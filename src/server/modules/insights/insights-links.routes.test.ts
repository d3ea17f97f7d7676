// Issue 15: "Each number links to the filtered admin list." Every figure of the admin home is compared with the total
// of the list its link opens (the filters of src/domain/admin-filters.ts, which the home page links with), on a known
// state read at 2026-07-20 12:00 in São Paulo. Also: the new filters refuse bad values in Portuguese, and the failed
// provisioning deliveries are listed and can be re-queued (audited, idempotent).
import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminHomeFilters } from '../../../domain/admin-filters'
import type { AdminInsights } from '../../../domain/contracts/insights'
import { platformEvents } from '../../db/schema/lifecycle'
import { auditLog } from '../../db/schema/platform'
import { createTestApp, type TestApp, TestClock } from '../../test/test-app'
import { createUser, get, post, type TestUser } from '../../test/users'
import { seedPlans } from '../billing/test-fixtures'
import { insertCustomer, insertPayment, insertSubscription } from '../lifecycle/lifecycle-fixtures'

const now = new Date('2026-07-20T15:00:00.000Z')
const clock = new TestClock(now)
const day = 86_400_000
let t: TestApp
let admin: TestUser
let customer: TestUser
const failedEventIds: string[] = []
let deliveredEventId = ''

beforeAll(async () => {
  t = await createTestApp({ clock })
  const db = t.database.db
  await seedPlans(db)
  admin = await createUser(t, { admin: true, name: 'Admin' })
  customer = await createUser(t, { name: 'Cliente Comum' })
  const later = new Date(now.getTime() + 10 * day)
  const subs: Parameters<typeof insertSubscription>[1][] = []
  const add = async (values: Omit<Parameters<typeof insertSubscription>[1], 'userId'>) => {
    const person = await insertCustomer(db)
    const row = await insertSubscription(db, { userId: person.id, ...values })
    subs.push(values as Parameters<typeof insertSubscription>[1])
    return row
  }
  // Paying (active or past_due), by plan and method.
  const basicPix = await add({ planId: 'plan_basic', billingMethod: 'pix', currentPeriodEnd: later })
  await add({ planId: 'plan_pro', billingMethod: 'card', currentPeriodEnd: later })
  await add({ planId: 'plan_business', billingMethod: 'pix', status: 'past_due', currentPeriodEnd: later })
  // Not paying: trialing, pending_pix, canceled.
  await add({ planId: 'plan_pro', billingMethod: 'card', status: 'trialing', currentPeriodEnd: later })
  const pendingSub = await add({ planId: 'plan_basic', status: 'pending_pix', currentPeriodEnd: later })
  // Cancellations scheduled: the São Paulo month of July ends at 2026-08-01T03:00Z.
  await add({ planId: 'plan_pro', cancelAtPeriodEnd: true, currentPeriodEnd: new Date('2026-07-25T15:00:00.000Z') })
  await add({
    planId: 'plan_basic',
    billingMethod: 'card',
    status: 'past_due',
    cancelAtPeriodEnd: true,
    currentPeriodEnd: new Date('2026-08-01T02:59:59.000Z'),
  })
  await add({
    planId: 'plan_basic',
    status: 'trialing',
    cancelAtPeriodEnd: true,
    currentPeriodEnd: new Date('2026-07-28T15:00:00.000Z'),
  })
  // Not this month (August in São Paulo), not in force, or last month.
  await add({ planId: 'plan_pro', cancelAtPeriodEnd: true, currentPeriodEnd: new Date('2026-08-01T03:00:00.000Z') })
  await add({
    planId: 'plan_pro',
    status: 'canceled',
    cancelAtPeriodEnd: true,
    currentPeriodEnd: new Date('2026-07-10T15:00:00.000Z'),
  })
  await add({ planId: 'plan_pro', cancelAtPeriodEnd: true, currentPeriodEnd: new Date('2026-07-01T02:00:00.000Z') })
  expect(subs.length).toBe(11)

  // Invoices: open (pending_pix and pending card) due ahead and overdue, and settled ones that are not receivables.
  const pay = (values: Omit<Parameters<typeof insertPayment>[1], 'subscriptionId'>, subscriptionId = basicPix.id) =>
    insertPayment(db, { subscriptionId, ...values })
  await pay({ dueDate: new Date(now.getTime() + 2 * day), amountCents: 9_900 })
  await pay({ dueDate: now, amountCents: 19_900 }, pendingSub.id) // due at this very instant: not yet overdue
  await pay({ dueDate: new Date(now.getTime() - 1), amountCents: 39_900 })
  await pay({
    dueDate: new Date(now.getTime() - 5 * day),
    amountCents: 9_900,
    status: 'pending',
    paymentMethod: 'card',
  })
  await pay({
    dueDate: new Date(now.getTime() + 5 * day),
    amountCents: 19_900,
    status: 'pending',
    paymentMethod: 'card',
  })
  await pay({ dueDate: new Date(now.getTime() - 3 * day), status: 'paid', paidAt: new Date(now.getTime() - 3 * day) })
  await pay({ dueDate: new Date(now.getTime() - 2 * day), status: 'review' })
  await pay({ dueDate: new Date(now.getTime() - 2 * day), status: 'void' })
  await pay({ dueDate: new Date(now.getTime() - 2 * day), status: 'failed', paymentMethod: 'card' })

  // Provisioning deliveries: two failed (pending after attempts), one pending never tried, one delivered, one skipped.
  const event = async (values: Partial<typeof platformEvents.$inferInsert>) => {
    const id = randomUUID()
    await db.insert(platformEvents).values({
      id,
      subscriptionId: basicPix.id,
      type: 'subscription.activated',
      body: '{}',
      nextAttemptAt: new Date(now.getTime() + 3_600_000),
      createdAt: new Date(now.getTime() - day),
      updatedAt: new Date(now.getTime() - day),
      ...values,
    })
    return id
  }
  failedEventIds.push(await event({ attempts: 3, lastError: 'plataforma respondeu 500: erro' }))
  failedEventIds.push(await event({ attempts: 1, lastError: 'plataforma inacessível: timeout' }))
  await event({ attempts: 0, nextAttemptAt: now })
  deliveredEventId = await event({ status: 'delivered', attempts: 1, deliveredAt: now })
  await event({ status: 'skipped' })
}, 180_000)
afterAll(async () => {
  await t.close()
})

function query(params: Record<string, string>): string {
  return new URLSearchParams(params).toString()
}

async function total(list: 'subscriptions' | 'payments' | 'platform-events', params: Record<string, string>) {
  const response = await get(t.app, `/api/admin/${list}?${query(params)}&pageSize=100`, admin.cookie)
  expect(response.statusCode, response.body).toBe(200)
  const body = response.json()
  expect(body.totalExact).toBe(true)
  expect(body.items).toHaveLength(body.total)
  return body as { total: number; items: Record<string, unknown>[] }
}

describe('each admin home figure equals the total of the list it links to', () => {
  it('subscriptions: MRR, plans, PIX × Cartão, past_due, cancellations scheduled this month', async () => {
    const home: AdminInsights = (await get(t.app, '/api/admin/insights', admin.cookie)).json()
    const paying = home.current.byMethod.reduce((sum, m) => sum + m.count, 0)
    expect(paying).toBe(7)
    const payingList = await total('subscriptions', adminHomeFilters.paying)
    expect(payingList.total).toBe(paying)
    // The MRR is the sum of the listed subscriptions' plan prices.
    const listed = payingList.items.map((s) => (s.plan as { priceCents: number }).priceCents)
    expect(listed.reduce((a, b) => a + b, 0)).toBe(home.current.mrrCents)
    expect(home.current.mrrCents).toBe(9_900 + 19_900 + 39_900 + 19_900 + 9_900 + 19_900 + 19_900)

    for (const plan of home.current.byPlan) {
      expect((await total('subscriptions', adminHomeFilters.plan(plan.planId))).total, plan.planId).toBe(plan.count)
    }
    for (const m of home.current.byMethod) {
      const list = await total('subscriptions', adminHomeFilters.method(m.method))
      expect(list.total, m.method).toBe(m.count)
      expect(list.items.every((s) => s.billingMethod === m.method)).toBe(true)
    }
    expect(home.current.byMethod.map((m) => m.count)).toEqual([5, 2])

    expect(home.current.pastDue).toBe(2)
    expect((await total('subscriptions', adminHomeFilters.pastDue)).total).toBe(home.current.pastDue)

    expect(home.current.cancellationsThisMonth).toBe(3)
    const scheduled = await total('subscriptions', adminHomeFilters.cancellations(new Date(home.now)))
    expect(scheduled.total).toBe(home.current.cancellationsThisMonth)
    expect(adminHomeFilters.cancellations(new Date(home.now))).toEqual({ cancel: 'scheduled', periodEnd: '2026-07' })
    // cancel=scheduled alone: also next month's, never the canceled one.
    const anyMonth = await total('subscriptions', { cancel: 'scheduled' })
    expect(anyMonth.total).toBe(5)
    expect(anyMonth.items.some((s) => s.status === 'canceled')).toBe(false)
  })

  it('payments: open receivables, due and overdue parts, in review, PIX waiting', async () => {
    const home: AdminInsights = (await get(t.app, '/api/admin/insights', admin.cookie)).json()
    const r = home.current.receivables
    expect(r).toEqual({
      count: 5,
      totalCents: 9_900 + 19_900 + 39_900 + 9_900 + 19_900,
      dueCount: 3,
      dueCents: 9_900 + 19_900 + 19_900,
      overdueCount: 2,
      overdueCents: 39_900 + 9_900,
    })
    const sum = (items: Record<string, unknown>[]) => items.reduce((s, p) => s + Number(p.amountCents), 0)
    const open = await total('payments', adminHomeFilters.receivables)
    expect([open.total, sum(open.items)]).toEqual([r.count, r.totalCents])
    const due = await total('payments', adminHomeFilters.receivablesDue)
    expect([due.total, sum(due.items)]).toEqual([r.dueCount, r.dueCents])
    const overdue = await total('payments', adminHomeFilters.receivablesOverdue)
    expect([overdue.total, sum(overdue.items)]).toEqual([r.overdueCount, r.overdueCents])
    // The due filter combines with the others.
    expect((await total('payments', { due: 'overdue', method: 'card' })).total).toBe(1)

    expect((await total('payments', adminHomeFilters.inReview)).total).toBe(home.needsYou.inReview.count)
    expect(home.needsYou.pixAwaiting.count).toBe(3)
    expect((await total('payments', adminHomeFilters.pixAwaiting)).total).toBe(home.needsYou.pixAwaiting.count)
  })

  it('provisioning: the failed deliveries', async () => {
    const home: AdminInsights = (await get(t.app, '/api/admin/insights', admin.cookie)).json()
    expect(home.needsYou.failedDeliveries.count).toBe(2)
    const failed = await total('platform-events', adminHomeFilters.failedDeliveries)
    expect(failed.total).toBe(home.needsYou.failedDeliveries.count)
    expect(failed.items.map((e) => e.id).sort()).toEqual([...failedEventIds].sort())
    expect(failed.items[0]).toMatchObject({ status: 'pending', lastError: 'plataforma inacessível: timeout' })
    expect((await total('platform-events', {})).total).toBe(5)
  })

  it('the CSV exports take the same filters', async () => {
    const csv = await get(
      t.app,
      `/api/admin/exports/payments.csv?${query(adminHomeFilters.receivablesOverdue)}`,
      admin.cookie,
    )
    expect(csv.statusCode, csv.body).toBe(200)
    expect(csv.body.trim().split('\r\n')).toHaveLength(1 + 2)
    const subs = await get(
      t.app,
      `/api/admin/exports/subscriptions.csv?${query(adminHomeFilters.cancellations(now))}`,
      admin.cookie,
    )
    expect(subs.statusCode, subs.body).toBe(200)
    expect(subs.body.trim().split('\r\n')).toHaveLength(1 + 3)
  })
})

describe('the new filters refuse bad values with a 400 in Portuguese', () => {
  it.each([
    ['subscriptions', 'method=boleto', 'Método de cobrança inválido: use pix ou card.'],
    ['subscriptions', 'status=pagantes', 'Status inválido'],
    ['subscriptions', 'cancel=now', 'Filtro de cancelamento inválido: use scheduled.'],
    ['subscriptions', 'periodEnd=2026-13', 'Mês de fim do período inválido'],
    ['subscriptions', 'periodEnd=julho', 'Mês de fim do período inválido'],
    ['payments', 'due=soon', 'Filtro de vencimento inválido'],
    ['payments', 'status=aberto', 'Status inválido'],
    ['platform-events', 'status=falhou', 'Status inválido: use pending, delivered, skipped ou failed.'],
  ])('%s?%s', async (list, params, message) => {
    const response = await get(t.app, `/api/admin/${list}?${params}`, admin.cookie)
    expect(response.statusCode, response.body).toBe(400)
    expect(response.json()).toMatchObject({ code: 'validation_failed' })
    expect(response.json().message).toContain(message)
  })
})

describe('re-queueing a failed delivery (POST /api/admin/platform-events/:id/retry)', () => {
  it('is for admins only', async () => {
    const url = `/api/admin/platform-events/${failedEventIds[0]}/retry`
    expect((await post(t.app, url, {})).statusCode).toBe(401)
    expect((await post(t.app, url, {}, customer.cookie)).statusCode).toBe(403)
  })

  it('makes the event due now, once, audited; delivered events and unknown ids are left alone', async () => {
    const id = failedEventIds[0] ?? ''
    const db = t.database.db
    const first = await post(t.app, `/api/admin/platform-events/${id}/retry`, {}, admin.cookie)
    expect(first.statusCode, first.body).toBe(200)
    expect(first.json()).toMatchObject({ requeued: true, event: { id, nextAttemptAt: now.toISOString(), attempts: 3 } })
    const [row] = await db.select().from(platformEvents).where(eq(platformEvents.id, id))
    expect(row?.nextAttemptAt.toISOString()).toBe(now.toISOString())
    expect(row?.status).toBe('pending')

    const again = await post(t.app, `/api/admin/platform-events/${id}/retry`, {}, admin.cookie)
    expect(again.statusCode).toBe(200)
    expect(again.json().requeued).toBe(false)
    const audits = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entity, 'platform_event'), eq(auditLog.entityId, id)))
    expect(audits).toHaveLength(1)
    expect(audits[0]).toMatchObject({ actorId: admin.id, action: 'platform_event.retry' })

    const delivered = await post(t.app, `/api/admin/platform-events/${deliveredEventId}/retry`, {}, admin.cookie)
    expect(delivered.json()).toMatchObject({ requeued: false, event: { status: 'delivered' } })
    const missing = await post(t.app, '/api/admin/platform-events/nao-existe/retry', {}, admin.cookie)
    expect(missing.statusCode).toBe(404)
  })
})
