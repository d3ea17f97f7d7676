import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import Stripe from 'stripe'
import { beforeAll, describe, expect, it } from 'vitest'
import { DomainError } from '../../../domain/errors'
import { payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import { auditLog, webhookEvents } from '../../db/schema/platform'
import { expectInvariantsHold } from '../../test/invariants'
import { createUser, post, type TestUser } from '../../test/users'
import { fileStripeApp, sendStripeEvent, stripeEvent as event, webhookSecret } from './stripe-fixtures'

const day = 86_400

const { t, fake } = fileStripeApp()
const sendEvent = (body: unknown, signature?: string) => sendStripeEvent(t.app, body, signature)
let ana: TestUser
let bruno: TestUser
let t0: number // the test clock's "now", in Stripe's seconds

beforeAll(async () => {
  await t.database.db.insert(plans).values([
    { id: 'plan_basic', name: 'Básico', priceCents: 9900 },
    { id: 'plan_pro', name: 'Pro', priceCents: 19900, popular: true },
    { id: 'plan_business', name: 'Empresarial', priceCents: 39900 },
    { id: 'plan_old', name: 'Antigo', priceCents: 4900, active: false },
  ])
  ana = await createUser(t, { name: 'Ana Cartão' })
  bruno = await createUser(t, { name: 'Bruno Cartão' })
  t0 = Math.floor(t.clock.now().getTime() / 1000)
})

// Stripe-shaped objects, as the API (2025+) sends them.

function subscriptionObject(
  id: string,
  o: {
    user: TestUser
    planId: string
    start: number
    end: number
    status?: string
    cancelAtPeriodEnd?: boolean
    amount?: number
    legacyPeriod?: boolean
  },
) {
  const period = { current_period_start: o.start, current_period_end: o.end }
  return {
    id,
    object: 'subscription',
    customer: `cus_${o.user.id}`,
    status: o.status ?? 'active',
    cancel_at_period_end: o.cancelAtPeriodEnd ?? false,
    created: o.start,
    metadata: { userId: o.user.id, planId: o.planId },
    items: {
      object: 'list',
      data: [
        {
          id: `si_${id}`,
          object: 'subscription_item',
          price: { id: 'price_1', product: 'prod_existing', unit_amount: o.amount ?? 19900, currency: 'brl' },
          ...(o.legacyPeriod ? {} : period),
        },
      ],
    },
    ...(o.legacyPeriod ? period : {}),
  }
}

function invoiceObject(
  id: string,
  o: {
    subscription: string
    user?: TestUser
    planId?: string
    amount: number
    reason: string
    start: number
    end: number
  },
) {
  const metadata = o.user && o.planId ? { userId: o.user.id, planId: o.planId } : {}
  return {
    id,
    object: 'invoice',
    customer: o.user ? `cus_${o.user.id}` : 'cus_unknown',
    currency: 'brl',
    status: 'paid',
    billing_reason: o.reason,
    amount_paid: o.amount,
    created: o.start,
    due_date: null,
    hosted_invoice_url: `https://invoice.stripe.com/i/${id}`,
    status_transitions: { paid_at: o.start },
    parent: { type: 'subscription_details', subscription_details: { subscription: o.subscription, metadata } },
    lines: { object: 'list', data: [{ id: `il_${id}`, amount: o.amount, period: { start: o.start, end: o.end } }] },
  }
}

function checkoutSessionObject(o: { subscription: string; user: TestUser; planId: string }) {
  return {
    id: `cs_test_${randomUUID()}`,
    object: 'checkout.session',
    mode: 'subscription',
    payment_status: 'paid',
    status: 'complete',
    customer: `cus_${o.user.id}`,
    client_reference_id: o.user.id,
    subscription: o.subscription,
    metadata: { userId: o.user.id, planId: o.planId },
  }
}

async function subscriptionRow(stripeSubscriptionId: string) {
  return t.database.db.select().from(subscriptions).where(eq(subscriptions.stripeSubscriptionId, stripeSubscriptionId))
}

async function paymentRows(subscriptionId: string) {
  return t.database.db.select().from(payments).where(eq(payments.subscriptionId, subscriptionId))
}

/** The first invoice of a new plan_pro subscription (R$ 199,00, 31 days from t0), paid. */
function firstProInvoice(id: string, subscription: string, user: TestUser) {
  return invoiceObject(id, {
    subscription,
    user,
    planId: 'plan_pro',
    amount: 19900,
    reason: 'subscription_create',
    start: t0,
    end: t0 + 31 * day,
  })
}

const newSubId = () => `sub_${randomUUID().replaceAll('-', '')}`

describe('POST /api/checkout/card with Stripe', () => {
  it('creates a monthly BRL Checkout Session in subscription mode and returns its url', async () => {
    const response = await post(t.app, '/api/checkout/card', { plan_id: 'plan_pro' }, ana.cookie)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json().url).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_fake_\d+$/)

    const created = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions')
    expect(created).toHaveLength(1)
    expect(created[0]!.body).toEqual({
      mode: 'subscription',
      line_items: [
        {
          quantity: '1',
          price_data: {
            currency: 'brl',
            unit_amount: '19900',
            recurring: { interval: 'month' },
            product_data: { name: 'Pro' },
          },
        },
      ],
      customer_email: ana.email,
      client_reference_id: ana.id,
      metadata: { userId: ana.id, planId: 'plan_pro' },
      subscription_data: { metadata: { userId: ana.id, planId: 'plan_pro' } },
      success_url: 'http://localhost:3000/dashboard/my-subscriptions?checkout=success',
      cancel_url: 'http://localhost:3000/plans?checkout=canceled',
      locale: 'pt-BR',
    })
    expect(created[0]!.headers['idempotency-key']).toMatch(new RegExp(`^card-checkout:${ana.id}:plan_pro:`))
  })

  it('returns the same session for a double click, and a new one ten minutes later', async () => {
    const first = await post(t.app, '/api/checkout/card', { plan_id: 'plan_basic' }, bruno.cookie)
    const second = await post(t.app, '/api/checkout/card', { plan_id: 'plan_basic' }, bruno.cookie)
    expect(second.json().url).toBe(first.json().url)
    const keys = fake.requests.map((r) => r.headers['idempotency-key'])
    expect(keys).toHaveLength(2)
    expect(keys[1]).toBe(keys[0])

    t.clock.advance(10 * 60 * 1000)
    const later = await post(t.app, '/api/checkout/card', { plan_id: 'plan_basic' }, bruno.cookie)
    expect(later.json().url).not.toBe(first.json().url)
  })

  it('answers 404 for an unknown or inactive plan and 401 without a session, without calling Stripe', async () => {
    expect((await post(t.app, '/api/checkout/card', { plan_id: 'plan_nope' }, ana.cookie)).statusCode).toBe(404)
    const inactive = await post(t.app, '/api/checkout/card', { plan_id: 'plan_old' }, ana.cookie)
    expect(inactive.json()).toMatchObject({ status: 404, code: 'plan_not_found' })
    const anonymous = await post(t.app, '/api/checkout/card', { plan_id: 'plan_pro' })
    expect(anonymous.json()).toMatchObject({ status: 401, code: 'unauthenticated' })
    expect(fake.requests).toHaveLength(0)
  })

  it('turns a provider failure into 502 card_provider_error with a Portuguese message', async () => {
    fake.failNext({ method: 'POST', path: /^\/v1\/checkout\/sessions$/ }, 400, {
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      message: 'Invalid currency: brl is not supported',
    })
    const response = await post(t.app, '/api/checkout/card', { plan_id: 'plan_pro' }, ana.cookie)
    expect(response.statusCode).toBe(502)
    expect(response.headers['content-type']).toContain('application/problem+json')
    const body = response.json()
    expect(body).toMatchObject({ code: 'card_provider_error', status: 502 })
    expect(body.message).toBe(
      'Não foi possível criar a sessão de pagamento com o provedor de cartão. Tente novamente em instantes.',
    )
    expect(body.detail).toBe(body.message)
    expect(JSON.stringify(body)).not.toContain('Invalid currency')
  })
})

describe('POST /api/webhooks/stripe', () => {
  it('refuses a bad or missing signature with 400 and records nothing', async () => {
    const body = event(
      'invoice.paid',
      t0,
      invoiceObject('in_forged', { subscription: 'sub_x', amount: 1, reason: 'x', start: t0, end: t0 + 30 * day }),
    )
    const payload = JSON.stringify(body)
    const wrongSecret = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' })
    const forged = await sendEvent(body, wrongSecret)
    expect(forged.statusCode).toBe(400)
    expect(forged.json()).toMatchObject({ code: 'webhook_signature_invalid' })

    const unsigned = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks/stripe',
      payload,
      headers: { 'content-type': 'application/json' },
    })
    expect(unsigned.statusCode).toBe(400)

    // A valid signature over other bytes (the body re-serialised) does not verify either.
    const tampered = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks/stripe',
      payload: JSON.stringify(body, null, 2),
      headers: {
        'content-type': 'application/json',
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret }),
      },
    })
    expect(tampered.statusCode).toBe(400)
    expect(await t.database.db.select().from(webhookEvents).where(eq(webhookEvents.id, body.id))).toHaveLength(0)
  })

  it('checkout.session.completed creates an active card subscription with the period Stripe has', async () => {
    const subId = newSubId()
    fake.subscriptions.set(
      subId,
      subscriptionObject(subId, { user: ana, planId: 'plan_pro', start: t0, end: t0 + 31 * day }),
    )
    const response = await sendEvent(
      event(
        'checkout.session.completed',
        t0,
        checkoutSessionObject({ subscription: subId, user: ana, planId: 'plan_pro' }),
      ),
    )
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({ received: true, result: 'processed' })
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v1/subscriptions/${subId}`])

    const [row] = await subscriptionRow(subId)
    expect(row).toMatchObject({
      userId: ana.id,
      planId: 'plan_pro',
      status: 'active',
      billingMethod: 'card',
      stripeCustomerId: `cus_${ana.id}`,
      cancelAtPeriodEnd: false,
      currentPeriodStart: new Date(t0 * 1000),
      currentPeriodEnd: new Date((t0 + 31 * day) * 1000),
    })
    expect(row!.id).toMatch(/^[0-9a-f-]{36}$/)
    const audits = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entity, 'subscription'), eq(auditLog.entityId, row!.id)))
    expect(audits.map((a) => a.action)).toContain('subscription.created')
    expect(audits.every((a) => a.actorId === null)).toBe(true)
  })

  it('reads the period from the subscription itself on older API versions', async () => {
    const subId = newSubId()
    fake.subscriptions.set(
      subId,
      subscriptionObject(subId, {
        user: bruno,
        planId: 'plan_basic',
        start: t0,
        end: t0 + 28 * day,
        legacyPeriod: true,
      }),
    )
    await sendEvent(
      event(
        'checkout.session.completed',
        t0,
        checkoutSessionObject({ subscription: subId, user: bruno, planId: 'plan_basic' }),
      ),
    )
    const [row] = await subscriptionRow(subId)
    expect(row?.currentPeriodEnd).toEqual(new Date((t0 + 28 * day) * 1000))
  })

  it('makes one paid payment from the same signed invoice.paid sent twice, and from invoice.payment_succeeded', async () => {
    const subId = newSubId()
    const invoice = firstProInvoice('in_twice', subId, ana)
    const paid = event('invoice.paid', t0, invoice)
    const first = await sendEvent(paid)
    const replay = await sendEvent(paid)
    expect(first.json()).toEqual({ received: true, result: 'processed' })
    expect(replay.statusCode).toBe(200)
    expect(replay.json()).toEqual({ received: true, result: 'duplicate' })
    const succeeded = await sendEvent(event('invoice.payment_succeeded', t0, invoice))
    expect(succeeded.statusCode).toBe(200)

    const [row] = await subscriptionRow(subId)
    const rows = await paymentRows(row!.id)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      status: 'paid',
      paymentMethod: 'card',
      amountCents: 19900,
      currency: 'BRL',
      type: 'new',
      stripeInvoiceId: 'in_twice',
      receiptUrl: 'https://invoice.stripe.com/i/in_twice',
      paidAt: new Date(t0 * 1000),
    })
    expect(rows[0]!.metadata).toMatchObject({ type: 'new' })
    const recorded = await t.database.db.select().from(webhookEvents).where(eq(webhookEvents.id, paid.id))
    expect(recorded).toHaveLength(1)
    expect(recorded[0]).toMatchObject({ provider: 'stripe', type: 'invoice.paid' })
  })

  it('applies an event once when two deliveries race, and creates one row when two events race', async () => {
    const subId = newSubId()
    fake.subscriptions.set(
      subId,
      subscriptionObject(subId, { user: bruno, planId: 'plan_pro', start: t0, end: t0 + 31 * day }),
    )
    const invoice = firstProInvoice(`in_${subId}`, subId, bruno)
    const paid = event('invoice.paid', t0, invoice)
    const completed = event(
      'checkout.session.completed',
      t0,
      checkoutSessionObject({ subscription: subId, user: bruno, planId: 'plan_pro' }),
    )
    const responses = await Promise.all([sendEvent(paid), sendEvent(paid), sendEvent(completed)])
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200])
    expect(
      responses
        .slice(0, 2)
        .map((r) => r.json().result)
        .sort(),
    ).toEqual(['duplicate', 'processed'])
    const rows = await subscriptionRow(subId)
    expect(rows).toHaveLength(1)
    expect(rows[0]?.status).toBe('active')
    expect(await paymentRows(rows[0]!.id)).toHaveLength(1)
  })

  it('handles invoice.paid before checkout.session.completed: one active subscription, one payment', async () => {
    const subId = newSubId()
    fake.subscriptions.set(
      subId,
      subscriptionObject(subId, { user: bruno, planId: 'plan_business', start: t0, end: t0 + 31 * day, amount: 39900 }),
    )
    const invoice = invoiceObject(`in_${subId}`, {
      subscription: subId,
      user: bruno,
      planId: 'plan_business',
      amount: 39900,
      reason: 'subscription_create',
      start: t0,
      end: t0 + 31 * day,
    })
    expect((await sendEvent(event('invoice.paid', t0 + 1, invoice))).json().result).toBe('processed')
    const early = await subscriptionRow(subId)
    expect(early).toHaveLength(1)
    expect(early[0]).toMatchObject({ status: 'active', planId: 'plan_business', userId: bruno.id })

    const completed = await sendEvent(
      event(
        'checkout.session.completed',
        t0,
        checkoutSessionObject({ subscription: subId, user: bruno, planId: 'plan_business' }),
      ),
    )
    expect(completed.json().result).toBe('processed')
    const rows = await subscriptionRow(subId)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      id: early[0]!.id,
      status: 'active',
      currentPeriodEnd: new Date((t0 + 31 * day) * 1000),
    })
    expect(await paymentRows(rows[0]!.id)).toHaveLength(1)
  })

  it('does not let an older customer.subscription.updated overwrite a newer one', async () => {
    const subId = newSubId()
    const base = { user: ana, planId: 'plan_pro', start: t0, end: t0 + 31 * day }
    await sendEvent(event('customer.subscription.updated', t0, subscriptionObject(subId, base)))
    const newer = subscriptionObject(subId, { ...base, cancelAtPeriodEnd: true })
    const older = subscriptionObject(subId, { ...base, start: t0 - 31 * day, end: t0, planId: 'plan_basic' })
    expect((await sendEvent(event('customer.subscription.updated', t0 + 100, newer))).statusCode).toBe(200)
    const stale = await sendEvent(event('customer.subscription.updated', t0 + 50, older))
    expect(stale.statusCode).toBe(200)

    const [row] = await subscriptionRow(subId)
    expect(row).toMatchObject({
      status: 'active',
      cancelAtPeriodEnd: true,
      planId: 'plan_pro',
      currentPeriodStart: new Date(t0 * 1000),
      currentPeriodEnd: new Date((t0 + 31 * day) * 1000),
    })
  })

  it('syncs cancel_at_period_end both ways from newer events', async () => {
    const subId = newSubId()
    const base = { user: bruno, planId: 'plan_pro', start: t0, end: t0 + 31 * day }
    await sendEvent(
      event('customer.subscription.updated', t0, subscriptionObject(subId, { ...base, cancelAtPeriodEnd: true })),
    )
    expect((await subscriptionRow(subId))[0]?.cancelAtPeriodEnd).toBe(true)
    await sendEvent(event('customer.subscription.updated', t0 + 10, subscriptionObject(subId, base)))
    expect((await subscriptionRow(subId))[0]?.cancelAtPeriodEnd).toBe(false)
  })

  it('marks the subscription past_due on invoice.payment_failed, and active again on a later renewal', async () => {
    const subId = newSubId()
    const base = { user: ana, planId: 'plan_basic', start: t0, end: t0 + 31 * day, amount: 9900 }
    await sendEvent(event('customer.subscription.updated', t0, subscriptionObject(subId, base)))
    const renewal = invoiceObject(`in_r_${subId}`, {
      subscription: subId,
      user: ana,
      planId: 'plan_basic',
      amount: 9900,
      reason: 'subscription_cycle',
      start: t0 + 31 * day,
      end: t0 + 61 * day,
    })
    await sendEvent(event('invoice.payment_failed', t0 + 31 * day, { ...renewal, status: 'open', amount_paid: 0 }))
    expect((await subscriptionRow(subId))[0]?.status).toBe('past_due')

    await sendEvent(event('invoice.paid', t0 + 33 * day, renewal))
    const [row] = await subscriptionRow(subId)
    expect(row).toMatchObject({
      status: 'active',
      currentPeriodStart: new Date((t0 + 31 * day) * 1000),
      currentPeriodEnd: new Date((t0 + 61 * day) * 1000),
    })
    const rows = await paymentRows(row!.id)
    expect(rows.map((p) => p.type)).toEqual(['renewal'])
  })

  it('cancels on customer.subscription.deleted, for good', async () => {
    const subId = newSubId()
    const base = { user: bruno, planId: 'plan_pro', start: t0, end: t0 + 31 * day }
    await sendEvent(event('customer.subscription.updated', t0, subscriptionObject(subId, base)))
    const deleted = await sendEvent(
      event('customer.subscription.deleted', t0 + 200, {
        ...subscriptionObject(subId, { ...base, status: 'canceled' }),
        ended_at: t0 + 200,
      }),
    )
    expect(deleted.statusCode).toBe(200)
    // A late update from before the deletion must not bring it back.
    await sendEvent(
      event('customer.subscription.updated', t0 + 100, subscriptionObject(subId, { ...base, cancelAtPeriodEnd: true })),
    )
    const [row] = await subscriptionRow(subId)
    expect(row).toMatchObject({ status: 'canceled', canceledAt: new Date((t0 + 200) * 1000) })
  })

  it("maps Stripe's unpaid to canceled and keeps the status on incomplete", async () => {
    const subId = newSubId()
    const base = { user: ana, planId: 'plan_pro', start: t0, end: t0 + 31 * day }
    await sendEvent(event('customer.subscription.updated', t0, subscriptionObject(subId, base)))
    await sendEvent(
      event('customer.subscription.updated', t0 + 1, subscriptionObject(subId, { ...base, status: 'incomplete' })),
    )
    expect((await subscriptionRow(subId))[0]?.status).toBe('active')
    await sendEvent(
      event('customer.subscription.updated', t0 + 2, subscriptionObject(subId, { ...base, status: 'unpaid' })),
    )
    expect((await subscriptionRow(subId))[0]?.status).toBe('canceled')
  })

  it('records the paid invoice of the upgrade we asked for, and the metadata never moves the plan', async () => {
    const subId = newSubId()
    const base = { user: bruno, planId: 'plan_basic', start: t0, end: t0 + 30 * day, amount: 9900 }
    await sendEvent(event('customer.subscription.updated', t0, subscriptionObject(subId, base)))
    const [created] = await subscriptionRow(subId)
    fake.subscriptions.set(subId, subscriptionObject(subId, base))
    fake.declineNextCharge() // the update stays pending: only the paid invoice switches the plan
    const declined = await post(
      t.app,
      '/api/subscriptions/upgrade',
      { subscription_id: created!.id, new_plan_id: 'plan_business' },
      bruno.cookie,
    )
    expect(declined.statusCode, declined.body).toBe(402)
    expect((await subscriptionRow(subId))[0]?.planId).toBe('plan_basic')

    // The customer pays the open invoice later: Stripe applies the pending update and says invoice.paid.
    const openInvoiceId = [...fake.invoices.keys()].at(-1)! // the upgrade's invoice, left open by the decline
    const upgrade = invoiceObject(openInvoiceId, {
      subscription: subId,
      user: bruno,
      planId: 'plan_basic', // the subscription's metadata, unchanged by a pending update
      amount: 15000,
      reason: 'subscription_update',
      start: t0 + 15 * day,
      end: t0 + 30 * day,
    })
    await sendEvent(event('invoice.paid', t0 + 15 * day, upgrade))
    const [row] = await subscriptionRow(subId)
    expect(row).toMatchObject({ planId: 'plan_business', currentPeriodStart: new Date(t0 * 1000) })
    const [payment] = await paymentRows(row!.id)
    expect(payment).toMatchObject({ type: 'upgrade', targetPlanId: 'plan_business', amountCents: 15000 })

    // Later events still name plan_basic in the metadata, at the new price: the plan stays.
    const after = subscriptionObject(subId, { ...base, amount: 39900, cancelAtPeriodEnd: true })
    await sendEvent(event('customer.subscription.updated', t0 + 16 * day, after))
    const renewal = invoiceObject(`in_r_${subId}`, {
      subscription: subId,
      user: bruno,
      planId: 'plan_basic',
      amount: 39900,
      reason: 'subscription_cycle',
      start: t0 + 30 * day,
      end: t0 + 60 * day,
    })
    await sendEvent(event('invoice.paid', t0 + 30 * day, renewal))
    expect((await subscriptionRow(subId))[0]).toMatchObject({ planId: 'plan_business', cancelAtPeriodEnd: true })
    const paid = await paymentRows(row!.id)
    expect(paid.find((p) => p.stripeInvoiceId === `in_r_${subId}`)).toMatchObject({
      type: 'renewal',
      status: 'paid',
      amountCents: 39900,
    })
  })

  it('records unknown event types and answers 200', async () => {
    const body = event('customer.created', t0, { id: 'cus_new', object: 'customer' })
    const response = await sendEvent(body)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ received: true, result: 'ignored' })
    expect(await t.database.db.select().from(webhookEvents).where(eq(webhookEvents.id, body.id))).toHaveLength(1)
  })

  it('answers 502 and records nothing when Stripe cannot be read, so that the retry applies the event', async () => {
    const subId = newSubId()
    const body = event(
      'checkout.session.completed',
      t0,
      checkoutSessionObject({ subscription: subId, user: ana, planId: 'plan_pro' }),
    )
    const failed = await sendEvent(body)
    expect(failed.statusCode).toBe(502)
    expect(await t.database.db.select().from(webhookEvents).where(eq(webhookEvents.id, body.id))).toHaveLength(0)

    fake.subscriptions.set(
      subId,
      subscriptionObject(subId, { user: ana, planId: 'plan_pro', start: t0, end: t0 + 31 * day }),
    )
    const retried = await sendEvent(body)
    expect(retried.json()).toEqual({ received: true, result: 'processed' })
    expect(await subscriptionRow(subId)).toHaveLength(1)
  })
})

describe('Stripe card gateway', () => {
  it('cancels at period end, cancels now and changes plan with Stripe calls of the right shape', async () => {
    const subId = newSubId()
    fake.subscriptions.set(
      subId,
      subscriptionObject(subId, { user: ana, planId: 'plan_basic', start: t0, end: t0 + 30 * day }),
    )
    const card = t.app.ctx.card
    expect(card.mode).toBe('stripe')

    await card.cancelAtPeriodEnd(subId)
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: `/v1/subscriptions/${subId}`,
      body: { cancel_at_period_end: 'true' },
    })

    await card.changePlan(subId, {
      id: 'plan_business',
      name: 'Empresarial',
      description: '',
      priceCents: 39900,
      currency: 'BRL',
      features: [],
      boxQuantity: 1,
      agentQuantity: 1,
      popular: false,
      active: true,
    })
    const [retrieve, update] = fake.requests.slice(-2)
    expect(retrieve).toMatchObject({ method: 'GET', path: `/v1/subscriptions/${subId}` })
    expect(update).toMatchObject({ method: 'POST', path: `/v1/subscriptions/${subId}` })
    expect(update!.body).toEqual({
      items: [
        {
          id: `si_${subId}`,
          price_data: {
            currency: 'brl',
            product: 'prod_existing',
            unit_amount: '39900',
            recurring: { interval: 'month' },
          },
        },
      ],
      proration_behavior: 'always_invoice',
      payment_behavior: 'pending_if_incomplete',
    })

    await card.cancelNow(subId)
    expect(fake.requests.at(-1)).toMatchObject({ method: 'DELETE', path: `/v1/subscriptions/${subId}` })
  })

  it("reads the provider's view of a subscription for reconciliation, null when Stripe does not know it", async () => {
    const subId = newSubId()
    fake.subscriptions.set(
      subId,
      subscriptionObject(subId, {
        user: ana,
        planId: 'plan_pro',
        start: t0,
        end: t0 + 31 * day,
        cancelAtPeriodEnd: true,
      }),
    )
    const card = t.app.ctx.card
    expect(await card.retrieveSubscription?.(subId)).toEqual({
      status: 'active',
      cancelAtPeriodEnd: true,
      currentPeriodEnd: new Date((t0 + 31 * day) * 1000),
    })
    expect(await card.retrieveSubscription?.('sub_unknown')).toBeNull()
  })

  it('answers a Stripe error with card_provider_error', async () => {
    const error = await t.app.ctx.card.cancelNow('sub_missing').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DomainError)
    expect(error).toMatchObject({ code: 'card_provider_error' })
  })
})

describe('db:check', () => {
  it('leaves every invariant of the database holding', async () => {
    await expectInvariantsHold(t.database.db)
  })
})
