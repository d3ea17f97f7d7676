// PIX_PROVIDER=api-pix end to end on the server: checkout → PSP charge, webhook → re-read → paid, reconciliation,
// expiry, fallback to the static code, refunds, admin figures. The PSP is the fake one (HTTPS + mTLS on loopback);
// the app listens on a port so the fake's callbacks reach it.
import type { AddressInfo } from 'node:net'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PixCheckoutResult } from '../../../domain/contracts/billing'
import { parsePixBrCode } from '../../../domain/pix'
import { pixTxidFor } from '../../../domain/pix-txid'
import { payments, pixRefunds } from '../../db/schema/billing'
import { notifications } from '../../db/schema/lifecycle'
import { auditLog, rateLimits } from '../../db/schema/platform'
import { type FakePsp, startFakePsp } from '../../test/fake-psp/fake-psp'
import { createTestApp, TestClock, type TestApp } from '../../test/test-app'
import { expectInvariantsHold } from '../../test/invariants'
import { createUser, get, post, type TestUser } from '../../test/users'
import { configurePix, seedPlans, storedPayment, storedSubscription } from '../billing/test-fixtures'
import { runBillingTick } from '../lifecycle/lifecycle.service'
import { createRenewalInvoices } from '../lifecycle/renewals.service'
import { reconcilePix } from './pix-confirm.service'
import { pixCallbacksIdle } from './pix.routes'

let t: TestApp
let psp: FakePsp
let admin: TestUser
let hookUrl: string
const clock = new TestClock(new Date('2026-03-10T12:00:00.000Z'))

beforeAll(async () => {
  psp = await startFakePsp({ now: clock.now, callbackRetryDelayMs: 10 })
  t = await createTestApp({ env: psp.env(), clock })
  await seedPlans(t.database.db)
  await configurePix(t.database.db, { pixKey: psp.merchantKey })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  hookUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/webhooks/pix`
  await t.app.ctx.pix?.putWebhook(psp.merchantKey, hookUrl)
  admin = await createUser(t, { admin: true, name: 'Admin' })
})
afterAll(async () => {
  await t?.close()
  await psp?.stop()
})

const deps = () => ({ ...t.app.ctx, log: { info: () => {}, warn: () => {}, error: () => {} } })

/** Waits for the fake's callbacks and for the app's handling of them. */
async function settle() {
  await psp.idle()
  await pixCallbacksIdle(t.app.ctx.db)
}

const paymentRow = (id: string) => storedPayment(t.database.db, id)
const subscriptionRow = (id: string) => storedSubscription(t.database.db, id)
async function auditOf(entityId: string) {
  const rows = await t.database.db.select().from(auditLog).where(eq(auditLog.entityId, entityId))
  return rows.map((r) => r.action).sort()
}

async function checkout(plan = 'plan_basic'): Promise<{ user: TestUser; result: PixCheckoutResult }> {
  await t.database.db.delete(rateLimits) // many sign-ups from one address in this file
  const user = await createUser(t, { name: 'Maria Cliente' })
  const response = await post(t.app, '/api/checkout/pix', { plan_id: plan }, user.cookie)
  expect(response.statusCode, response.body).toBe(200)
  return { user, result: response.json() }
}

describe('charges', () => {
  it('a PIX checkout creates the charge at the PSP with the derived txid, the amount, the key and the due date', async () => {
    clock.set('2026-03-10T12:00:00.000Z')
    const { user, result } = await checkout('plan_pro')
    const txid = pixTxidFor(result.payment.id)
    const charge = psp.charge(txid) as { pixCopiaECola: string; loc: { id: number } }
    expect(charge).toMatchObject({
      txid,
      status: 'ATIVA',
      chave: psp.merchantKey,
      valor: { original: '199.00', modalidadeAlteracao: 0 },
      calendario: { expiracao: 3 * 24 * 3600 },
    })
    // The customer sees the PSP's copia e cola, and is told it confirms by itself.
    expect(result.pix.brCode).toBe(charge.pixCopiaECola)
    expect(result.pix.autoConfirm).toBe(true)
    const row = await paymentRow(result.payment.id)
    expect(row).toMatchObject({
      pixTxid: txid,
      pixChargeStatus: 'active',
      pixCopiaECola: charge.pixCopiaECola,
      pixChargeExpiresAt: new Date('2026-03-13T12:00:00.000Z'),
    })

    // The view again, and a retried create (as after a lost answer): no second charge.
    const view = await get(t.app, `/api/payments/${result.payment.id}/pix`, user.cookie)
    expect(view.json().brCode).toBe(charge.pixCopiaECola)
    await t.database.db.update(payments).set({ pixChargeStatus: 'fallback' }).where(eq(payments.id, row.id))
    const again = await get(t.app, `/api/payments/${result.payment.id}/pix`, user.cookie)
    expect(again.json().brCode).toBe(charge.pixCopiaECola)
    expect((psp.charge(txid) as { loc: { id: number } }).loc.id).toBe(charge.loc.id)
    expect(psp.calls.filter((c) => c.method === 'PUT' && c.path === `/v2/cob/${txid}`).length).toBe(2)
    expect((await paymentRow(row.id)).pixChargeStatus).toBe('active')
  })

  it('falls back to the static code when the PSP is unreachable, and the reconciliation confirms it once paid', async () => {
    psp.controls.failNext({ path: '^/v2/cob/', mode: 'reset', times: 2 })
    const { result } = await checkout()
    const row = await paymentRow(result.payment.id)
    expect(row.pixChargeStatus).toBe('fallback')
    expect(parsePixBrCode(result.pix.brCode).txid).toBe(row.pixReference)
    expect(psp.charge(pixTxidFor(row.id))).toBeUndefined()

    // The customer pays the static code; the callback is lost.
    const pix = await psp.controls.pay({ txid: row.pixReference!, valorCents: 9_900, callback: 'drop' })
    expect((await paymentRow(row.id)).status).toBe('pending_pix')
    await reconcilePix(deps(), clock.now())
    const after = await paymentRow(row.id)
    expect(after).toMatchObject({ status: 'paid', pixEndToEndId: pix.endToEndId, pixConfirmedVia: 'api_pix' })
    expect((await subscriptionRow(result.subscription.id)).status).toBe('active')
    // Confirmed from the listing rather than charged again.
    expect(psp.charge(pixTxidFor(row.id))).toBeUndefined()
  })

  it('the reconciliation retries the charge of an invoice left on the static code', async () => {
    psp.controls.failNext({ path: '^/v2/cob/', mode: 'reset', times: 2 })
    const { result } = await checkout()
    expect((await paymentRow(result.payment.id)).pixChargeStatus).toBe('fallback')
    await reconcilePix(deps(), clock.now())
    const row = await paymentRow(result.payment.id)
    expect(row.pixChargeStatus).toBe('active')
    expect(psp.charge(pixTxidFor(row.id))).toMatchObject({ status: 'ATIVA' })
  })
})

describe('webhook', () => {
  it('a callback makes the app re-read the charge and confirm it: paid, subscription active, payer kept', async () => {
    const { result } = await checkout()
    const txid = pixTxidFor(result.payment.id)
    const subBefore = await subscriptionRow(result.subscription.id)
    expect(subBefore.status).toBe('pending_pix')
    const pix = await psp.controls.pay({ txid, payerName: 'Maria Souza', payerCpf: '12345678909' })
    await settle()
    expect(psp.deliveries.at(-1)).toMatchObject({ outcome: 'delivered', status: 200 })
    const row = await paymentRow(result.payment.id)
    expect(row).toMatchObject({
      status: 'paid',
      paidAt: clock.now(),
      amountReceivedCents: 9_900,
      pixEndToEndId: pix.endToEndId,
      pixPayerName: 'Maria Souza',
      pixConfirmedVia: 'api_pix',
      pixChargeStatus: 'paid',
    })
    const sub = await subscriptionRow(result.subscription.id)
    expect(sub).toMatchObject({ status: 'active', currentPeriodStart: clock.now() })
    expect(await auditOf(result.payment.id)).toEqual(['payment.confirmed'])
    const [confirmed] = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, result.payment.id), eq(auditLog.action, 'payment.confirmed')))
    expect(confirmed?.actorId).toBeNull()

    // Duplicated and late callbacks change nothing.
    await psp.controls.resend({ endToEndIds: [pix.endToEndId as string] })
    await psp.controls.resend({ endToEndIds: [pix.endToEndId as string, pix.endToEndId as string] })
    clock.advance(60_000)
    await settle()
    await reconcilePix(deps(), clock.now())
    expect(await paymentRow(result.payment.id)).toEqual(row)
    expect(await subscriptionRow(result.subscription.id)).toEqual(sub)
    expect(await auditOf(result.payment.id)).toEqual(['payment.confirmed'])
    expect(await auditOf(result.subscription.id)).toContain('subscription.activated')
    expect((await auditOf(result.subscription.id)).filter((a) => a === 'subscription.activated')).toHaveLength(1)
  })

  it('forged callbacks (unknown txid, or a charge the PSP says is not paid) change nothing', async () => {
    const { result } = await checkout()
    const txid = pixTxidFor(result.payment.id)
    const before = await paymentRow(result.payment.id)
    // A txid that names none of our invoices costs no call to the PSP.
    const callsBefore = psp.calls.length
    await psp.controls.forge({ items: [{ txid: pixTxidFor(crypto.randomUUID()), valorCents: 9_900 }] })
    await settle()
    expect(psp.calls.length).toBe(callsBefore)
    await psp.controls.forge({ items: [{ txid, valorCents: 9_900 }] })
    await psp.controls.forge({ items: [{ txid: before.pixReference!, valorCents: 9_900 }] })
    // Not even a PSP-shaped body: answered, nothing done.
    const junk = await t.app.inject({ method: 'POST', url: '/api/webhooks/pix', payload: { evento: 'teste_webhook' } })
    expect(junk.statusCode).toBe(200)
    await settle()
    expect(await paymentRow(result.payment.id)).toEqual(before)
    expect((await subscriptionRow(result.subscription.id)).status).toBe('pending_pix')
    expect(await auditOf(result.payment.id)).toEqual([])
  })

  it('a batched callback confirms each PIX once', async () => {
    const a = await checkout()
    const b = await checkout('plan_pro')
    await psp.controls.pay({ txid: pixTxidFor(a.result.payment.id), callback: 'hold' })
    await psp.controls.pay({ txid: pixTxidFor(b.result.payment.id), callback: 'hold' })
    const delivery = await psp.controls.deliverHeld()
    expect(delivery?.body.pix).toHaveLength(2)
    await settle()
    for (const { result } of [a, b]) {
      expect((await paymentRow(result.payment.id)).status).toBe('paid')
      expect((await subscriptionRow(result.subscription.id)).status).toBe('active')
      expect(await auditOf(result.payment.id)).toEqual(['payment.confirmed'])
    }
  })

  it('an amount different from the invoice goes to review (Em análise), nothing activated', async () => {
    const { result } = await checkout()
    const pix = await psp.controls.pay({ txid: pixTxidFor(result.payment.id), valorCents: 5_000 })
    await settle()
    expect(await paymentRow(result.payment.id)).toMatchObject({
      status: 'review',
      amountReceivedCents: 5_000,
      pixEndToEndId: pix.endToEndId,
      pixConfirmedVia: null,
    })
    expect((await subscriptionRow(result.subscription.id)).status).toBe('pending_pix')
    await psp.controls.resend({ endToEndIds: [pix.endToEndId as string] })
    await settle()
    expect(await auditOf(result.payment.id)).toEqual(['payment.flagged'])
  })
})

describe('reconciliation', () => {
  it('confirms a PIX whose callback was lost', async () => {
    const { result } = await checkout()
    const pix = await psp.controls.pay({ txid: pixTxidFor(result.payment.id), callback: 'drop' })
    await settle()
    expect((await paymentRow(result.payment.id)).status).toBe('pending_pix')
    await reconcilePix(deps(), clock.now())
    expect(await paymentRow(result.payment.id)).toMatchObject({ status: 'paid', pixEndToEndId: pix.endToEndId })
    expect((await subscriptionRow(result.subscription.id)).status).toBe('active')
  })

  it('treats a charge past its expiry as expired although the PSP still says ATIVA', async () => {
    const { user, result } = await checkout()
    const txid = pixTxidFor(result.payment.id)
    psp.controls.expire({ txid })
    clock.advance(3 * 24 * 3600 * 1000 + 60_000)
    await reconcilePix(deps(), clock.now())
    expect(psp.charge(txid)).toMatchObject({ status: 'ATIVA' })
    const row = await paymentRow(result.payment.id)
    expect(row).toMatchObject({ pixChargeStatus: 'expired', status: 'pending_pix' })
    // The customer no longer gets the expired charge: the static code (still matched by the reconciliation).
    const view = await get(t.app, `/api/payments/${result.payment.id}/pix`, user.cookie)
    expect(parsePixBrCode(view.json().brCode).txid).toBe(row.pixReference)
  })
})

describe('refunds', () => {
  it('an admin refunds part, then the rest, of a paid PIX, with audit rows; too much is refused', async () => {
    const { user, result } = await checkout()
    const pix = await psp.controls.pay({ txid: pixTxidFor(result.payment.id) })
    await settle()
    expect((await paymentRow(result.payment.id)).status).toBe('paid')
    const url = `/api/admin/payments/${result.payment.id}/refund`

    const partial = await post(t.app, url, { amount_cents: 4_000, reason: 'Cobrança em duplicidade' }, admin.cookie)
    expect(partial.statusCode, partial.body).toBe(200)
    expect(partial.json()).toMatchObject({ refundedCents: 4_000, refund: { amountCents: 4_000 } })
    const tooMuch = await post(t.app, url, { amount_cents: 6_000, reason: 'Mais' }, admin.cookie)
    expect(tooMuch.statusCode).toBe(409)
    expect(tooMuch.json()).toMatchObject({ code: 'pix_refund_too_much' })
    const noReason = await post(t.app, url, { amount_cents: 100, reason: '' }, admin.cookie)
    expect(noReason.statusCode).toBe(400)

    const history = await get(t.app, '/api/payments', user.cookie)
    expect(history.json().items.find((p: { id: string }) => p.id === result.payment.id)).toMatchObject({
      refundedCents: 4_000,
    })

    const rest = await post(t.app, url, { amount_cents: 5_900, reason: 'Cancelamento' }, admin.cookie)
    expect(rest.statusCode, rest.body).toBe(200)
    expect(rest.json().refunds).toHaveLength(2)
    const rows = await t.database.db.select().from(pixRefunds).where(eq(pixRefunds.paymentId, result.payment.id))
    expect(rows.map((r) => r.amountCents).sort()).toEqual([4_000, 5_900])
    expect(rows.every((r) => r.endToEndId === pix.endToEndId && r.status === 'EM_PROCESSAMENTO')).toBe(true)
    expect(await auditOf(result.payment.id)).toEqual(['payment.confirmed', 'payment.pix_refund', 'payment.pix_refund'])
    expect(rows.every((r) => /^[0-9a-f]{32}$/.test(r.refundId))).toBe(true)
    const paidCharge = psp.charge(pixTxidFor(result.payment.id)) as { pix: Array<{ devolucoes: { valor: string }[] }> }
    const devolucoes = paidCharge.pix[0]?.devolucoes ?? []
    expect(devolucoes.map((d: { valor: string }) => d.valor).sort()).toEqual(['40.00', '59.00'])

    // The PSP settles one refund and refuses the other: its callbacks update the rows (refused no longer counts).
    const [first, second] = [...rows].sort((a, b) => a.amountCents - b.amountCents)
    await psp.controls.finishRefund({ endToEndId: pix.endToEndId as string, id: first!.refundId, outcome: 'DEVOLVIDO' })
    await settle()
    expect((await t.database.db.select().from(pixRefunds).where(eq(pixRefunds.id, first!.id)))[0]?.status).toBe(
      'DEVOLVIDO',
    )
    await psp.controls.finishRefund({
      endToEndId: pix.endToEndId as string,
      id: second!.refundId,
      outcome: 'NAO_REALIZADO',
    })
    await settle()
    expect((await t.database.db.select().from(pixRefunds).where(eq(pixRefunds.id, second!.id)))[0]?.status).toBe(
      'NAO_REALIZADO',
    )
    expect((await auditOf(result.payment.id)).filter((a) => a === 'payment.pix_refund_settled')).toHaveLength(2)
    const refused = await get(t.app, `/api/admin/payments?q=${result.payment.id}`, admin.cookie)
    expect(refused.json().items[0].refundedCents).toBe(4_000)
    await t.database.db.update(pixRefunds).set({ status: 'DEVOLVIDO' }).where(eq(pixRefunds.id, second!.id))

    const list = await get(t.app, `/api/admin/payments?q=${result.payment.id}`, admin.cookie)
    expect(list.json().items[0]).toMatchObject({
      refundedCents: 9_900,
      pixConfirmedVia: 'api_pix',
      pixEndToEndId: pix.endToEndId,
      confirmationSeconds: 0,
    })
    // The payment itself stays paid (the subscription is the admin's to cancel).
    expect((await paymentRow(result.payment.id)).status).toBe('paid')
  })

  it('refuses a refund after 90 days, or of an unpaid invoice', async () => {
    const { result } = await checkout()
    const unpaid = await post(
      t.app,
      `/api/admin/payments/${result.payment.id}/refund`,
      { amount_cents: 100, reason: 'Teste' },
      admin.cookie,
    )
    expect(unpaid.statusCode).toBe(409)
    await psp.controls.pay({ txid: pixTxidFor(result.payment.id) })
    await settle()
    clock.advance(91 * 24 * 3600 * 1000)
    const late = await post(
      t.app,
      `/api/admin/payments/${result.payment.id}/refund`,
      { amount_cents: 100, reason: 'Teste' },
      admin.cookie,
    )
    expect(late.statusCode).toBe(409)
    expect(late.json()).toMatchObject({ code: 'pix_refund_not_allowed' })
    expect(await t.database.db.select().from(pixRefunds).where(eq(pixRefunds.paymentId, result.payment.id))).toEqual([])
  })
})

describe('admin', () => {
  it('overview: confirmation latency of the last 30 days and invoices waiting over 12 hours', async () => {
    clock.set('2026-03-20T12:00:00.000Z')
    const response = await get(t.app, '/api/admin/pix/overview', admin.cookie)
    expect(response.statusCode, response.body).toBe(200)
    const overview = response.json()
    expect(overview).toMatchObject({ provider: 'api-pix', latencyP50Seconds: 0, latencyP95Seconds: 0 })
    expect(overview.confirmedAutomatically).toBeGreaterThanOrEqual(6)
    // The invoice in review waits for an admin; charges the customer simply has not paid do not.
    expect(overview.waitingOver12h).toBe(1)
  })

  it('registers the webhook at the PSP with APP_URL + /api/webhooks/pix', async () => {
    const response = await post(t.app, '/api/admin/pix-settings/webhook', {}, admin.cookie)
    expect(response.statusCode, response.body).toBe(200)
    expect(psp.webhook(psp.merchantKey)?.webhookUrl).toBe('http://localhost:3000/api/webhooks/pix')
    const anonymous = await post(t.app, '/api/admin/pix-settings/webhook', {})
    expect(anonymous.statusCode).toBe(401)
    await t.app.ctx.pix?.putWebhook(psp.merchantKey, hookUrl)
  })
})

describe('renewals', () => {
  it('the billing tick charges a renewal invoice at the PSP before its notification, which carries the code', async () => {
    clock.set('2026-03-20T12:00:00.000Z')
    const { result } = await checkout()
    await psp.controls.pay({ txid: pixTxidFor(result.payment.id) })
    await settle()
    expect((await subscriptionRow(result.subscription.id)).status).toBe('active')
    clock.set('2026-04-18T12:00:00.000Z')
    await runBillingTick(deps())
    const [renewal] = await t.database.db
      .select()
      .from(payments)
      .where(and(eq(payments.subscriptionId, result.subscription.id), eq(payments.type, 'renewal')))
    expect(renewal).toMatchObject({ status: 'pending_pix', pixChargeStatus: 'active' })
    const charge = psp.charge(pixTxidFor(renewal!.id)) as { pixCopiaECola: string; valor: { original: string } }
    expect(charge.valor.original).toBe('99.00')
    const sent = await t.database.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.paymentId, renewal!.id), eq(notifications.kind, 'invoice_created')))
    expect(sent.length).toBeGreaterThan(0)
    for (const n of sent) expect(n.body).toContain(charge.pixCopiaECola)
  })

  it('a renewal issued after its period ended goes overdue in its batch; the message carries the static code', async () => {
    clock.set('2026-06-01T12:00:00.000Z')
    const { result } = await checkout()
    await psp.controls.pay({ txid: pixTxidFor(result.payment.id) })
    await settle()
    // The jobs were down past the period end: the tick issues the renewal already due. A PSP charge needs a due
    // date ahead, so none is created: the overdue message carries the static code, whichever pass renders it.
    clock.set('2026-07-05T12:00:00.000Z')
    await createRenewalInvoices(deps(), clock.now())
    expect((await subscriptionRow(result.subscription.id)).status).toBe('past_due')
    await runBillingTick(deps())
    const [renewal] = await t.database.db
      .select()
      .from(payments)
      .where(and(eq(payments.subscriptionId, result.subscription.id), eq(payments.type, 'renewal')))
    expect(renewal).toMatchObject({ status: 'pending_pix', pixChargeStatus: null })
    expect(psp.charge(pixTxidFor(renewal!.id))).toBeUndefined()
    const sent = await t.database.db
      .select()
      .from(notifications)
      .where(eq(notifications.subscriptionId, result.subscription.id))
    // One message per channel for the late invoice: the overdue one (no invoice_created besides).
    const forRenewal = sent.filter((n) => n.paymentId === renewal!.id)
    expect(forRenewal.map((n) => `${n.kind}:${n.channel}`).sort()).toEqual(['overdue:email', 'overdue:whatsapp'])
    const email = sent.find((n) => n.kind === 'overdue' && n.channel === 'email')
    const code = parsePixBrCode(email?.body.match(/^000201.*$/m)?.[0] ?? '')
    expect(code).toMatchObject({ key: psp.merchantKey, txid: renewal!.pixReference })
  })
})

describe('upgrades', () => {
  it('an upgrade invoice is a PSP charge too; paying it switches the plan', async () => {
    clock.set('2026-05-01T12:00:00.000Z')
    const { user, result } = await checkout()
    await psp.controls.pay({ txid: pixTxidFor(result.payment.id) })
    await settle()
    clock.advance(10 * 24 * 3600 * 1000)
    const response = await post(
      t.app,
      '/api/subscriptions/upgrade',
      { subscription_id: result.subscription.id, new_plan_id: 'plan_pro' },
      user.cookie,
    )
    expect(response.statusCode, response.body).toBe(200)
    const upgrade = response.json()
    expect(upgrade.kind).toBe('pix')
    const txid = pixTxidFor(upgrade.payment.id)
    const charge = psp.charge(txid) as { pixCopiaECola: string; valor: { original: string } }
    expect(upgrade.pix.brCode).toBe(charge.pixCopiaECola)
    expect(charge.valor.original).toBe((upgrade.prorationCents / 100).toFixed(2))
    await psp.controls.pay({ txid })
    await settle()
    expect((await paymentRow(upgrade.payment.id)).status).toBe('paid')
    expect((await subscriptionRow(result.subscription.id)).planId).toBe('plan_pro')
  })
})

describe('PIX_PROVIDER=manual', () => {
  it('keeps the static code and the admin confirmation; a callback changes nothing', async () => {
    const manual = await createTestApp()
    try {
      await seedPlans(manual.database.db)
      await configurePix(manual.database.db)
      expect(manual.app.ctx.pix).toBeNull()
      const user = await createUser(manual, { name: 'Maria Manual' })
      const response = await post(manual.app, '/api/checkout/pix', { plan_id: 'plan_basic' }, user.cookie)
      expect(response.statusCode, response.body).toBe(200)
      const result: PixCheckoutResult = response.json()
      expect(result.pix.autoConfirm).toBeUndefined()
      const [row] = await manual.database.db.select().from(payments).where(eq(payments.id, result.payment.id))
      expect(parsePixBrCode(result.pix.brCode).txid).toBe(row?.pixReference)
      expect(row).toMatchObject({ pixTxid: null, pixChargeStatus: null, pixCopiaECola: null })
      const callback = await manual.app.inject({
        method: 'POST',
        url: '/api/webhooks/pix/pix',
        payload: { pix: [{ endToEndId: `E${'1'.repeat(31)}`, txid: row?.pixReference, valor: '99.00' }] },
      })
      expect(callback.statusCode).toBe(200)
      const [after] = await manual.database.db.select().from(payments).where(eq(payments.id, result.payment.id))
      expect(after).toEqual(row)
    } finally {
      await manual.close()
    }
  })
})

describe('db:check', () => {
  it('leaves every invariant of the database holding', async () => {
    await expectInvariantsHold(t.database.db)
  })
})
