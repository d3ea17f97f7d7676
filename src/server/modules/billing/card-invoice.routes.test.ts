// Issue 9, items 1 and 3, against the fake Stripe (real SDK) and signed webhooks: 'Pagar com Cartão' on an open
// invoice pays that invoice, and card upgrades switch the plan only once paid. Money and rights are asserted by
// database diff (the user's subscriptions and payments before and after).
import { randomUUID } from 'node:crypto'
import { and, asc, eq, inArray } from 'drizzle-orm'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { PixCheckoutResult } from '../../../domain/contracts/billing'
import { payments, subscriptions } from '../../db/schema/billing'
import { notifications } from '../../db/schema/lifecycle'
import { cardPlanChanges } from '../../db/schema/stripe'
import { createUser, post, type TestUser } from '../../test/users'
import { depsOf } from '../lifecycle/lifecycle-fixtures'
import { createRenewalInvoices } from '../lifecycle/renewals.service'
import { fileStripeApp, sendStripeEvent, stripeEvent as event } from '../stripe/stripe-fixtures'
import { activate, configurePix, seedPlans } from './test-fixtures'

const now = '2026-03-10T12:00:00.000Z'

const { t, fake } = fileStripeApp()
const sendEvent = (body: unknown, signature?: string) => sendStripeEvent(t.app, body, signature)

beforeAll(async () => {
  await seedPlans(t.database.db)
  await configurePix(t.database.db)
})
beforeEach(() => {
  t.clock.set(now)
})

const seconds = (iso: string | Date) => Math.floor(new Date(iso).getTime() / 1000)

/** Everything money or rights depend on, for one user: the database diff of each test. */
async function snapshot(userId: string) {
  const subs = await t.database.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.userId, userId))
    .orderBy(asc(subscriptions.createdAt), asc(subscriptions.id))
  const pays = subs.length
    ? await t.database.db
        .select()
        .from(payments)
        .where(
          inArray(
            payments.subscriptionId,
            subs.map((s) => s.id),
          ),
        )
        .orderBy(asc(payments.createdAt), asc(payments.id))
    : []
  return { subs, pays }
}

async function pixCheckout(user: TestUser, planId: string) {
  const response = await post(t.app, '/api/checkout/pix', { plan_id: planId }, user.cookie)
  expect(response.statusCode, response.body).toBe(200)
  const result = response.json() as PixCheckoutResult
  return { subscriptionId: result.subscription.id, paymentId: result.payment.id }
}

/** An active PIX subscription (as the admin confirmation leaves it) with the given period. */
async function activePix(user: TestUser, planId: string, period: { start: string; end: string; anchorDay: number }) {
  const { subscriptionId } = await pixCheckout(user, planId)
  await activate(t.database.db, subscriptionId, new Date(now))
  await t.database.db
    .update(subscriptions)
    .set({
      currentPeriodStart: new Date(period.start),
      currentPeriodEnd: new Date(period.end),
      anchorDay: period.anchorDay,
    })
    .where(eq(subscriptions.id, subscriptionId))
  return subscriptionId
}

/** A period of the month of March, anchored on the 1st. */
const march = { start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z', anchorDay: 1 }

function upgradeTo(user: TestUser, subscriptionId: string, planId: string) {
  return post(
    t.app,
    '/api/subscriptions/upgrade',
    { subscription_id: subscriptionId, new_plan_id: planId },
    user.cookie,
  )
}

function cardCheckout(user: TestUser, paymentId: string) {
  return post(t.app, `/api/payments/${paymentId}/card-checkout`, {}, user.cookie)
}

function sessionRequests() {
  return fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions')
}

/** checkout.session.completed of a payment-mode session, as Stripe sends it for a card paid in Checkout. */
function paidPaymentSession(o: {
  user: TestUser
  subscriptionId: string
  paymentId: string
  amount: number
  currency?: string
  intent?: string
}) {
  return {
    id: `cs_test_${randomUUID()}`,
    object: 'checkout.session',
    mode: 'payment',
    status: 'complete',
    payment_status: 'paid',
    amount_total: o.amount,
    amount_subtotal: o.amount,
    currency: o.currency ?? 'brl',
    customer: null,
    client_reference_id: o.user.id,
    payment_intent: o.intent ?? `pi_${randomUUID().replaceAll('-', '')}`,
    subscription: null,
    metadata: { userId: o.user.id, subscriptionId: o.subscriptionId, paymentId: o.paymentId },
  }
}

describe('POST /api/payments/:id/card-checkout: the first invoice of a pending_pix subscription', () => {
  it('moves that same subscription to card: one subscription, the PIX invoice voided, the amount exact', async () => {
    const ana = await createUser(t, { name: 'Ana Troca' })
    const pix = await pixCheckout(ana, 'plan_pro')
    const before = await snapshot(ana.id)
    expect(before.subs).toHaveLength(1)

    const response = await cardCheckout(ana, pix.paymentId)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json().url).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_fake_\d+$/)
    const [session] = sessionRequests()
    const ours = { userId: ana.id, planId: 'plan_pro', subscriptionId: pix.subscriptionId, paymentId: pix.paymentId }
    expect(session!.body).toMatchObject({
      mode: 'subscription',
      line_items: [
        { quantity: '1', price_data: { currency: 'brl', unit_amount: '19900', recurring: { interval: 'month' } } },
      ],
      metadata: ours,
      subscription_data: { metadata: ours },
      success_url: 'http://localhost:3000/dashboard/payments?checkout=success',
    })
    expect(await snapshot(ana.id)).toEqual(before) // nothing changes until the card is paid

    // Stripe: the checkout completes and the subscription's first invoice is paid.
    const subId = `sub_${randomUUID().replaceAll('-', '')}`
    const start = seconds(now) + 60
    const end = seconds('2026-04-10T12:01:00.000Z')
    fake.subscriptions.set(subId, {
      id: subId,
      object: 'subscription',
      customer: 'cus_ana',
      status: 'active',
      cancel_at_period_end: false,
      metadata: ours,
      pending_update: null,
      items: {
        object: 'list',
        data: [
          {
            id: `si_${subId}`,
            current_period_start: start,
            current_period_end: end,
            price: { id: 'price_1', product: 'prod_1', unit_amount: 19900, currency: 'brl' },
          },
        ],
      },
    })
    const completed = event('checkout.session.completed', start, {
      id: `cs_test_${randomUUID()}`,
      object: 'checkout.session',
      mode: 'subscription',
      payment_status: 'paid',
      status: 'complete',
      customer: 'cus_ana',
      client_reference_id: ana.id,
      subscription: subId,
      metadata: ours,
    })
    const invoiceId = `in_${randomUUID().replaceAll('-', '')}`
    const paid = event('invoice.paid', start, {
      id: invoiceId,
      object: 'invoice',
      customer: 'cus_ana',
      currency: 'brl',
      status: 'paid',
      billing_reason: 'subscription_create',
      amount_paid: 19900,
      created: start,
      status_transitions: { paid_at: start },
      parent: { type: 'subscription_details', subscription_details: { subscription: subId, metadata: ours } },
      lines: { object: 'list', data: [{ id: `il_${invoiceId}`, amount: 19900, period: { start, end } }] },
    })
    // The invoice may come first: it binds the same row.
    expect((await sendEvent(paid)).json()).toEqual({ received: true, result: 'processed' })
    expect((await sendEvent(completed)).json()).toEqual({ received: true, result: 'processed' })

    const after = await snapshot(ana.id)
    expect(after.subs).toHaveLength(1)
    expect(after.subs[0]).toMatchObject({
      id: pix.subscriptionId,
      planId: 'plan_pro',
      status: 'active',
      billingMethod: 'card',
      stripeSubscriptionId: subId,
      stripeCustomerId: 'cus_ana',
      currentPeriodStart: new Date(start * 1000),
      currentPeriodEnd: new Date(end * 1000),
    })
    expect(after.pays).toHaveLength(2)
    expect(after.pays.find((p) => p.id === pix.paymentId)).toMatchObject({ status: 'void', amountCents: 19900 })
    expect(after.pays.find((p) => p.id !== pix.paymentId)).toMatchObject({
      status: 'paid',
      paymentMethod: 'card',
      type: 'new',
      amountCents: 19900,
      stripeInvoiceId: invoiceId,
    })

    // Replays, and the same invoice told again under another event: nothing changes.
    expect((await sendEvent(paid)).json()).toMatchObject({ result: 'duplicate' })
    expect((await sendEvent(completed)).json()).toMatchObject({ result: 'duplicate' })
    await sendEvent(event('invoice.payment_succeeded', start, paid.data.object))
    expect(await snapshot(ana.id)).toEqual(after)

    // The voided invoice cannot be paid again.
    const again = await cardCheckout(ana, pix.paymentId)
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ code: 'invoice_not_open' })
  })

  it('never makes a second live subscription: a card checkout of a plan with an open PIX first invoice pays it', async () => {
    const bia = await createUser(t, { name: 'Bia Guarda' })
    const pix = await pixCheckout(bia, 'plan_basic')
    const response = await post(t.app, '/api/checkout/card', { plan_id: 'plan_basic' }, bia.cookie)
    expect(response.statusCode, response.body).toBe(200)
    expect(sessionRequests().at(-1)!.body).toMatchObject({
      mode: 'subscription',
      metadata: { subscriptionId: pix.subscriptionId, paymentId: pix.paymentId },
    })

    // A subscription already paid by PIX refuses to be bound to a card subscription: no second row either.
    await activate(t.database.db, pix.subscriptionId, new Date(now))
    const before = await snapshot(bia.id)
    const subId = `sub_${randomUUID().replaceAll('-', '')}`
    const ours = { userId: bia.id, planId: 'plan_basic', subscriptionId: pix.subscriptionId, paymentId: pix.paymentId }
    const start = seconds(now)
    const late = await sendEvent(
      event('invoice.paid', start, {
        id: `in_${randomUUID().replaceAll('-', '')}`,
        object: 'invoice',
        currency: 'brl',
        billing_reason: 'subscription_create',
        amount_paid: 9900,
        parent: { type: 'subscription_details', subscription_details: { subscription: subId, metadata: ours } },
        lines: { object: 'list', data: [{ period: { start, end: start + 31 * 86_400 } }] },
      }),
    )
    expect(late.json()).toMatchObject({ result: 'ignored' })
    expect(await snapshot(bia.id)).toEqual(before)
  })
})

describe('POST /api/payments/:id/card-checkout: renewal and upgrade invoices', () => {
  it('pays a renewal once, for exactly its amount, and extends the period keeping the anchor day', async () => {
    const caio = await createUser(t, { name: 'Caio Renova' })
    const subscriptionId = await activePix(caio, 'plan_basic', {
      start: '2026-02-28T12:00:00.000Z',
      end: '2026-03-31T12:00:00.000Z',
      anchorDay: 31,
    })
    t.clock.set('2026-03-29T12:00:00.000Z')
    await createRenewalInvoices(depsOf(t), t.clock.now())
    const before = await snapshot(caio.id)
    const renewal = before.pays.find((p) => p.type === 'renewal')!
    expect(renewal).toMatchObject({ status: 'pending_pix', amountCents: 9900 })

    const response = await cardCheckout(caio, renewal.id)
    expect(response.statusCode, response.body).toBe(200)
    const ours = { userId: caio.id, subscriptionId, paymentId: renewal.id }
    expect(sessionRequests().at(-1)!.body).toMatchObject({
      mode: 'payment',
      line_items: [{ quantity: '1', price_data: { currency: 'brl', unit_amount: '9900' } }],
      metadata: ours,
      payment_intent_data: { metadata: ours },
    })
    expect(sessionRequests().at(-1)!.body).not.toHaveProperty('subscription_data')

    const completed = event(
      'checkout.session.completed',
      seconds(t.clock.now()),
      paidPaymentSession({
        user: caio,
        subscriptionId,
        paymentId: renewal.id,
        amount: 9900,
        intent: 'pi_renewal_caio',
      }),
    )
    expect((await sendEvent(completed)).json()).toMatchObject({ result: 'processed' })
    const after = await snapshot(caio.id)
    expect(after.subs).toHaveLength(1)
    expect(after.subs[0]).toMatchObject({
      status: 'active',
      billingMethod: 'pix',
      anchorDay: 31,
      currentPeriodStart: new Date('2026-03-31T12:00:00.000Z'),
      currentPeriodEnd: new Date('2026-04-30T12:00:00.000Z'),
    })
    expect(after.pays).toHaveLength(before.pays.length)
    expect(after.pays.find((p) => p.id === renewal.id)).toMatchObject({
      status: 'paid',
      paymentMethod: 'card',
      amountCents: 9900,
      amountReceivedCents: 9900,
      stripePaymentIntentId: 'pi_renewal_caio',
      paidAt: t.clock.now(),
    })

    // A replay, and the same session told again under another event id: one payment, one extension.
    expect((await sendEvent(completed)).json()).toMatchObject({ result: 'duplicate' })
    await sendEvent(event('checkout.session.async_payment_succeeded', seconds(t.clock.now()), completed.data.object))
    expect(await snapshot(caio.id)).toEqual(after)
  })

  it('pays an upgrade invoice and switches the plan, the period unchanged', async () => {
    const duda = await createUser(t, { name: 'Duda Upgrade' })
    const subscriptionId = await activePix(duda, 'plan_basic', march)
    const upgrade = await upgradeTo(duda, subscriptionId, 'plan_business')
    expect(upgrade.statusCode, upgrade.body).toBe(200)
    const invoice = upgrade.json().payment as { id: string; amountCents: number }
    const before = await snapshot(duda.id)

    const response = await cardCheckout(duda, invoice.id)
    expect(response.statusCode, response.body).toBe(200)
    expect(sessionRequests().at(-1)!.body).toMatchObject({
      mode: 'payment',
      line_items: [
        {
          price_data: {
            unit_amount: String(invoice.amountCents),
            product_data: { name: 'Upgrade para o plano Empresarial' },
          },
        },
      ],
      metadata: { paymentId: invoice.id, subscriptionId },
    })
    const completed = event(
      'checkout.session.completed',
      seconds(now),
      paidPaymentSession({ user: duda, subscriptionId, paymentId: invoice.id, amount: invoice.amountCents }),
    )
    expect((await sendEvent(completed)).json()).toMatchObject({ result: 'processed' })
    const after = await snapshot(duda.id)
    expect(after.subs).toEqual([{ ...before.subs[0], planId: 'plan_business', updatedAt: after.subs[0]!.updatedAt }])
    expect(after.pays.find((p) => p.id === invoice.id)).toMatchObject({
      status: 'paid',
      paymentMethod: 'card',
      amountCents: invoice.amountCents,
      type: 'upgrade',
      targetPlanId: 'plan_business',
    })
    expect(after.pays).toHaveLength(before.pays.length)
    expect((await sendEvent(completed)).json()).toMatchObject({ result: 'duplicate' })
    expect(await snapshot(duda.id)).toEqual(after)
  })

  it('sends a charge of another amount or currency to review and applies nothing', async () => {
    const eva = await createUser(t, { name: 'Eva Revisão' })
    const subscriptionId = await activePix(eva, 'plan_basic', march)
    const upgrade = await upgradeTo(eva, subscriptionId, 'plan_pro')
    const invoice = upgrade.json().payment as { id: string; amountCents: number }
    const before = await snapshot(eva.id)
    const short = paidPaymentSession({
      user: eva,
      subscriptionId,
      paymentId: invoice.id,
      amount: invoice.amountCents - 1,
    })
    expect((await sendEvent(event('checkout.session.completed', seconds(now), short))).statusCode).toBe(200)
    const after = await snapshot(eva.id)
    expect(after.subs).toEqual(before.subs) // still plan_basic
    expect(after.pays.find((p) => p.id === invoice.id)).toMatchObject({
      status: 'review',
      amountReceivedCents: invoice.amountCents - 1,
      stripePaymentIntentId: short.payment_intent,
      paidAt: null,
    })

    // Another invoice, charged in dollars: review, no amount recorded as BRL.
    t.clock.set('2026-03-29T12:00:00.000Z')
    await t.database.db.update(payments).set({ status: 'void' }).where(eq(payments.id, invoice.id))
    await createRenewalInvoices(depsOf(t), t.clock.now())
    const renewal = (await snapshot(eva.id)).pays.find((p) => p.type === 'renewal')!
    const usd = paidPaymentSession({ user: eva, subscriptionId, paymentId: renewal.id, amount: 9900, currency: 'usd' })
    await sendEvent(event('checkout.session.completed', seconds(t.clock.now()), usd))
    const final = await snapshot(eva.id)
    expect(final.subs).toEqual(before.subs)
    expect(final.pays.find((p) => p.id === renewal.id)).toMatchObject({ status: 'review', amountReceivedCents: null })
  })

  it("answers 404 for someone else's invoice, 401 without a session and 409 for a paid one, without calling Stripe", async () => {
    const fabio = await createUser(t, { name: 'Fábio Dono' })
    const gil = await createUser(t, { name: 'Gil Intruso' })
    const pix = await pixCheckout(fabio, 'plan_pro')
    const before = await snapshot(fabio.id)

    const foreign = await cardCheckout(gil, pix.paymentId)
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json()).toMatchObject({ code: 'payment_not_found' })
    expect((await cardCheckout(gil, randomUUID())).statusCode).toBe(404)
    expect((await post(t.app, `/api/payments/${pix.paymentId}/card-checkout`, {})).statusCode).toBe(401)

    await activate(t.database.db, pix.subscriptionId, new Date(now))
    const paid = await cardCheckout(fabio, pix.paymentId)
    expect(paid.statusCode).toBe(409)
    expect(paid.json()).toMatchObject({
      code: 'invoice_not_open',
      message: 'Esta fatura não está mais em aberto: ela já foi paga ou cancelada. Atualize a página de pagamentos.',
    })
    expect(sessionRequests()).toHaveLength(0)
    expect((await snapshot(fabio.id)).subs).toHaveLength(before.subs.length)
  })
})

describe('card upgrades switch the plan only once paid (Stripe pending updates)', () => {
  /** A card subscription as Stripe and our webhook have it. */
  async function cardSubscription(user: TestUser, planId: string, amount: number) {
    const subId = `sub_${randomUUID().replaceAll('-', '')}`
    const object = {
      id: subId,
      object: 'subscription',
      customer: `cus_${user.id}`,
      status: 'active',
      cancel_at_period_end: false,
      metadata: { userId: user.id, planId },
      pending_update: null,
      items: {
        object: 'list',
        data: [
          {
            id: `si_${subId}`,
            current_period_start: seconds('2026-03-01T00:00:00.000Z'),
            current_period_end: seconds('2026-04-01T00:00:00.000Z'),
            price: { id: 'price_1', product: 'prod_1', unit_amount: amount, currency: 'brl' },
          },
        ],
      },
    }
    fake.subscriptions.set(subId, object)
    await sendEvent(event('customer.subscription.created', seconds('2026-03-01T00:00:00.000Z'), object))
    const [row] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.stripeSubscriptionId, subId))
    return { id: row!.id, subId }
  }

  it('asks Stripe for a pending update without metadata and switches on the paid invoice, once', async () => {
    const hugo = await createUser(t, { name: 'Hugo Cartão' })
    const { id, subId } = await cardSubscription(hugo, 'plan_basic', 9900)
    const response = await upgradeTo(hugo, id, 'plan_business')
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({ kind: 'card', subscription: { id, planId: 'plan_business' } })
    const update = fake.requests.filter((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${subId}`).at(-1)
    expect(update!.body).toMatchObject({
      payment_behavior: 'pending_if_incomplete',
      proration_behavior: 'always_invoice',
    })
    expect(update!.body).not.toHaveProperty('metadata')

    // invoice.paid of that upgrade (the subscription's metadata still names plan_basic): the payment, once.
    const invoiceId = [...fake.invoices.keys()].at(-1)!
    const start = seconds(now)
    const paid = event('invoice.paid', start, {
      id: invoiceId,
      object: 'invoice',
      currency: 'brl',
      billing_reason: 'subscription_update',
      amount_paid: 30000,
      parent: {
        type: 'subscription_details',
        subscription_details: { subscription: subId, metadata: { userId: hugo.id, planId: 'plan_basic' } },
      },
      lines: { object: 'list', data: [{ period: { start, end: seconds('2026-04-01T00:00:00.000Z') } }] },
    })
    await sendEvent(paid)
    const after = await snapshot(hugo.id)
    expect(after.subs).toHaveLength(1)
    expect(after.subs[0]).toMatchObject({ planId: 'plan_business', status: 'active' })
    expect(after.pays).toEqual([
      expect.objectContaining({ type: 'upgrade', targetPlanId: 'plan_business', amountCents: 30000, status: 'paid' }),
    ])
    expect((await sendEvent(paid)).json()).toMatchObject({ result: 'duplicate' })
    expect(await snapshot(hugo.id)).toEqual(after)
  })

  it('keeps the old plan when the card is declined, tells the customer, and switches if the invoice is paid later', async () => {
    const iara = await createUser(t, { name: 'Iara Recusada' })
    const { id, subId } = await cardSubscription(iara, 'plan_basic', 9900)
    const before = await snapshot(iara.id)
    fake.declineNextCharge()
    const response = await upgradeTo(iara, id, 'plan_pro')
    expect(response.statusCode, response.body).toBe(402)
    expect(response.json()).toMatchObject({
      code: 'card_declined',
      message:
        'O pagamento com cartão foi recusado e seu plano continua o mesmo. Confira os dados do cartão ou use outro e tente novamente.',
    })
    expect(await snapshot(iara.id)).toEqual(before)
    const told = await t.database.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.userId, iara.id), eq(notifications.kind, 'card_upgrade_declined')))
    expect(told.map((n) => n.channel).sort()).toEqual(['email', 'whatsapp'])
    expect(told.find((n) => n.channel === 'email')!.body).toContain('Sua assinatura continua no plano Básico')

    // Stripe's invoice.payment_failed for the upgrade invoice: not past_due, not told twice.
    const invoiceId = [...fake.invoices.keys()].at(-1)!
    const failed = event('invoice.payment_failed', seconds(now), {
      id: invoiceId,
      object: 'invoice',
      currency: 'brl',
      billing_reason: 'subscription_update',
      amount_paid: 0,
      parent: { type: 'subscription_details', subscription_details: { subscription: subId, metadata: {} } },
    })
    expect((await sendEvent(failed)).json()).toMatchObject({ result: 'processed' })
    expect(await snapshot(iara.id)).toEqual(before)
    expect(
      await t.database.db
        .select()
        .from(notifications)
        .where(and(eq(notifications.userId, iara.id), eq(notifications.kind, 'card_upgrade_declined'))),
    ).toHaveLength(2)
    const [change] = await t.database.db.select().from(cardPlanChanges).where(eq(cardPlanChanges.subscriptionId, id))
    expect(change).toMatchObject({ status: 'declined', targetPlanId: 'plan_pro', fromPlanId: 'plan_basic' })

    // The customer fixes the card and Stripe collects the open invoice: now the plan switches.
    await sendEvent(
      event('invoice.paid', seconds(now) + 60, {
        ...(failed.data.object as Record<string, unknown>),
        status: 'paid',
        amount_paid: 5000,
      }),
    )
    const after = await snapshot(iara.id)
    expect(after.subs[0]).toMatchObject({ planId: 'plan_pro', status: 'active' })
    expect(after.pays).toEqual([
      expect.objectContaining({ type: 'upgrade', targetPlanId: 'plan_pro', amountCents: 5000 }),
    ])
  })

  it('drops a pending update that Stripe let expire: the plan never moves', async () => {
    const joao = await createUser(t, { name: 'João Expira' })
    const { id, subId } = await cardSubscription(joao, 'plan_basic', 9900)
    fake.declineNextCharge()
    expect((await upgradeTo(joao, id, 'plan_business')).statusCode).toBe(402)
    const expired = fake.subscriptions.get(subId)!
    await sendEvent(event('customer.subscription.pending_update_expired', seconds(now) + 23 * 3600, expired))
    const [change] = await t.database.db.select().from(cardPlanChanges).where(eq(cardPlanChanges.subscriptionId, id))
    expect(change?.status).toBe('expired')
    expect((await snapshot(joao.id)).subs[0]?.planId).toBe('plan_basic')
  })
})
