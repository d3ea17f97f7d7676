import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { payments } from '../../db/schema/billing'
import { auditLog } from '../../db/schema/platform'
import { createTestApp, type TestApp } from '../../test/test-app'
import { expectInvariantsHold } from '../../test/invariants'
import { createUser, type TestUser } from '../../test/users'
import { e2eId, insertCustomer, insertPayment, insertSubscription, seedPlans, send } from './admin-fixtures'
import type { AdminPayment } from './admin-lists.repo'
import { storedSubscription, storedPayment } from '../billing/test-fixtures'

let t: TestApp
let admin: TestUser
let otherAdmin: TestUser

const now = '2026-03-10T12:00:00.000Z'

beforeAll(async () => {
  t = await createTestApp()
  await seedPlans(t.database.db)
  admin = await createUser(t, { admin: true, name: 'Admin' })
  otherAdmin = await createUser(t, { admin: true, name: 'Outra Admin' })
})
afterAll(async () => {
  await t.close()
})
beforeEach(() => {
  t.clock.set(now)
})

function confirm(paymentId: string, body: unknown, cookie = admin.cookie) {
  return send(t.app, 'POST', `/api/admin/payments/${paymentId}/confirm`, { cookie, body })
}

const subscriptionRow = (id: string) => storedSubscription(t.database.db, id)

const paymentRow = (id: string) => storedPayment(t.database.db, id)

/** A pending_pix checkout: the subscription and its 'new' invoice of R$ 99,00. */
async function pixCheckout() {
  const customer = await insertCustomer(t.database.db)
  const subscription = await insertSubscription(t.database.db, {
    userId: customer.id,
    status: 'pending_pix',
    currentPeriodStart: new Date('2026-03-08T10:00:00.000Z'),
    currentPeriodEnd: new Date('2026-04-08T10:00:00.000Z'),
  })
  const payment = await insertPayment(t.database.db, { subscriptionId: subscription.id, amountCents: 9_900 })
  return { customer, subscription, payment }
}

describe('POST /api/admin/payments/:id/confirm (admin-confirm-payment)', () => {
  it('marks a new subscription invoice paid and starts a one-month period at the confirmation', async () => {
    const { subscription, payment } = await pixCheckout()
    const e2e = e2eId('confirm1')
    const response = await confirm(payment.id, { amount_received_cents: 9_900, end_to_end_id: e2e })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({
      flagged: false,
      payment: {
        id: payment.id,
        status: 'paid',
        paidAt: now,
        amountReceivedCents: 9_900,
        pixEndToEndId: e2e,
        receiptUrl: `/dashboard/payments/${payment.id}/receipt`,
      },
    })
    expect(await subscriptionRow(subscription.id)).toMatchObject({
      status: 'active',
      currentPeriodStart: new Date(now),
      currentPeriodEnd: new Date('2026-04-10T12:00:00.000Z'),
      anchorDay: 10,
    })
    const audits = await t.database.db.select().from(auditLog).where(eq(auditLog.actorId, admin.id))
    const mine = audits.filter((a) => a.entityId === payment.id || a.entityId === subscription.id)
    expect(mine.map((a) => a.action).sort()).toEqual(['payment.confirmed', 'subscription.activated'])
  })

  it('confirms once when two admins click at the same moment', async () => {
    const { subscription, payment } = await pixCheckout()
    const body = { amount_received_cents: 9_900 }
    const [a, b] = await Promise.all([confirm(payment.id, body), confirm(payment.id, body, otherAdmin.cookie)])
    expect(a?.statusCode, a?.body).toBe(200)
    expect(b?.statusCode, b?.body).toBe(200)
    expect(a?.json().payment).toEqual(b?.json().payment)
    expect(await paymentRow(payment.id)).toMatchObject({ status: 'paid', paidAt: new Date(now) })
    expect((await subscriptionRow(subscription.id)).currentPeriodEnd).toEqual(new Date('2026-04-10T12:00:00.000Z'))
    const confirmed = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, payment.id), eq(auditLog.action, 'payment.confirmed')))
    expect(confirmed).toHaveLength(1)
    const extended = await t.database.db.select().from(auditLog).where(eq(auditLog.entityId, subscription.id))
    expect(extended).toHaveLength(1)

    // A later retry changes nothing either.
    t.clock.set('2026-03-20T12:00:00.000Z')
    const retry = await confirm(payment.id, body)
    expect(retry.json().payment).toEqual(a?.json().payment)
  })

  it('flags a payment whose received amount differs: review, nothing activated', async () => {
    const { subscription, payment } = await pixCheckout()
    const response = await confirm(payment.id, { amount_received_cents: 9_000 })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({
      flagged: true,
      payment: { status: 'review', amountReceivedCents: 9_000, paidAt: null },
    })
    expect((await subscriptionRow(subscription.id)).status).toBe('pending_pix')

    // Once the difference is settled, the admin confirms the full amount.
    const settled = await confirm(payment.id, { amount_received_cents: 9_900 })
    expect(settled.json()).toMatchObject({ flagged: false, payment: { status: 'paid', amountReceivedCents: 9_900 } })
    expect((await subscriptionRow(subscription.id)).status).toBe('active')
  })

  it('refuses an end-to-end id another payment already has', async () => {
    const first = await pixCheckout()
    const second = await pixCheckout()
    const e2e = e2eId('shared')
    expect((await confirm(first.payment.id, { amount_received_cents: 9_900, end_to_end_id: e2e })).statusCode).toBe(200)
    const response = await confirm(second.payment.id, { amount_received_cents: 9_900, end_to_end_id: e2e })
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({
      code: 'e2e_id_taken',
      detail: 'Este identificador de transação PIX já foi usado em outro pagamento.',
    })
    expect((await paymentRow(second.payment.id)).status).toBe('pending_pix')
    expect((await subscriptionRow(second.subscription.id)).status).toBe('pending_pix')
  })

  it('gives concurrent confirmations of two payments with one end-to-end id one winner', async () => {
    const first = await pixCheckout()
    const second = await pixCheckout()
    const body = { amount_received_cents: 9_900, end_to_end_id: e2eId('race') }
    const results = await Promise.all([confirm(first.payment.id, body), confirm(second.payment.id, body)])
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409])
  })

  it('rolls a renewal forward one month keeping the anchor day: 31 Jan → 28 Feb → 31 Mar', async () => {
    t.clock.set('2026-02-27T09:00:00.000Z')
    const customer = await insertCustomer(t.database.db)
    const subscription = await insertSubscription(t.database.db, {
      userId: customer.id,
      status: 'active',
      currentPeriodStart: new Date('2026-01-31T15:00:00.000Z'),
      currentPeriodEnd: new Date('2026-02-28T15:00:00.000Z'),
      anchorDay: 31,
    })
    const renewal = await insertPayment(t.database.db, {
      subscriptionId: subscription.id,
      type: 'renewal',
      dueDate: new Date('2026-02-28T15:00:00.000Z'),
    })
    expect((await confirm(renewal.id, { amount_received_cents: 9_900 })).statusCode).toBe(200)
    expect(await subscriptionRow(subscription.id)).toMatchObject({
      status: 'active',
      currentPeriodStart: new Date('2026-02-28T15:00:00.000Z'),
      currentPeriodEnd: new Date('2026-03-31T15:00:00.000Z'),
      anchorDay: 31,
    })

    const next = await insertPayment(t.database.db, {
      subscriptionId: subscription.id,
      type: 'renewal',
      dueDate: new Date('2026-03-31T15:00:00.000Z'),
    })
    expect((await confirm(next.id, { amount_received_cents: 9_900 })).statusCode).toBe(200)
    expect((await subscriptionRow(subscription.id)).currentPeriodEnd).toEqual(new Date('2026-04-30T15:00:00.000Z'))
  })

  it('restarts a lapsed past_due subscription from the payment date', async () => {
    const customer = await insertCustomer(t.database.db)
    const subscription = await insertSubscription(t.database.db, {
      userId: customer.id,
      status: 'past_due',
      currentPeriodStart: new Date('2026-01-20T12:00:00.000Z'),
      currentPeriodEnd: new Date('2026-02-20T12:00:00.000Z'),
    })
    const renewal = await insertPayment(t.database.db, {
      subscriptionId: subscription.id,
      type: 'renewal',
      status: 'pending',
    })
    expect((await confirm(renewal.id, { amount_received_cents: 9_900 })).statusCode).toBe(200)
    expect(await subscriptionRow(subscription.id)).toMatchObject({
      status: 'active',
      currentPeriodStart: new Date(now),
      currentPeriodEnd: new Date('2026-04-10T12:00:00.000Z'),
      anchorDay: 10,
    })
  })

  it('switches the plan when an upgrade invoice is confirmed, keeping the period', async () => {
    const customer = await insertCustomer(t.database.db)
    const subscription = await insertSubscription(t.database.db, { userId: customer.id, status: 'active' })
    const upgrade = await insertPayment(t.database.db, {
      subscriptionId: subscription.id,
      type: 'upgrade',
      targetPlanId: 'plan_pro',
      amountCents: 7_000,
      metadata: { type: 'upgrade', targetPlanId: 'plan_pro' },
    })
    const response = await confirm(upgrade.id, { amount_received_cents: 7_000 })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json().payment).toMatchObject({ type: 'upgrade', targetPlan: { id: 'plan_pro' } })
    const after = await subscriptionRow(subscription.id)
    expect(after).toMatchObject({
      planId: 'plan_pro',
      status: 'active',
      currentPeriodStart: subscription.currentPeriodStart,
      currentPeriodEnd: subscription.currentPeriodEnd,
    })
  })

  it('refuses payments that are not waiting and answers 404 for a missing one', async () => {
    const { payment } = await pixCheckout()
    await t.database.db.update(payments).set({ status: 'void' }).where(eq(payments.id, payment.id))
    const voided = await confirm(payment.id, { amount_received_cents: 9_900 })
    expect(voided.statusCode).toBe(409)
    expect(voided.json()).toMatchObject({ code: 'payment_not_pending' })
    expect((await confirm(randomUUID(), { amount_received_cents: 9_900 })).statusCode).toBe(404)
    const invalid = await confirm(payment.id, { amount_received_cents: 9_900, end_to_end_id: 'curto' })
    expect(invalid.statusCode).toBe(400)
    expect(invalid.json().detail).toBe('O identificador da transação (E2E) tem 32 letras e números.')
  })
})

describe('GET /api/admin/payments', () => {
  it('searches by customer, id and PIX reference, filters, sorts and pages', async () => {
    const customer = await insertCustomer(t.database.db, { name: 'Yasmin Pagadora', email: 'yasmin.pag@example.com' })
    const subscription = await insertSubscription(t.database.db, { userId: customer.id, planId: 'plan_pro' })
    const rows = []
    for (let i = 0; i < 4; i++) {
      rows.push(
        await insertPayment(t.database.db, {
          subscriptionId: subscription.id,
          amountCents: [5_000, 20_000, 1_000, 9_900][i],
          status: i === 0 ? 'paid' : 'pending_pix',
          createdAt: new Date(Date.UTC(2026, 0, 10 + i)),
        }),
      )
    }
    const list = async (query: string) => {
      const response = await send(t.app, 'GET', `/api/admin/payments?${query}`, { cookie: admin.cookie })
      expect(response.statusCode, response.body).toBe(200)
      return response.json() as { items: AdminPayment[]; total: number; totalExact: boolean }
    }
    const ids = (page: { items: AdminPayment[] }) => page.items.map((p) => p.id)

    const byCustomer = await list('q=Yasmin')
    expect(byCustomer.total).toBe(4)
    expect(ids(byCustomer)).toEqual([rows[3]!.id, rows[2]!.id, rows[1]!.id, rows[0]!.id])
    expect(byCustomer.items[0]).toMatchObject({
      customer: { id: customer.id, name: 'Yasmin Pagadora', email: 'yasmin.pag@example.com' },
      plan: { id: 'plan_pro', name: 'Profissional', priceCents: 19_900 },
      targetPlan: null,
    })
    expect(ids(await list('q=YASMIN.PAG&sort=amount&dir=asc'))).toEqual(
      [rows[2], rows[0], rows[3], rows[1]].map((r) => r!.id),
    )
    expect(ids(await list('q=yasmin&sort=amount&dir=desc&pageSize=1&page=2'))).toEqual([rows[3]!.id])
    expect(ids(await list('q=yasmin&status=paid'))).toEqual([rows[0]!.id])
    expect(ids(await list('q=yasmin&method=card'))).toEqual([])
    expect(ids(await list(`q=${rows[2]!.pixReference}`))).toEqual([rows[2]!.id])
    expect(ids(await list(`q=${rows[1]!.id}`))).toEqual([rows[1]!.id])
  })
})

describe('db:check', () => {
  it('leaves every invariant of the database holding', async () => {
    // The fixtures insert subscriptions and invoices directly (active without a payment, any status): the
    // invariants about how rows came to be are left out; those about what the confirmations did are checked.
    await expectInvariantsHold(t.database.db, {
      except: ['open_invoices_per_period', 'paid_without_reference', 'paid_without_date', 'active_period_unpaid'],
    })
  })
})
