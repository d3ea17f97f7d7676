// Admin edits of card subscriptions go through Stripe or are refused (issue 9 item 4, security review #16), and
// saving as active shows and audits what it settles. Runs the real Stripe gateway against the local fake Stripe.
import { eq } from 'drizzle-orm'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { payments, subscriptions } from '../../db/schema/billing'
import { auditLog } from '../../db/schema/platform'
import { createUser, type TestUser } from '../../test/users'
import { fileStripeApp } from '../stripe/stripe-fixtures'
import { cardEditMessages } from './admin-card-edits'
import { insertCustomer, insertPayment, insertSubscription, seedPlans, send } from './admin-fixtures'

const { t, fake } = fileStripeApp()
let admin: TestUser

const now = '2026-03-10T12:00:00.000Z'
const start = new Date('2026-03-01T12:00:00.000Z')
const end = new Date('2026-04-01T12:00:00.000Z')

beforeAll(async () => {
  await seedPlans(t.database.db)
  admin = await createUser(t, { admin: true, name: 'Admin' })
})
beforeEach(() => {
  t.clock.set(now)
})

let counter = 0
/** A card subscription on plan_basic, known to the fake Stripe, with one open card invoice. */
async function cardSubscription(values: Partial<typeof subscriptions.$inferInsert> = {}) {
  counter += 1
  const stripeId = `sub_admin_edit_${counter}`
  const customer = await insertCustomer(t.database.db)
  const sub = await insertSubscription(t.database.db, {
    userId: customer.id,
    billingMethod: 'card',
    stripeSubscriptionId: stripeId,
    currentPeriodStart: start,
    currentPeriodEnd: end,
    ...values,
  })
  fake.subscriptions.set(stripeId, {
    id: stripeId,
    object: 'subscription',
    status: 'active',
    cancel_at_period_end: false,
    metadata: { userId: customer.id, planId: 'plan_basic' },
    items: {
      object: 'list',
      data: [{ id: `si_${stripeId}`, object: 'subscription_item', price: { id: 'price_1', product: 'prod_x' } }],
    },
  })
  const open = await insertPayment(t.database.db, {
    subscriptionId: sub.id,
    status: 'pending',
    paymentMethod: 'card',
    type: 'renewal',
    pixReference: null,
  })
  return { sub, stripeId, customer, open }
}

function edit(id: string, body: Record<string, unknown>) {
  return send(t.app, 'PUT', `/api/admin/subscriptions/${id}`, { cookie: admin.cookie, body })
}

function inputOf(sub: typeof subscriptions.$inferSelect, values: Record<string, unknown> = {}) {
  return {
    user_id: sub.userId,
    plan_id: sub.planId,
    status: sub.status,
    current_period_start: sub.currentPeriodStart.toISOString(),
    current_period_end: sub.currentPeriodEnd.toISOString(),
    cancel_at_period_end: sub.cancelAtPeriodEnd,
    ...values,
  }
}

async function rowsOf(subscriptionId: string) {
  const [subscription] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId))
  const invoices = await t.database.db.select().from(payments).where(eq(payments.subscriptionId, subscriptionId))
  const audits = await t.database.db.select().from(auditLog).where(eq(auditLog.entityId, subscriptionId))
  return { subscription, invoices, audits }
}

const stripeCalls = () => fake.requests.map((r) => `${r.method} ${r.path}`)

describe('admin edits of a card subscription', () => {
  it('cancel: ends it at Stripe first, then here, voiding its open invoices', async () => {
    const { sub, stripeId, open } = await cardSubscription()
    const response = await edit(sub.id, inputOf(sub, { status: 'canceled' }))
    expect(response.statusCode, response.body).toBe(200)
    expect(stripeCalls()).toEqual([`DELETE /v1/subscriptions/${stripeId}`])
    expect(fake.subscriptions.get(stripeId)).toMatchObject({ status: 'canceled' })
    const { subscription, invoices, audits } = await rowsOf(sub.id)
    expect(subscription).toMatchObject({ status: 'canceled', canceledAt: new Date(now), planId: 'plan_basic' })
    expect(invoices.find((p) => p.id === open.id)?.status).toBe('void')
    expect(audits.map((a) => [a.action, (a.after as { provider?: string[] }).provider])).toEqual([
      ['subscription.admin_update', ['cancelNow']],
    ])
  })

  it('plan change: switches the price at Stripe (prorated), then the plan here', async () => {
    const { sub, stripeId } = await cardSubscription()
    const response = await edit(sub.id, inputOf(sub, { plan_id: 'plan_business' }))
    expect(response.statusCode, response.body).toBe(200)
    expect(stripeCalls()).toEqual([`GET /v1/subscriptions/${stripeId}`, `POST /v1/subscriptions/${stripeId}`])
    expect(fake.requests[1]?.body).toMatchObject({
      items: [{ id: `si_${stripeId}`, price_data: { unit_amount: '39900', currency: 'brl', product: 'prod_x' } }],
      proration_behavior: 'always_invoice',
      payment_behavior: 'pending_if_incomplete',
    })
    const { subscription } = await rowsOf(sub.id)
    expect(subscription).toMatchObject({ planId: 'plan_business', status: 'active', currentPeriodEnd: end })
  })

  it('plan change with a declined card: refused, the plan stays here (and at Stripe)', async () => {
    const { sub } = await cardSubscription()
    fake.declineNextCharge()
    const response = await edit(sub.id, inputOf(sub, { plan_id: 'plan_business' }))
    expect(response.statusCode, response.body).toBe(402)
    expect(response.json()).toMatchObject({ code: 'card_declined' })
    const { subscription, audits } = await rowsOf(sub.id)
    expect(subscription).toMatchObject({ planId: 'plan_basic', status: 'active' })
    expect(audits).toEqual([])
  })

  it('cancel at period end, then reactivate: both reach Stripe', async () => {
    const { sub, stripeId } = await cardSubscription()
    const scheduled = await edit(sub.id, inputOf(sub, { cancel_at_period_end: true }))
    expect(scheduled.statusCode, scheduled.body).toBe(200)
    expect(fake.subscriptions.get(stripeId)).toMatchObject({ cancel_at_period_end: true })
    expect((await rowsOf(sub.id)).subscription?.cancelAtPeriodEnd).toBe(true)

    const resumed = await edit(sub.id, inputOf(sub, { cancel_at_period_end: false }))
    expect(resumed.statusCode, resumed.body).toBe(200)
    expect(fake.requests.map((r) => [r.path, r.body.cancel_at_period_end])).toEqual([
      [`/v1/subscriptions/${stripeId}`, 'true'],
      [`/v1/subscriptions/${stripeId}`, 'false'],
    ])
    expect(fake.subscriptions.get(stripeId)).toMatchObject({ cancel_at_period_end: false })
    const { subscription, audits } = await rowsOf(sub.id)
    expect(subscription?.cancelAtPeriodEnd).toBe(false)
    expect(audits.map((a) => (a.after as { provider?: string[] }).provider)).toEqual([
      ['cancelAtPeriodEnd'],
      ['resumeRenewal'],
    ])
  })

  it('refuses what Stripe manages (customer, dates, other statuses, reactivating), changing nothing', async () => {
    const { sub } = await cardSubscription()
    const other = await insertCustomer(t.database.db)
    const { sub: ended } = await cardSubscription({ status: 'canceled', canceledAt: new Date('2026-03-05') })
    const before = [await rowsOf(sub.id), await rowsOf(ended.id)]

    const cases: [string, Record<string, unknown>, string][] = [
      [sub.id, inputOf(sub, { user_id: other.id }), cardEditMessages.user],
      [sub.id, inputOf(sub, { current_period_end: '2026-05-01T12:00:00.000Z' }), cardEditMessages.period],
      [sub.id, inputOf(sub, { status: 'past_due' }), cardEditMessages.status],
      [sub.id, inputOf(sub, { status: 'canceled', plan_id: 'plan_pro' }), cardEditMessages.cancelWithPlan],
      [ended.id, inputOf(ended, { status: 'active' }), cardEditMessages.canceled],
    ]
    for (const [id, body, message] of cases) {
      const response = await edit(id, body)
      expect(response.statusCode, response.body).toBe(409)
      expect(response.json()).toMatchObject({ code: 'card_subscription_managed', message })
    }
    expect(fake.requests).toEqual([])
    expect([await rowsOf(sub.id), await rowsOf(ended.id)]).toEqual(before)
  })

  it('changes nothing when Stripe fails', async () => {
    const { sub } = await cardSubscription()
    const before = await rowsOf(sub.id)
    fake.failNext({ method: 'DELETE', path: /^\/v1\/subscriptions\// }, 400, {
      type: 'invalid_request_error',
      message: 'nope',
    })
    const response = await edit(sub.id, inputOf(sub, { status: 'canceled' }))
    expect(response.statusCode).toBe(502)
    expect(response.json()).toMatchObject({ code: 'card_provider_error' })
    expect(await rowsOf(sub.id)).toEqual(before)
  })
})

describe('saving as active: settlement preview and audit', () => {
  it('previews the pending_pix invoices and their total, settles exactly those, and audits the list', async () => {
    const customer = await insertCustomer(t.database.db)
    const sub = await insertSubscription(t.database.db, {
      userId: customer.id,
      status: 'pending_pix',
      currentPeriodStart: start,
      currentPeriodEnd: end,
    })
    const first = await insertPayment(t.database.db, { subscriptionId: sub.id, amountCents: 9_900 })
    const renewal = await insertPayment(t.database.db, {
      subscriptionId: sub.id,
      type: 'renewal',
      amountCents: 19_900,
      dueDate: end,
    })
    const lapsed = await insertPayment(t.database.db, {
      subscriptionId: sub.id,
      type: 'upgrade',
      amountCents: 500,
      targetPlanId: 'plan_pro',
      pricedPeriodEnd: new Date('2026-03-01T12:00:00.000Z'),
    })
    const failed = await insertPayment(t.database.db, { subscriptionId: sub.id, status: 'failed' })

    const preview = await send(t.app, 'GET', `/api/admin/subscriptions/${sub.id}/settlement-preview`, {
      cookie: admin.cookie,
    })
    expect(preview.statusCode, preview.body).toBe(200)
    expect(preview.json()).toEqual({
      invoices: [
        {
          id: first.id,
          type: 'new',
          amountCents: 9_900,
          dueDate: first.dueDate.toISOString(),
          pixReference: first.pixReference,
        },
        {
          id: renewal.id,
          type: 'renewal',
          amountCents: 19_900,
          dueDate: end.toISOString(),
          pixReference: renewal.pixReference,
        },
      ],
      totalCents: 29_800,
    })
    const missing = await send(t.app, 'GET', '/api/admin/subscriptions/nope/settlement-preview', {
      cookie: admin.cookie,
    })
    expect(missing.statusCode).toBe(404)

    const saved = await edit(sub.id, inputOf(sub, { status: 'active' }))
    expect(saved.statusCode, saved.body).toBe(200)
    const { invoices, audits } = await rowsOf(sub.id)
    const status = Object.fromEntries(invoices.map((p) => [p.id, [p.status, p.paymentMethod]]))
    expect(status).toEqual({
      [first.id]: ['paid', 'manual_confirmation'],
      [renewal.id]: ['paid', 'manual_confirmation'],
      [lapsed.id]: ['pending_pix', 'pix'],
      [failed.id]: ['failed', 'pix'],
    })
    const settledAudit = audits.find((a) => a.action === 'subscription.invoices_settled')
    expect(settledAudit?.actorId).toBe(admin.id)
    expect(settledAudit?.after).toEqual({
      invoices: [
        { id: first.id, type: 'new', amountCents: 9_900 },
        { id: renewal.id, type: 'renewal', amountCents: 19_900 },
      ],
      totalCents: 29_800,
      paymentMethod: 'manual_confirmation',
    })
  })
})
