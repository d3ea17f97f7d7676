import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Payment, PixCharge, PixCheckoutResult, Subscription } from '../../../domain/contracts/billing'
import { parsePixBrCode } from '../../../domain/pix'
import { payments, subscriptions } from '../../db/schema/billing'
import { auditLog } from '../../db/schema/platform'
import { createTestApp, type TestApp } from '../../test/test-app'
import { expectInvariantsHold } from '../../test/invariants'
import { createUser, get, post, type TestUser } from '../../test/users'
import { activate, configurePix, seedPlans } from './test-fixtures'

let t: TestApp
let maria: TestUser
let joao: TestUser

beforeAll(async () => {
  t = await createTestApp()
  await seedPlans(t.database.db)
  maria = await createUser(t, { name: 'Maria Cliente' })
  joao = await createUser(t, { name: 'João Outro' })
})
afterAll(async () => {
  await t.close()
})

async function countRows(userId: string) {
  const subs = await t.database.db.select().from(subscriptions).where(eq(subscriptions.userId, userId))
  const pays = await t.database.db
    .select({ id: payments.id })
    .from(payments)
    .innerJoin(subscriptions, eq(subscriptions.id, payments.subscriptionId))
    .where(eq(subscriptions.userId, userId))
  return { subscriptions: subs.length, payments: pays.length }
}

describe('PIX checkout without PIX settings', () => {
  it('answers 503 pix_not_configured and creates nothing while the settings are blank', async () => {
    const response = await post(t.app, '/api/checkout/pix', { plan_id: 'plan_basic' }, maria.cookie)
    expect(response.statusCode).toBe(503)
    expect(response.json()).toMatchObject({ code: 'pix_not_configured' })
    expect(await countRows(maria.id)).toEqual({ subscriptions: 0, payments: 0 })
  })

  it('answers 503 for a key that is no valid PIX key', async () => {
    await configurePix(t.database.db, { pixKey: 'chave-invalida' })
    const response = await post(t.app, '/api/checkout/pix', { plan_id: 'plan_basic' }, maria.cookie)
    expect(response.statusCode).toBe(503)
    expect(await countRows(maria.id)).toEqual({ subscriptions: 0, payments: 0 })
    await configurePix(t.database.db)
  })
})

describe('anonymous visitors', () => {
  it.each([
    ['POST', '/api/checkout/pix', { plan_id: 'plan_basic' }],
    ['GET', '/api/subscriptions'],
    ['GET', '/api/payments'],
    ['GET', '/api/payments/x/pix'],
    ['GET', '/api/payments/x/receipt'],
    ['POST', '/api/subscriptions/cancel', { subscription_id: 'x' }],
    ['GET', '/api/subscriptions/x/upgrade-options'],
    ['POST', '/api/subscriptions/upgrade', { subscription_id: 'x', new_plan_id: 'plan_pro' }],
    ['GET', '/api/profile'],
  ] as const)('%s %s → 401 Usuário não autenticado', async (method, url, body?: object) => {
    const response = method === 'GET' ? await get(t.app, url) : await post(t.app, url, body)
    expect(response.statusCode).toBe(401)
    expect(response.json()).toMatchObject({ code: 'unauthenticated', message: 'Usuário não autenticado' })
  })
})

describe('PIX checkout', () => {
  let result: PixCheckoutResult

  it('creates a pending_pix subscription of one calendar month and an invoice due in 3 days', async () => {
    t.clock.set('2026-03-10T12:00:00.000Z')
    const response = await post(t.app, '/api/checkout/pix', { plan_id: 'plan_pro' }, maria.cookie)
    expect(response.statusCode, response.body).toBe(200)
    result = response.json()
    expect(result.reused).toBe(false)
    expect(result.subscription).toMatchObject({
      userId: maria.id,
      planId: 'plan_pro',
      status: 'pending_pix',
      billingMethod: 'pix',
      currentPeriodStart: '2026-03-10T12:00:00.000Z',
      currentPeriodEnd: '2026-04-10T12:00:00.000Z',
      cancelAtPeriodEnd: false,
      plan: { id: 'plan_pro', name: 'Profissional', priceCents: 19_900 },
    })
    expect(result.payment).toMatchObject({
      subscriptionId: result.subscription.id,
      amountCents: 19_900,
      status: 'pending_pix',
      paymentMethod: 'pix',
      type: 'new',
      metadata: { type: 'new' },
      dueDate: '2026-03-13T12:00:00.000Z',
      receiptUrl: null,
      plan: { id: 'plan_pro', name: 'Profissional', priceCents: 19_900 },
    })

    const [row] = await t.database.db.select().from(payments).where(eq(payments.id, result.payment.id))
    expect(row?.pixReference).toMatch(/^ASS[A-Za-z0-9]{22}$/)
    const [sub] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.id, result.subscription.id))
    expect(sub?.anchorDay).toBe(10)

    const parsed = parsePixBrCode(result.pix.brCode)
    expect(parsed.crcValid).toBe(true)
    expect(parsed.amountCents).toBe(19_900)
    expect(parsed.txid).toBe(row?.pixReference)
    expect(parsed.key).toBe('financeiro@atendimento.example.com.br')
    expect(parsed.beneficiaryName).toBe('Atendimento Multicanal')
    expect(parsed.beneficiaryCity).toBe('Itaitinga')
    expect(result.pix).toMatchObject({
      paymentId: result.payment.id,
      amountCents: 19_900,
      reference: row?.pixReference,
      type: 'new',
      planName: 'Profissional',
      dueDate: '2026-03-13T12:00:00.000Z',
    })

    const audits = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, result.subscription.id), eq(auditLog.action, 'subscription.checkout_pix')))
    expect(audits).toHaveLength(1)
    expect(audits[0]?.actorId).toBe(maria.id)
  })

  it('gives back the same open invoice on a second click instead of creating another', async () => {
    const again = await post(t.app, '/api/checkout/pix', { plan_id: 'plan_pro' }, maria.cookie)
    expect(again.statusCode).toBe(200)
    const second: PixCheckoutResult = again.json()
    expect(second.reused).toBe(true)
    expect(second.subscription.id).toBe(result.subscription.id)
    expect(second.payment.id).toBe(result.payment.id)
    expect(second.pix.brCode).toBe(result.pix.brCode)
    expect(await countRows(maria.id)).toEqual({ subscriptions: 1, payments: 1 })
  })

  it('creates one subscription and one invoice for two simultaneous requests', async () => {
    const responses = await Promise.all([
      post(t.app, '/api/checkout/pix', { plan_id: 'plan_basic' }, maria.cookie),
      post(t.app, '/api/checkout/pix', { plan_id: 'plan_basic' }, maria.cookie),
    ])
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200])
    const [a, b] = responses.map((r) => r.json() as PixCheckoutResult)
    expect(a?.payment.id).toBe(b?.payment.id)
    expect([a?.reused, b?.reused].sort()).toEqual([false, true])
    expect(await countRows(maria.id)).toEqual({ subscriptions: 2, payments: 2 })
  })

  it('refuses a missing or inactive plan with 404 and creates nothing', async () => {
    for (const planId of ['plan_nao_existe', 'plan_legacy']) {
      const response = await post(t.app, '/api/checkout/pix', { plan_id: planId }, joao.cookie)
      expect(response.statusCode).toBe(404)
      expect(response.json()).toMatchObject({ code: 'plan_not_found', message: 'Plano não encontrado.' })
    }
    expect(await countRows(joao.id)).toEqual({ subscriptions: 0, payments: 0 })
  })

  it('refuses a body with other fields', async () => {
    const response = await post(t.app, '/api/checkout/pix', { plan_id: 'plan_basic', amount: 1 }, joao.cookie)
    expect(response.statusCode).toBe(400)
  })

  it('lists only the user own subscriptions, newest first, with their plans', async () => {
    t.clock.set('2026-03-10T13:00:00.000Z')
    const joaoCheckout = await post(t.app, '/api/checkout/pix', { plan_id: 'plan_business' }, joao.cookie)
    expect(joaoCheckout.statusCode).toBe(200)

    const list: Subscription[] = (await get(t.app, '/api/subscriptions', maria.cookie)).json().items
    expect(list.map((s) => s.planId).sort()).toEqual(['plan_basic', 'plan_pro'])
    expect(list.every((s) => s.userId === maria.id)).toBe(true)
    const joaoList: Subscription[] = (await get(t.app, '/api/subscriptions', joao.cookie)).json().items
    expect(joaoList.map((s) => s.planId)).toEqual(['plan_business'])
  })

  it('lists only the user own payments with the subscription plan', async () => {
    const list: Payment[] = (await get(t.app, '/api/payments', maria.cookie)).json().items
    expect(list).toHaveLength(2)
    expect(list.map((p) => p.plan?.id).sort()).toEqual(['plan_basic', 'plan_pro'])
    const joaoList: Payment[] = (await get(t.app, '/api/payments', joao.cookie)).json().items
    expect(joaoList.map((p) => p.plan?.name)).toEqual(['Empresarial'])
  })

  it('shows the PIX code of an open invoice again', async () => {
    const response = await get(t.app, `/api/payments/${result.payment.id}/pix`, maria.cookie)
    expect(response.statusCode).toBe(200)
    const charge: PixCharge = response.json()
    expect(charge.brCode).toBe(result.pix.brCode)
  })

  it("answers 404 for another customer's subscription and payment ids, as for missing ones", async () => {
    const paymentId = result.payment.id
    const subscriptionId = result.subscription.id
    const attempts = [
      get(t.app, `/api/payments/${paymentId}/pix`, joao.cookie),
      get(t.app, `/api/payments/${paymentId}/receipt`, joao.cookie),
      get(t.app, `/api/subscriptions/${subscriptionId}/upgrade-options`, joao.cookie),
      post(t.app, '/api/subscriptions/cancel', { subscription_id: subscriptionId }, joao.cookie),
      post(
        t.app,
        '/api/subscriptions/upgrade',
        { subscription_id: subscriptionId, new_plan_id: 'plan_business' },
        joao.cookie,
      ),
      get(t.app, '/api/payments/nao-existe/pix', joao.cookie),
    ]
    const responses = await Promise.all(attempts)
    for (const response of responses) {
      expect(response.statusCode, response.body).toBe(404)
      expect(['payment_not_found', 'subscription_not_found']).toContain(response.json().code)
    }
  })
})

describe('receipts', () => {
  it('gives the receipt of a paid PIX invoice and links to it from the payments list', async () => {
    const [sub] = await t.database.db
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.userId, maria.id), eq(subscriptions.planId, 'plan_pro')))
    await activate(t.database.db, sub!.id, new Date('2026-03-11T09:30:00.000Z'))
    const list: Payment[] = (await get(t.app, '/api/payments', maria.cookie)).json().items
    const paid = list.find((p) => p.status === 'paid')
    expect(paid?.receiptUrl).toBe(`/dashboard/payments/${paid?.id}/receipt`)
    expect(list.find((p) => p.status === 'pending_pix')?.receiptUrl).toBeNull()

    const response = await get(t.app, `/api/payments/${paid?.id}/receipt`, maria.cookie)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({
      payment: { id: paid?.id, status: 'paid' },
      plan: { id: 'plan_pro', name: 'Profissional', priceCents: 19_900 },
      customer: { name: 'Maria Cliente', companyName: 'Loja da Maria', email: maria.email },
      company: { legalName: t.config.COMPANY_LEGAL_NAME, cnpj: t.config.COMPANY_CNPJ },
      paidAt: '2026-03-11T09:30:00.000Z',
      method: 'pix',
      amountCents: 19_900,
    })
    expect(response.json().pixEndToEndId).toMatch(/^E[0-9a-f]{31}$/)

    const pix = await get(t.app, `/api/payments/${paid?.id}/pix`, maria.cookie)
    expect(pix.statusCode).toBe(409)
    expect(pix.json()).toMatchObject({ code: 'payment_not_pending' })
  })

  it('has no receipt for an invoice not paid yet', async () => {
    const list: Payment[] = (await get(t.app, '/api/payments', maria.cookie)).json().items
    const open = list.find((p) => p.status === 'pending_pix')
    const response = await get(t.app, `/api/payments/${open?.id}/receipt`, maria.cookie)
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({ code: 'payment_not_paid' })
  })
})

describe('db:check', () => {
  it('leaves every invariant of the database holding', async () => {
    await expectInvariantsHold(t.database.db)
  })
})
