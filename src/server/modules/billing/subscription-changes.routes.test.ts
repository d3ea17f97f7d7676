import { randomUUID } from 'node:crypto'
import { and, eq, inArray } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { PixCheckoutResult, Subscription, UpgradeResult } from '../../../domain/contracts/billing'
import type { Plan } from '../../../domain/contracts/plans'
import { parsePixBrCode } from '../../../domain/pix'
import { payments, subscriptions } from '../../db/schema/billing'
import { auditLog } from '../../db/schema/platform'
import { createTestApp, type TestApp } from '../../test/test-app'
import { expectInvariantsHold } from '../../test/invariants'
import { createUser, get, post, type TestUser } from '../../test/users'
import { applyPaidUpgrade } from './customer-upgrade.service'
import type { CardGateway } from './card-gateway'
import { activate, configurePix, seedPlans } from './test-fixtures'

/** Records what billing asks the card provider; `fail` makes the next calls throw like a provider outage. */
const card = {
  calls: [] as string[],
  fail: false,
  gateway: {
    mode: 'simulator',
    createCheckoutSession: async () => ({ url: 'http://localhost/checkout', sessionId: 'cs_test' }),
    cancelAtPeriodEnd: async (id: string) => {
      if (card.fail) throw new Error('provider down')
      card.calls.push(`cancelAtPeriodEnd:${id}`)
    },
    cancelNow: async (id: string) => {
      card.calls.push(`cancelNow:${id}`)
    },
    changePlan: async (id: string, plan: Plan) => {
      if (card.fail) throw new Error('provider down')
      card.calls.push(`changePlan:${id}:${plan.id}`)
    },
  } satisfies CardGateway,
}

let t: TestApp
let ana: TestUser
let bruno: TestUser

const now = '2026-03-10T12:00:00.000Z'
// A 31-day period with 21.5 days left at `now`.
const periodStart = new Date('2026-03-01T00:00:00.000Z')
const periodEnd = new Date('2026-04-01T00:00:00.000Z')

beforeAll(async () => {
  t = await createTestApp({ card: card.gateway })
  await seedPlans(t.database.db)
  await configurePix(t.database.db)
  ana = await createUser(t, { name: 'Ana' })
  bruno = await createUser(t, { name: 'Bruno' })
})
afterAll(async () => {
  await t.close()
})
beforeEach(() => {
  t.clock.set(now)
  card.calls = []
  card.fail = false
})

/** A PIX subscription made through checkout, then (optionally) activated as the admin confirmation would. */
async function subscribe(user: TestUser, planId: string, options: { active?: boolean } = {}): Promise<string> {
  const response = await post(t.app, '/api/checkout/pix', { plan_id: planId }, user.cookie)
  expect(response.statusCode, response.body).toBe(200)
  const id = (response.json() as PixCheckoutResult).subscription.id
  if (options.active ?? true) {
    await activate(t.database.db, id, new Date(now))
    await t.database.db
      .update(subscriptions)
      .set({ currentPeriodStart: periodStart, currentPeriodEnd: periodEnd })
      .where(eq(subscriptions.id, id))
  }
  return id
}

async function cardSubscription(user: TestUser, planId: string): Promise<{ id: string; stripeId: string }> {
  const id = randomUUID()
  const stripeId = `sub_${randomUUID().slice(0, 8)}`
  await t.database.db.insert(subscriptions).values({
    id,
    userId: user.id,
    planId,
    status: 'active',
    billingMethod: 'card',
    currentPeriodStart: periodStart,
    currentPeriodEnd: periodEnd,
    stripeSubscriptionId: stripeId,
  })
  return { id, stripeId }
}

function cancel(user: TestUser, id: string) {
  return post(t.app, '/api/subscriptions/cancel', { subscription_id: id }, user.cookie)
}
function upgrade(user: TestUser, id: string, planId: string) {
  return post(t.app, '/api/subscriptions/upgrade', { subscription_id: id, new_plan_id: planId }, user.cookie)
}

async function openUpgradeInvoices(subscriptionId: string) {
  return t.database.db
    .select()
    .from(payments)
    .where(
      and(
        eq(payments.subscriptionId, subscriptionId),
        eq(payments.type, 'upgrade'),
        inArray(payments.status, ['pending', 'pending_pix']),
      ),
    )
}

describe('cancel', () => {
  it('refuses a subscription still waiting for its PIX payment', async () => {
    const id = await subscribe(ana, 'plan_basic', { active: false })
    const response = await cancel(ana, id)
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({ code: 'cannot_cancel' })
  })

  it('schedules the cancellation for the end of the period; a second request is refused', async () => {
    const id = await subscribe(ana, 'plan_basic')
    const first = await cancel(ana, id)
    expect(first.statusCode, first.body).toBe(200)
    const subscription: Subscription = first.json()
    expect(subscription).toMatchObject({ id, status: 'active', cancelAtPeriodEnd: true, canceledAt: null })
    expect(subscription.currentPeriodEnd).toBe(periodEnd.toISOString())

    const second = await cancel(ana, id)
    expect(second.statusCode).toBe(409)
    expect(second.json()).toMatchObject({ code: 'cannot_cancel' })
    expect(card.calls).toEqual([]) // a PIX subscription never reaches the card provider
  })

  it('changes the subscription once for two simultaneous requests (one audit row)', async () => {
    const id = await subscribe(ana, 'plan_basic')
    const responses = await Promise.all([cancel(ana, id), cancel(ana, id)])
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 409])
    const audits = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, id), eq(auditLog.action, 'subscription.cancel_at_period_end')))
    expect(audits).toHaveLength(1)
  })

  it('asks the card provider first for a card subscription', async () => {
    const { id, stripeId } = await cardSubscription(ana, 'plan_pro')
    const response = await cancel(ana, id)
    expect(response.statusCode).toBe(200)
    expect(card.calls).toEqual([`cancelAtPeriodEnd:${stripeId}`])
  })

  it('changes nothing when the card provider fails', async () => {
    const { id } = await cardSubscription(ana, 'plan_pro')
    card.fail = true
    const response = await cancel(ana, id)
    expect(response.statusCode).toBe(502)
    expect(response.json()).toMatchObject({ code: 'card_provider_error' })
    const [row] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.id, id))
    expect(row?.cancelAtPeriodEnd).toBe(false)
  })
})

describe('upgrade options', () => {
  it('offers only higher-priced active plans, each with its prorated charge', async () => {
    const id = await subscribe(ana, 'plan_basic')
    const response = await get(t.app, `/api/subscriptions/${id}/upgrade-options`, ana.cookie)
    expect(response.statusCode, response.body).toBe(200)
    // 21.5 of 31 days left: (19900 − 9900) × 21.5 / 31 = 6935.48… and (39900 − 9900) × 21.5 / 31 = 20806.45…
    expect(response.json().map((o: { plan: Plan; prorationCents: number }) => [o.plan.id, o.prorationCents])).toEqual([
      ['plan_pro', 6_935],
      ['plan_business', 20_806],
    ])
  })

  it('offers nothing on the top plan, and an upgrade there says so', async () => {
    const id = await subscribe(ana, 'plan_business')
    const options = await get(t.app, `/api/subscriptions/${id}/upgrade-options`, ana.cookie)
    expect(options.json()).toEqual([])
    const response = await upgrade(ana, id, 'plan_pro')
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({ code: 'no_higher_plan', message: 'Você já está no plano mais alto.' })
  })
})

describe('PIX upgrade', () => {
  it('refuses subscriptions that are not active, lower plans and inactive plans', async () => {
    const pending = await subscribe(bruno, 'plan_basic', { active: false })
    expect((await upgrade(bruno, pending, 'plan_pro')).json()).toMatchObject({ code: 'cannot_upgrade' })
    expect((await upgrade(bruno, pending, 'plan_pro')).statusCode).toBe(409)

    const pro = await subscribe(bruno, 'plan_pro')
    const lower = await upgrade(bruno, pro, 'plan_basic')
    expect(lower.statusCode).toBe(400)
    expect(lower.json()).toMatchObject({ code: 'plan_not_higher' })
    const inactive = await upgrade(bruno, pro, 'plan_legacy')
    expect(inactive.statusCode).toBe(404)
    expect((await openUpgradeInvoices(pro)).length).toBe(0)
  })

  it('issues an invoice for the prorated difference; the plan changes only once it is paid', async () => {
    const id = await subscribe(ana, 'plan_basic')
    const response = await upgrade(ana, id, 'plan_pro')
    expect(response.statusCode, response.body).toBe(200)
    const result: UpgradeResult = response.json()
    if (result.kind !== 'pix') throw new Error(`expected a PIX invoice, got ${result.kind}`)
    expect(result.prorationCents).toBe(6_935)
    expect(result.payment).toMatchObject({
      amountCents: 6_935,
      status: 'pending_pix',
      paymentMethod: 'pix',
      type: 'upgrade',
      targetPlanId: 'plan_pro',
      metadata: { type: 'upgrade', targetPlanId: 'plan_pro' },
      dueDate: '2026-03-13T12:00:00.000Z',
    })
    const parsed = parsePixBrCode(result.pix.brCode)
    expect(parsed.crcValid).toBe(true)
    expect(parsed.amountCents).toBe(6_935)
    expect(parsed.txid).toMatch(/^UPG[A-Za-z0-9]{22}$/)
    expect(result.pix).toMatchObject({ type: 'upgrade', planName: 'Profissional', reference: parsed.txid })

    const [row] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.id, id))
    expect(row?.planId).toBe('plan_basic')

    const again = await upgrade(ana, id, 'plan_pro')
    const second: UpgradeResult = again.json()
    expect(second.kind === 'pix' && second.payment.id).toBe(result.payment.id)
    expect(await openUpgradeInvoices(id)).toHaveLength(1)
  })

  it('replaces the open invoice when the customer picks another plan (same row, new amount and BR Code)', async () => {
    const id = await subscribe(ana, 'plan_basic')
    const first: UpgradeResult = (await upgrade(ana, id, 'plan_pro')).json()
    const second: UpgradeResult = (await upgrade(ana, id, 'plan_business')).json()
    if (first.kind !== 'pix' || second.kind !== 'pix') throw new Error('expected PIX invoices')
    expect(second.payment.amountCents).toBe(20_806)
    expect(second.payment.id).toBe(first.payment.id)
    expect(second.pix.reference).not.toBe(first.pix.reference)
    const [row] = await t.database.db.select().from(payments).where(eq(payments.id, first.payment.id))
    expect(row).toMatchObject({ status: 'pending_pix', targetPlanId: 'plan_business', amountCents: 20_806 })
    expect((await openUpgradeInvoices(id)).map((p) => p.id)).toEqual([second.payment.id])
  })

  it('leaves one open upgrade invoice for simultaneous requests', async () => {
    const id = await subscribe(bruno, 'plan_basic')
    const same = await Promise.all([upgrade(bruno, id, 'plan_pro'), upgrade(bruno, id, 'plan_pro')])
    expect(same.map((r) => r.statusCode)).toEqual([200, 200])
    const ids = same.map((r) => (r.json() as Extract<UpgradeResult, { kind: 'pix' }>).payment.id)
    expect(ids[0]).toBe(ids[1])
    const mixed = await Promise.all([upgrade(bruno, id, 'plan_business'), upgrade(bruno, id, 'plan_pro')])
    expect(mixed.map((r) => r.statusCode)).toEqual([200, 200])
    expect(await openUpgradeInvoices(id)).toHaveLength(1)
  })

  it('switches at once when nothing is left to charge', async () => {
    const id = await subscribe(bruno, 'plan_basic')
    await t.database.db
      .update(subscriptions)
      .set({ currentPeriodStart: new Date('2026-02-10T12:00:00.000Z'), currentPeriodEnd: new Date(now) })
      .where(eq(subscriptions.id, id))
    const response = await upgrade(bruno, id, 'plan_pro')
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({ kind: 'switched', prorationCents: 0, subscription: { planId: 'plan_pro' } })
    expect(await openUpgradeInvoices(id)).toHaveLength(0)
  })

  it('applyPaidUpgrade moves the subscription to the target plan once, when the invoice is paid', async () => {
    const id = await subscribe(bruno, 'plan_pro')
    const result: UpgradeResult = (await upgrade(bruno, id, 'plan_business')).json()
    if (result.kind !== 'pix') throw new Error('expected a PIX invoice')
    const paidAt = new Date('2026-03-11T10:00:00.000Z')
    const switched = await t.database.db.transaction(async (tx) => {
      const [paid] = await tx
        .update(payments)
        .set({ status: 'paid', paidAt, pixEndToEndId: `E${'7'.repeat(31)}` }) // paid as by a PIX the PSP names
        .where(eq(payments.id, result.payment.id))
        .returning()
      const first = await applyPaidUpgrade(tx, paid!)
      const second = await applyPaidUpgrade(tx, paid!)
      return [first, second]
    })
    expect(switched.map((s) => s?.planId)).toEqual(['plan_business', 'plan_business'])
    const [row] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.id, id))
    expect(row).toMatchObject({ planId: 'plan_business', status: 'active' })
    expect(row?.currentPeriodEnd.toISOString()).toBe(periodEnd.toISOString())
    const audits = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, id), eq(auditLog.action, 'subscription.upgrade')))
    expect(audits).toHaveLength(1)

    const [newInvoice] = await t.database.db
      .select()
      .from(payments)
      .where(and(eq(payments.subscriptionId, id), eq(payments.type, 'new')))
    expect(await t.database.db.transaction((tx) => applyPaidUpgrade(tx, newInvoice!))).toBeNull()
  })
})

describe('card upgrade', () => {
  it('switches the plan at the provider and then here', async () => {
    const { id, stripeId } = await cardSubscription(ana, 'plan_basic')
    const response = await upgrade(ana, id, 'plan_business')
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({
      kind: 'card',
      prorationCents: 20_806,
      subscription: { id, planId: 'plan_business', billingMethod: 'card' },
    })
    expect(card.calls).toEqual([`changePlan:${stripeId}:plan_business`])

    const retry = await upgrade(ana, id, 'plan_business')
    expect(retry.json()).toMatchObject({ kind: 'card', subscription: { planId: 'plan_business' } })
    expect(card.calls).toHaveLength(1)
  })

  it('changes nothing when the provider fails', async () => {
    const { id } = await cardSubscription(ana, 'plan_basic')
    card.fail = true
    const response = await upgrade(ana, id, 'plan_pro')
    expect(response.statusCode).toBe(502)
    const [row] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.id, id))
    expect(row?.planId).toBe('plan_basic')
  })
})

describe('db:check', () => {
  it('leaves every invariant of the database holding', async () => {
    await expectInvariantsHold(t.database.db)
  })
})
