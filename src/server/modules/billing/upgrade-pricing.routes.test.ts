// Upgrades are priced against the period they change (issue 9 item 2, security review #1 and #5): every money
// rule is asserted on the payments, subscriptions, audit and notification rows.
import { and, asc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { PixCheckoutResult, UpgradeResult } from '../../../domain/contracts/billing'
import { payments, subscriptions } from '../../db/schema/billing'
import { notifications } from '../../db/schema/lifecycle'
import { auditLog } from '../../db/schema/platform'
import { createTestApp, type TestApp } from '../../test/test-app'
import { createUser, get, post, type TestUser } from '../../test/users'
import { send } from '../admin/admin-fixtures'
import { depsOf } from '../lifecycle/lifecycle-fixtures'
import { runBillingTick } from '../lifecycle/lifecycle.service'
import { detectNotifications } from '../lifecycle/notifications.service'
import { createRenewalInvoices } from '../lifecycle/renewals.service'
import { activate, openShop, storedSubscription } from './test-fixtures'

let t: TestApp
let admin: TestUser
let ana: TestUser
let bruno: TestUser
let carla: TestUser

// A 31-day period: one hour of the basic → business difference (R$ 300,00) is round(30000 / 744) = 40 centavos.
const periodStart = new Date('2026-03-01T00:00:00.000Z')
const periodEnd = new Date('2026-04-01T00:00:00.000Z')
const lastHour = '2026-03-31T23:00:00.000Z'

beforeAll(async () => {
  t = await createTestApp()
  admin = await openShop(t)
  ana = await createUser(t, { name: 'Ana' })
  bruno = await createUser(t, { name: 'Bruno' })
  carla = await createUser(t, { name: 'Carla' })
})
afterAll(async () => {
  await t.close()
})
beforeEach(() => {
  t.clock.set('2026-03-10T12:00:00.000Z')
})

/** An active PIX basic subscription for the period 1 Mar → 1 Apr, made through checkout. */
async function activeBasic(user: TestUser): Promise<string> {
  const response = await post(t.app, '/api/checkout/pix', { plan_id: 'plan_basic' }, user.cookie)
  expect(response.statusCode, response.body).toBe(200)
  const id = (response.json() as PixCheckoutResult).subscription.id
  await activate(t.database.db, id, periodStart)
  await t.database.db
    .update(subscriptions)
    .set({ currentPeriodStart: periodStart, currentPeriodEnd: periodEnd, anchorDay: 1 })
    .where(eq(subscriptions.id, id))
  return id
}

function upgrade(user: TestUser, id: string, planId: string) {
  return post(t.app, '/api/subscriptions/upgrade', { subscription_id: id, new_plan_id: planId }, user.cookie)
}

function confirm(paymentId: string, amountCents: number) {
  return send(t.app, 'POST', `/api/admin/payments/${paymentId}/confirm`, {
    cookie: admin.cookie,
    body: { amount_received_cents: amountCents },
  })
}

async function paymentsOf(subscriptionId: string) {
  return t.database.db
    .select()
    .from(payments)
    .where(eq(payments.subscriptionId, subscriptionId))
    .orderBy(asc(payments.createdAt), asc(payments.id))
}

const subscriptionRow = (id: string) => storedSubscription(t.database.db, id)

async function auditActions(entityId: string) {
  const rows = await t.database.db
    .select({ action: auditLog.action, after: auditLog.after })
    .from(auditLog)
    .where(eq(auditLog.entityId, entityId))
  return rows
}

async function issueRenewal(subscriptionId: string) {
  t.clock.set('2026-03-29T12:00:00.000Z')
  await createRenewalInvoices(depsOf(t), t.clock.now())
  const renewal = (await paymentsOf(subscriptionId)).find((p) => p.type === 'renewal')
  expect(renewal).toMatchObject({ amountCents: 9_900, status: 'pending_pix', dueDate: periodEnd })
  return renewal!
}

function pixInvoice(result: UpgradeResult) {
  if (result.kind !== 'pix') throw new Error(`expected a PIX invoice, got ${result.kind}`)
  return result.payment
}

describe('an upgrade in the last hour of the period', () => {
  it('costs the hour, and once paid the open renewal is re-issued at the new price, once, with one message', async () => {
    const id = await activeBasic(ana)
    const renewal = await issueRenewal(id)

    t.clock.set(lastHour)
    const invoice = pixInvoice((await upgrade(ana, id, 'plan_business')).json())
    expect(invoice.amountCents).toBe(40)
    const [upgradeRow] = await t.database.db.select().from(payments).where(eq(payments.id, invoice.id))
    // It belongs to the period it priced and is due by its end at the latest.
    expect(upgradeRow).toMatchObject({ pricedPeriodEnd: periodEnd, dueDate: periodEnd, status: 'pending_pix' })

    const confirmed = await confirm(invoice.id, 40)
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    expect(confirmed.json()).toMatchObject({ flagged: false })
    expect(await subscriptionRow(id)).toMatchObject({ planId: 'plan_business', currentPeriodEnd: periodEnd })

    const rows = await paymentsOf(id)
    const renewals = rows.filter((p) => p.type === 'renewal')
    expect(renewals.map((p) => [p.id === renewal.id ? 'old' : 'new', p.status, p.amountCents])).toEqual([
      ['old', 'void', 9_900],
      ['new', 'pending_pix', 39_900],
    ])
    const reissued = renewals[1]!
    expect(reissued).toMatchObject({
      dueDate: periodEnd,
      metadata: { type: 'renewal', replacesPaymentId: renewal.id, previousAmountCents: 9_900 },
    })
    expect(reissued.pixReference).not.toBe(renewal.pixReference)
    expect((await auditActions(reissued.id)).map((a) => a.action)).toEqual(['payment.renewal_repriced'])

    // Told once: the message is enqueued with the re-issue; detection, a second confirmation and another renewal
    // pass add nothing.
    await confirm(invoice.id, 40)
    await detectNotifications(depsOf(t), t.clock.now())
    await createRenewalInvoices(depsOf(t), t.clock.now())
    const told = await t.database.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.paymentId, reissued.id), eq(notifications.channel, 'email')))
    expect(told).toHaveLength(1)
    expect(told[0]).toMatchObject({ kind: 'invoice_created', subject: 'Fatura de renovação atualizada' })
    expect(told[0]?.body).toMatch(/R\$\s99,00 foi cancelada/)
    expect(told[0]?.body).toMatch(/Valor: R\$\s399,00/)
    expect((await paymentsOf(id)).filter((p) => p.type === 'renewal')).toHaveLength(2)

    // The next month is then paid at the new price and rolls the period on.
    const paid = await confirm(reissued.id, 39_900)
    expect(paid.json()).toMatchObject({ flagged: false })
    expect(await subscriptionRow(id)).toMatchObject({
      planId: 'plan_business',
      currentPeriodStart: periodEnd,
      currentPeriodEnd: new Date('2026-05-01T00:00:00.000Z'),
    })
  })

  it('switched for free in the last second: the open renewal is re-issued at the new price', async () => {
    const id = await activeBasic(bruno)
    const renewal = await issueRenewal(id)
    t.clock.set('2026-03-31T23:59:59.000Z')
    const response = await upgrade(bruno, id, 'plan_business')
    expect(response.json()).toMatchObject({ kind: 'switched', subscription: { planId: 'plan_business' } })
    const renewals = (await paymentsOf(id)).filter((p) => p.type === 'renewal')
    expect(renewals.map((p) => [p.id === renewal.id, p.status, p.amountCents])).toEqual([
      [true, 'void', 9_900],
      [false, 'pending_pix', 39_900],
    ])
  })

  it('after the renewal was paid ahead, costs the full difference for that month plus the hour', async () => {
    const id = await activeBasic(carla)
    const renewal = await issueRenewal(id)
    t.clock.set('2026-03-30T10:00:00.000Z')
    expect((await confirm(renewal.id, 9_900)).json()).toMatchObject({ flagged: false })
    expect(await subscriptionRow(id)).toMatchObject({
      currentPeriodStart: periodEnd,
      currentPeriodEnd: new Date('2026-05-01T00:00:00.000Z'),
    })

    t.clock.set(lastHour)
    const options = await get(t.app, `/api/subscriptions/${id}/upgrade-options`, carla.cookie)
    const business = (options.json() as { plan: { id: string }; prorationCents: number }[]).find(
      (o) => o.plan.id === 'plan_business',
    )
    expect(business?.prorationCents).toBe(30_040)
    const invoice = pixInvoice((await upgrade(carla, id, 'plan_business')).json())
    expect(invoice.amountCents).toBe(30_040)
    const [row] = await t.database.db.select().from(payments).where(eq(payments.id, invoice.id))
    expect(row).toMatchObject({
      pricedPeriodEnd: new Date('2026-05-01T00:00:00.000Z'),
      dueDate: new Date('2026-04-03T23:00:00.000Z'),
    })
  })
})

describe('an upgrade invoice belongs to the period it priced', () => {
  it('is voided by the lifecycle when that period ends unpaid', async () => {
    const id = await activeBasic(ana)
    const invoice = pixInvoice((await upgrade(ana, id, 'plan_pro')).json())
    t.clock.set('2026-03-31T23:59:00.000Z')
    await runBillingTick(depsOf(t))
    expect((await paymentsOf(id)).find((p) => p.id === invoice.id)?.status).toBe('pending_pix')

    t.clock.set('2026-04-01T00:00:30.000Z')
    const report = await runBillingTick(depsOf(t))
    expect(report.lapsed_upgrade_invoices).toBe(1)
    const [voided] = await t.database.db.select().from(payments).where(eq(payments.id, invoice.id))
    expect(voided?.status).toBe('void')
    expect(await auditActions(invoice.id)).toContainEqual({
      action: 'payment.void',
      after: expect.objectContaining({ reason: 'upgrade_period_ended' }),
    })
    expect((await subscriptionRow(id))?.planId).toBe('plan_basic')
    expect((await runBillingTick(depsOf(t))).lapsed_upgrade_invoices).toBe(0)
  })

  it('confirmed after that period ended, goes to review and does not switch the plan', async () => {
    const id = await activeBasic(bruno)
    const invoice = pixInvoice((await upgrade(bruno, id, 'plan_pro')).json())
    t.clock.set('2026-04-01T08:00:00.000Z') // before any pass ran
    const response = await confirm(invoice.id, invoice.amountCents)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({ flagged: true, payment: { status: 'review' } })
    const [row] = await t.database.db.select().from(payments).where(eq(payments.id, invoice.id))
    expect(row).toMatchObject({ status: 'review', paidAt: null, amountReceivedCents: invoice.amountCents })
    expect((await subscriptionRow(id))?.planId).toBe('plan_basic')
    expect((await auditActions(id)).map((a) => a.action)).not.toContain('subscription.upgrade')
  })

  it('confirmed after the period moved on (renewal paid), goes to review and does not switch the plan', async () => {
    const id = await activeBasic(carla)
    t.clock.set('2026-03-28T12:00:00.000Z')
    const invoice = pixInvoice((await upgrade(carla, id, 'plan_pro')).json())
    const renewal = await issueRenewal(id)
    t.clock.set('2026-03-30T10:00:00.000Z')
    expect((await confirm(renewal.id, 9_900)).json()).toMatchObject({ flagged: false })
    const response = await confirm(invoice.id, invoice.amountCents)
    expect(response.json()).toMatchObject({ flagged: true, payment: { status: 'review' } })
    expect((await subscriptionRow(id))?.planId).toBe('plan_basic')
  })
})

describe('choosing another upgrade target', () => {
  it('replaces the open invoice in place: toggling adds no rows, and is rate limited', async () => {
    const user = await createUser(t, { name: 'Davi Alterna' })
    const id = await activeBasic(user)
    const firstResult: UpgradeResult = (await upgrade(user, id, 'plan_pro')).json()
    const first = pixInvoice(firstResult)
    const targets = ['plan_business', 'plan_pro', 'plan_business', 'plan_pro', 'plan_business']
    for (const target of targets) {
      const response = await upgrade(user, id, target)
      expect(response.statusCode, response.body).toBe(200)
      expect(pixInvoice(response.json()).id).toBe(first.id)
    }
    const upgrades = (await paymentsOf(id)).filter((p) => p.type === 'upgrade')
    expect(upgrades).toHaveLength(1)
    // 21.5 days of 31 left at 10 Mar 12:00: R$ 300,00 × 21.5/31 = R$ 208,06.
    expect(upgrades[0]).toMatchObject({ status: 'pending_pix', targetPlanId: 'plan_business', amountCents: 20_806 })
    expect(firstResult.kind === 'pix' && upgrades[0]?.pixReference).not.toBe(
      firstResult.kind === 'pix' && firstResult.pix.reference,
    )
    const actions = (await auditActions(first.id)).map((a) => a.action)
    expect(actions.filter((a) => a === 'payment.upgrade_invoice_replaced')).toHaveLength(5)

    // The same target again answers the open invoice and counts nothing; changes stop at the hourly limit.
    for (let i = 0; i < 5; i++) expect((await upgrade(user, id, 'plan_business')).statusCode).toBe(200)
    let refused = null
    for (let i = 0; i < 20 && !refused; i++) {
      const response = await upgrade(user, id, i % 2 === 0 ? 'plan_pro' : 'plan_business')
      if (response.statusCode === 429) refused = { at: i, body: response.json() }
    }
    expect(refused).toMatchObject({ at: 14, body: { code: 'rate_limited' } }) // 6 + 14 = 20 changes this hour
    const after = (await paymentsOf(id)).filter((p) => p.type === 'upgrade')
    expect(after).toHaveLength(1)
    expect(after[0]?.targetPlanId).toBe('plan_business') // the refused change (to plan_pro) changed nothing
  })
})
