import { asc, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PixCheckoutResult } from '../../../domain/contracts/billing'
import { loadConfig } from '../../config'
import { payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import { createTestApp, type TestApp } from '../../test/test-app'
import { createUser, get, origin, post, type TestUser } from '../../test/users'
import type { CardGateway } from '../billing/card-gateway'
import { activate, configurePix } from '../billing/test-fixtures'
import { silentLog } from '../lifecycle/lifecycle-fixtures'
import { createRenewalInvoices } from '../lifecycle/renewals.service'
import { createSimulatorGateway, type SimulatorGateway } from './card-simulator.service'

let t: TestApp
let ana: TestUser
let bruno: TestUser

const pro = {
  id: 'plan_pro',
  name: 'Pro',
  description: '',
  priceCents: 19900,
  currency: 'BRL' as const,
  features: [],
  boxQuantity: 1,
  agentQuantity: 1,
  popular: true,
  active: true,
}

beforeAll(async () => {
  t = await createTestApp()
  await t.database.db.insert(plans).values([
    { id: 'plan_basic', name: 'Básico', priceCents: 9900 },
    { id: 'plan_pro', name: 'Pro', priceCents: 19900, popular: true },
    { id: 'plan_business', name: 'Empresarial', priceCents: 39900 },
  ])
  ana = await createUser(t, { name: 'Ana Simulada' })
  bruno = await createUser(t, { name: 'Bruno Simulado' })
})
afterAll(async () => {
  await t.close()
})

function submit(app: FastifyInstance, url: string, cookie?: string) {
  // What a browser sends for a plain <form method="post"> without fields.
  return app.inject({
    method: 'POST',
    url,
    payload: '',
    headers: { origin, 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
  })
}

async function startCheckout(user: TestUser, planId: string): Promise<string> {
  const response = await post(t.app, '/api/checkout/card', { plan_id: planId }, user.cookie)
  expect(response.statusCode, response.body).toBe(200)
  return new URL(response.json().url).pathname
}

async function rowsOf(userId: string) {
  const subs = await t.database.db.select().from(subscriptions).where(eq(subscriptions.userId, userId))
  const pays = subs.length
    ? await t.database.db
        .select()
        .from(payments)
        .where(eq(payments.subscriptionId, subs[0]!.id))
        .orderBy(asc(payments.createdAt), asc(payments.id))
    : []
  return { subs, pays }
}

function simulator(card: CardGateway): SimulatorGateway {
  if (card.mode !== 'simulator' || !('settled' in card)) throw new Error('expected the card simulator')
  return card as SimulatorGateway
}

describe('card test-mode simulator', () => {
  it('is the card provider without STRIPE_SECRET_KEY and checkout points at its page', async () => {
    expect(t.app.ctx.card.mode).toBe('simulator')
    const response = await post(t.app, '/api/checkout/card', { plan_id: 'plan_pro' }, ana.cookie)
    expect(response.json().url).toMatch(/^http:\/\/localhost:3000\/api\/dev\/card-simulator\/cs_sim_[A-Za-z0-9_-]{32}$/)
    const again = await post(t.app, '/api/checkout/card', { plan_id: 'plan_pro' }, ana.cookie)
    expect(again.json().url).toBe(response.json().url)
  })

  it('shows a test-mode page with the plan and amount to its owner only', async () => {
    const path = await startCheckout(ana, 'plan_pro')
    const page = await get(t.app, path, ana.cookie)
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toContain('text/html')
    expect(page.body).toContain('MODO DE TESTE — nenhuma cobrança real')
    expect(page.body).toContain('Pro')
    expect(page.body).toContain('R$\u00a0199,00/mês')
    expect(page.body).toContain('Aprovar pagamento')
    expect(page.body).toContain('Recusar pagamento')
    expect(page.body).toContain(`<form method="post" action="${path}/approve">`)

    expect((await get(t.app, path, bruno.cookie)).statusCode).toBe(404)
    expect((await get(t.app, path)).statusCode).toBe(404)
    expect(
      (await get(t.app, '/api/dev/card-simulator/cs_sim_doesnotexistdoesnotexist00000000', ana.cookie)).statusCode,
    ).toBe(404)
  })

  it('does not let another user approve the session', async () => {
    const path = await startCheckout(bruno, 'plan_business')
    const stolen = await submit(t.app, `${path}/approve`, ana.cookie)
    expect(stolen.statusCode).toBe(404)
    const anonymous = await submit(t.app, `${path}/approve`)
    expect(anonymous.statusCode).toBe(404)
    expect((await rowsOf(bruno.id)).subs).toHaveLength(0)
    expect((await rowsOf(ana.id)).subs).toHaveLength(0)
  })

  it('changes nothing on decline and sends the browser back to the plans', async () => {
    const path = await startCheckout(ana, 'plan_basic')
    const declined = await submit(t.app, `${path}/decline`, ana.cookie)
    expect(declined.statusCode).toBe(302)
    expect(declined.headers.location).toBe('http://localhost:3000/plans?checkout=declined')
    expect(await rowsOf(ana.id)).toEqual({ subs: [], pays: [] })
  })

  it('on approval, creates an active card subscription and a paid payment with a receipt, once', async () => {
    const path = await startCheckout(ana, 'plan_pro')
    const approved = await submit(t.app, `${path}/approve`, ana.cookie)
    expect(approved.statusCode).toBe(302)
    expect(approved.headers.location).toBe('http://localhost:3000/dashboard/my-subscriptions?checkout=success')
    const twice = await submit(t.app, `${path}/approve`, ana.cookie)
    expect(twice.headers.location).toBe('http://localhost:3000/dashboard/my-subscriptions?checkout=success')
    const revisited = await get(t.app, path, ana.cookie)
    expect(revisited.body).toContain('Este pagamento já foi aprovado.')
    expect(revisited.body).not.toContain('Aprovar pagamento')

    const { subs, pays } = await rowsOf(ana.id)
    expect(subs).toHaveLength(1)
    expect(subs[0]).toMatchObject({
      planId: 'plan_pro',
      status: 'active',
      billingMethod: 'card',
      cancelAtPeriodEnd: false,
      currentPeriodStart: new Date('2026-03-10T12:00:00.000Z'),
      currentPeriodEnd: new Date('2026-04-10T12:00:00.000Z'),
    })
    expect(subs[0]!.stripeSubscriptionId).toMatch(/^sub_sim_/)
    expect(pays).toHaveLength(1)
    expect(pays[0]).toMatchObject({ status: 'paid', paymentMethod: 'card', amountCents: 19900, type: 'new' })
    expect(pays[0]!.receiptUrl).toMatch(/^http:\/\/localhost:3000\/api\/dev\/card-simulator\/receipts\/in_sim_/)

    const receiptPath = new URL(pays[0]!.receiptUrl!).pathname
    const receipt = await get(t.app, receiptPath, ana.cookie)
    expect(receipt.statusCode).toBe(200)
    expect(receipt.body).toContain('MODO DE TESTE — nenhuma cobrança real')
    expect(receipt.body).toContain('Recibo de pagamento')
    expect(receipt.body).toContain('R$\u00a0199,00')
    expect((await get(t.app, receiptPath, bruno.cookie)).statusCode).toBe(404)
  })

  it('feeds cancel, plan change and immediate cancel into the same event handling', async () => {
    const path = await startCheckout(bruno, 'plan_basic')
    await submit(t.app, `${path}/approve`, bruno.cookie)
    const [sub] = (await rowsOf(bruno.id)).subs
    const stripeId = sub!.stripeSubscriptionId!
    const card = simulator(t.app.ctx.card)

    await card.cancelAtPeriodEnd(stripeId)
    await card.settled()
    expect((await rowsOf(bruno.id)).subs[0]?.cancelAtPeriodEnd).toBe(true)
    expect(await card.retrieveSubscription?.(stripeId)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true })

    t.clock.advance(15 * 86_400_000) // mid-period: half of the difference is charged
    const upgraded = await post(
      t.app,
      '/api/subscriptions/upgrade',
      { subscription_id: sub!.id, new_plan_id: 'plan_pro' },
      bruno.cookie,
    )
    expect(upgraded.statusCode, upgraded.body).toBe(200)
    expect(upgraded.json()).toMatchObject({ kind: 'card', subscription: { planId: 'plan_pro' } })
    await card.settled()
    const afterChange = await rowsOf(bruno.id)
    expect(afterChange.subs[0]?.planId).toBe('plan_pro')
    const upgrade = afterChange.pays.find((p) => p.type === 'upgrade')
    expect(upgrade).toMatchObject({ status: 'paid', paymentMethod: 'card', targetPlanId: 'plan_pro' })
    expect(upgrade!.amountCents).toBeGreaterThan(4000)
    expect(upgrade!.amountCents).toBeLessThan(6000)

    await card.cancelNow(stripeId)
    await card.settled()
    expect((await rowsOf(bruno.id)).subs[0]?.status).toBe('canceled')
  })

  it('pays the first PIX invoice by moving that subscription to card, once', async () => {
    await configurePix(t.database.db)
    const carla = await createUser(t, { name: 'Carla Simulada' })
    const checkout = await post(t.app, '/api/checkout/pix', { plan_id: 'plan_pro' }, carla.cookie)
    const { subscription, payment } = checkout.json() as PixCheckoutResult
    const started = await post(t.app, `/api/payments/${payment.id}/card-checkout`, {}, carla.cookie)
    expect(started.statusCode, started.body).toBe(200)
    const path = new URL(started.json().url).pathname
    const page = await get(t.app, path, carla.cookie)
    expect(page.body).toContain('R$\u00a0199,00')

    const approved = await submit(t.app, `${path}/approve`, carla.cookie)
    expect(approved.headers.location).toBe('http://localhost:3000/dashboard/payments?checkout=success')
    const after = await rowsOf(carla.id)
    expect(after.subs).toHaveLength(1)
    expect(after.subs[0]).toMatchObject({ id: subscription.id, status: 'active', billingMethod: 'card' })
    expect(after.subs[0]!.stripeSubscriptionId).toMatch(/^sub_sim_/)
    expect(after.pays.find((p) => p.id === payment.id)).toMatchObject({ status: 'void' })
    expect(after.pays.filter((p) => p.id !== payment.id)).toEqual([
      expect.objectContaining({ status: 'paid', paymentMethod: 'card', type: 'new', amountCents: 19900 }),
    ])
    await submit(t.app, `${path}/approve`, carla.cookie) // a second click replays the same events
    expect(await rowsOf(carla.id)).toEqual(after)
  })

  it('pays a renewal and an upgrade invoice with one-time card payments, once each', async () => {
    await configurePix(t.database.db)
    const davi = await createUser(t, { name: 'Davi Simulado' })
    const checkout = await post(t.app, '/api/checkout/pix', { plan_id: 'plan_basic' }, davi.cookie)
    const { subscription } = checkout.json() as PixCheckoutResult
    const start = new Date('2026-01-31T10:00:00.000Z')
    const end = new Date('2026-02-28T10:00:00.000Z')
    await activate(t.database.db, subscription.id, start)
    await t.database.db
      .update(subscriptions)
      .set({ currentPeriodStart: start, currentPeriodEnd: end, anchorDay: 31 })
      .where(eq(subscriptions.id, subscription.id))

    // Upgrade mid-period, paid by card.
    t.clock.set('2026-02-14T10:00:00.000Z')
    const upgrade = await post(
      t.app,
      '/api/subscriptions/upgrade',
      { subscription_id: subscription.id, new_plan_id: 'plan_pro' },
      davi.cookie,
    )
    const invoice = upgrade.json().payment as { id: string; amountCents: number }
    const upgradePath = new URL(
      (await post(t.app, `/api/payments/${invoice.id}/card-checkout`, {}, davi.cookie)).json().url,
    ).pathname
    await submit(t.app, `${upgradePath}/approve`, davi.cookie)
    await submit(t.app, `${upgradePath}/approve`, davi.cookie)
    let rows = await rowsOf(davi.id)
    expect(rows.subs[0]).toMatchObject({ planId: 'plan_pro', currentPeriodEnd: end, billingMethod: 'pix' })
    expect(rows.pays.find((p) => p.id === invoice.id)).toMatchObject({
      status: 'paid',
      paymentMethod: 'card',
      amountCents: invoice.amountCents,
    })
    expect(rows.pays.find((p) => p.id === invoice.id)!.stripePaymentIntentId).toMatch(/^pi_sim_/)

    // The renewal, at the new plan's price, paid by card: one month more, anchored on the 31st.
    t.clock.set('2026-02-26T10:00:00.000Z')
    await createRenewalInvoices({ ...t.app.ctx, log: silentLog }, t.clock.now())
    const renewal = (await rowsOf(davi.id)).pays.find((p) => p.type === 'renewal')!
    const renewalPath = new URL(
      (await post(t.app, `/api/payments/${renewal.id}/card-checkout`, {}, davi.cookie)).json().url,
    ).pathname
    expect((await get(t.app, renewalPath, bruno.cookie)).statusCode).toBe(404) // someone else's session
    await submit(t.app, `${renewalPath}/approve`, davi.cookie)
    rows = await rowsOf(davi.id)
    expect(rows.subs).toHaveLength(1)
    expect(rows.subs[0]).toMatchObject({
      status: 'active',
      currentPeriodStart: end,
      currentPeriodEnd: new Date('2026-03-31T10:00:00.000Z'),
    })
    expect(rows.pays.find((p) => p.id === renewal.id)).toMatchObject({
      status: 'paid',
      paymentMethod: 'card',
      amountCents: renewal.amountCents,
    })
  })

  it('is refused in production, routes and gateway alike', async () => {
    const production = await createTestApp({
      env: {
        NODE_ENV: 'production',
        STRIPE_SECRET_KEY: 'sk_test_x',
        STRIPE_WEBHOOK_SECRET: 'whsec_test',
        SMTP_URL: 'smtp://127.0.0.1:2525',
        WHATSAPP_TOKEN: 'token',
        WHATSAPP_PHONE_NUMBER_ID: '123',
        WHATSAPP_API_URL: 'http://127.0.0.1:9',
      },
    })
    try {
      const page = await get(production.app, '/api/dev/card-simulator/cs_sim_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')
      expect(page.statusCode).toBe(404)
      expect(page.json()).toMatchObject({ code: 'simulator_disabled' })
      const approve = await submit(
        production.app,
        '/api/dev/card-simulator/cs_sim_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/approve',
      )
      expect(approve.json()).toMatchObject({ code: 'simulator_disabled' })
    } finally {
      await production.close()
    }

    const gateway = createSimulatorGateway({
      config: loadConfig({
        NODE_ENV: 'production',
        DATA_DIR: t.config.dataDir,
        APP_URL: 'https://assinaturas.example.com.br',
        AUTH_SECRET: 'x'.repeat(40),
        STRIPE_SECRET_KEY: 'sk_test_x',
        STRIPE_WEBHOOK_SECRET: 'whsec_test',
        SMTP_URL: 'smtp://127.0.0.1:2525',
      }),
      db: t.database.db,
      now: t.clock.now,
    })
    await expect(
      gateway.createCheckoutSession({ userId: ana.id, email: ana.email, plan: pro, idempotencyKey: 'k' }),
    ).rejects.toMatchObject({ code: 'simulator_disabled' })
  })
})
