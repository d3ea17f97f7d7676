// PIX Automático end to end on the server (PIX_PROVIDER=api-pix, PIX_AUTOMATICO=true): checkout with the composite
// code, approval by paying, the renewal charge exactly once with two workers, settlement, rejection and retries,
// revocation by the payer, webhook re-reads, and the reconciliation after a lost callback. The PSP is the fake one
// (HTTPS + mTLS); the app listens on a port so the fake's callbacks reach it.
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withCheckDigits } from '../../../domain/cpf-cnpj'
import { cobrTxidFor } from '../../../domain/pix-automatico'
import { pixTxidFor } from '../../../domain/pix-txid'
import { profiles } from '../../db/schema/auth'
import { payments } from '../../db/schema/billing'
import { notifications } from '../../db/schema/lifecycle'
import { pixRecurrences, pixRecurringCharges } from '../../db/schema/pix-automatico'
import { rateLimits } from '../../db/schema/platform'
import type { FakePsp } from '../../test/fake-psp/fake-psp'
import { TestClock, type TestApp } from '../../test/test-app'
import { createUser, get, post, type TestUser } from '../../test/users'
import { runBillingTick } from '../lifecycle/lifecycle.service'
import { issueAutomaticoRenewals, reconcileAutomatico, refreshCobr } from './automatico-renewals'
import { cancelCobr } from './rec-client'
import { settleCallbacks, startAutomaticoApp } from './automatico-fixtures'
import { issuePixInvoice } from '../billing/pix-invoice'
import { storedSubscription } from '../billing/test-fixtures'

let t: TestApp
let psp: FakePsp
let admin: TestUser
const clock = new TestClock(new Date('2026-03-10T12:00:00.000Z'))
const cpf = withCheckDigits('529982247')

beforeAll(async () => {
  ;({ t, psp } = await startAutomaticoApp(clock))
  admin = await createUser(t, { admin: true, name: 'Admin' })
})
afterAll(async () => {
  await t?.close()
  await psp?.stop()
})

const quiet = { info: () => {}, warn: () => {}, error: () => {} }
const deps = () => ({ ...t.app.ctx, log: quiet })

const settle = () => settleCallbacks(t, psp)

const subscriptionRow = (id: string) => storedSubscription(t.database.db, id)
async function recurrencesOf(subscriptionId: string) {
  return t.database.db.select().from(pixRecurrences).where(eq(pixRecurrences.subscriptionId, subscriptionId))
}
async function chargesOf(subscriptionId: string) {
  return t.database.db
    .select()
    .from(pixRecurringCharges)
    .where(eq(pixRecurringCharges.subscriptionId, subscriptionId))
    .orderBy(pixRecurringCharges.dueDate)
}
async function messagesOf(subscriptionId: string, kind: string) {
  return t.database.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.subscriptionId, subscriptionId), eq(notifications.kind, kind)))
}

type Checkout = {
  subscription: { id: string }
  payment: { id: string; amountCents: number }
  pix: { brCode: string; autoConfirm?: boolean }
  automatico: { state: string; idRec: string; copiaECola: string | null }
}

/** A customer subscribes with PIX Automático and pays the composite code (which also approves the recurrence). */
async function subscribeAndPay(plan = 'plan_basic'): Promise<{ user: TestUser; result: Checkout }> {
  await t.database.db.delete(rateLimits)
  const user = await createUser(t, { name: 'Maria Cliente' })
  const response = await post(t.app, '/api/checkout/pix-automatico', { plan_id: plan, tax_id: cpf }, user.cookie)
  expect(response.statusCode, response.body).toBe(200)
  const result = response.json() as Checkout
  await psp.controls.pay({ txid: pixTxidFor(result.payment.id) })
  await settle()
  return { user, result }
}

/** A subscribed and paid customer's subscription row and the due date of its next cycle. */
async function subscribedCycle(plan?: string) {
  const { user, result } = await subscribeAndPay(plan)
  const sub = await subscriptionRow(result.subscription.id)
  return { user, result, sub, due: sub.currentPeriodEnd }
}

/** Moves the clock to `days` days (and `hours` hours) after the cycle's due date (before it when negative). */
function atDue(due: Date, days: number, hours = 0) {
  clock.set(new Date(due.getTime() + days * 86_400_000 + hours * 3_600_000))
}

/** Subscribed at `start`, and the next cycle's recurring charge scheduled at the PSP (the tick on D-5). */
async function cycleScheduled(start: string) {
  clock.set(start)
  const { user, sub, due } = await subscribedCycle()
  atDue(due, -5)
  await runBillingTick(deps())
  await settle()
  const [charge] = await chargesOf(sub.id)
  expect(charge?.status).toBe('ATIVA')
  return { user, sub, due, charge }
}

/** cycleScheduled, then on D-4 the customer sets the subscription to end (cancel at period end). */
async function setToEndAfterScheduling(start: string) {
  await t.database.db.delete(rateLimits)
  const cycle = await cycleScheduled(start)
  atDue(cycle.due, -4)
  const cancel = await post(t.app, '/api/subscriptions/cancel', { subscription_id: cycle.sub.id }, cycle.user.cookie)
  expect(cancel.statusCode, cancel.body).toBe(200)
  return cycle
}

describe('checkout (Journey 3)', () => {
  it('asks for a valid CPF/CNPJ and keeps it on the profile', async () => {
    const user = await createUser(t, { name: 'Sem Documento' })
    const missing = await post(t.app, '/api/checkout/pix-automatico', { plan_id: 'plan_basic' }, user.cookie)
    expect(missing.statusCode).toBe(400)
    expect(missing.json().message).toBe('Informe seu CPF ou CNPJ para autorizar o PIX Automático.')
    const wrong = await post(
      t.app,
      '/api/checkout/pix-automatico',
      { plan_id: 'plan_basic', tax_id: '529.982.247-24' },
      user.cookie,
    )
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json().message).toBe('CPF ou CNPJ inválido. Confira os números.')
    const [profile] = await t.database.db.select().from(profiles).where(eq(profiles.id, user.id))
    expect(profile?.taxId).toBeNull()
  })

  it('creates the charge and the recurrence, answers the composite code; paying activates and approves', async () => {
    clock.set('2026-03-10T12:00:00.000Z')
    await t.database.db.delete(rateLimits)
    const user = await createUser(t, { name: 'Joana Compradora' })
    const response = await post(
      t.app,
      '/api/checkout/pix-automatico',
      { plan_id: 'plan_pro', tax_id: '529.982.247-25' },
      user.cookie,
    )
    expect(response.statusCode, response.body).toBe(200)
    const result = response.json() as Checkout
    const txid = pixTxidFor(result.payment.id)
    // The composite code: the charge's template 26 and the recurrence's template 80.
    expect(result.pix.brCode).toBe(result.automatico.copiaECola)
    expect(result.pix.brCode).toContain('0014br.gov.bcb.pix')
    expect(result.pix.brCode).toMatch(/80\d\d0014br\.gov\.bcb\.pix25\d\d127\.0\.0\.1:\d+\/qr\/v2\/rec\//)
    expect(result.automatico.state).toBe('aguardando_autorizacao')
    const rec = psp.automatico.rec(result.automatico.idRec)
    expect(rec).toMatchObject({
      status: 'CRIADA',
      vinculo: {
        contrato: result.subscription.id.replace(/-/g, ''),
        objeto: 'Profissional',
        devedor: { cpf: '52998224725', nome: 'Joana Compradora' },
      },
      valor: { valorRec: '199.00' },
      politicaRetentativa: 'PERMITE_3R_7D',
      calendario: { periodicidade: 'MENSAL', dataInicial: '2026-04-10' },
      ativacao: { tipoJornada: 'JORNADA_3', dadosJornada: { txid } },
    })
    const [profile] = await t.database.db.select().from(profiles).where(eq(profiles.id, user.id))
    expect(profile?.taxId).toBe('52998224725')

    // A double click answers the same code, no second recurrence.
    const again = await post(t.app, '/api/checkout/pix-automatico', { plan_id: 'plan_pro' }, user.cookie)
    expect(again.json().automatico.idRec).toBe(result.automatico.idRec)
    expect(await recurrencesOf(result.subscription.id)).toHaveLength(1)

    await psp.controls.pay({ txid })
    await settle()
    expect((await subscriptionRow(result.subscription.id)).status).toBe('active')
    const [row] = await recurrencesOf(result.subscription.id)
    expect(row).toMatchObject({ status: 'APROVADA', idRec: result.automatico.idRec })
    expect(row!.history.map((h) => h.status)).toEqual(['CRIADA', 'APROVADA'])
    const view = await get(t.app, `/api/subscriptions/${result.subscription.id}/pix-automatico`, user.cookie)
    expect(view.json().automatico).toMatchObject({ state: 'ativa', label: 'ativa', amountCents: 19_900 })
  })
})

describe('renewals', () => {
  it('one charge per cycle even with two workers, the customer told ahead, settlement pays and extends', async () => {
    clock.set('2026-04-01T12:00:00.000Z')
    const { result, sub, due } = await subscribedCycle()
    // D-9: too early.
    atDue(due, -9)
    await issueAutomaticoRenewals(deps(), clock.now())
    expect(await chargesOf(sub.id)).toHaveLength(0)
    // D-8: two workers at once.
    atDue(due, -8)
    await Promise.all([issueAutomaticoRenewals(deps(), clock.now()), issueAutomaticoRenewals(deps(), clock.now())])
    await runBillingTick(deps())
    await settle()
    const charges = await chargesOf(sub.id)
    expect(charges).toHaveLength(1)
    const charge = charges[0]!
    expect(charge).toMatchObject({ status: 'ATIVA', dueDate: due, amountCents: 9_900 })
    const renewal = (await t.database.db.select().from(payments).where(eq(payments.subscriptionId, sub.id))).filter(
      (p) => p.type === 'renewal',
    )
    expect(renewal).toHaveLength(1)
    expect(charge.txid).toBe(cobrTxidFor(renewal[0]!.id))
    expect(renewal[0]).toMatchObject({ status: 'pending', dueDate: due, pixTxid: null })
    expect(psp.automatico.cobrs().filter((c) => c.idRec === result.automatico.idRec)).toHaveLength(1)
    const notices = await messagesOf(sub.id, 'pix_automatico_notice')
    expect(notices.map((n) => n.channel).sort()).toEqual(['email', 'whatsapp'])
    const dd = String(due.getUTCDate()).padStart(2, '0')
    const mm = String(due.getUTCMonth() + 1).padStart(2, '0')
    expect(notices[0]!.body).toContain(`Sua renovação de R$\u00a099,00 será debitada em ${dd}/${mm} via PIX Automático`)
    // No ordinary invoice message for it.
    expect((await messagesOf(sub.id, 'invoice_created')).filter((m) => m.paymentId === renewal[0]!.id)).toHaveLength(0)

    // The due date: the PSP debits; the webhook makes the app re-read and confirm.
    atDue(due, 0, 1)
    await runBillingTick(deps()) // the overdue pass leaves it to PIX Automático
    expect((await subscriptionRow(sub.id)).status).toBe('active')
    await psp.automatico.controls.settleCobr({ txid: charge.txid })
    await settle()
    const [paid] = await t.database.db.select().from(payments).where(eq(payments.id, renewal[0]!.id))
    expect(paid).toMatchObject({ status: 'paid', pixConfirmedVia: 'api_pix', amountReceivedCents: 9_900 })
    const after = await subscriptionRow(sub.id)
    expect(after.status).toBe('active')
    expect(after.currentPeriodEnd.getTime()).toBeGreaterThan(due.getTime())
    expect((await chargesOf(sub.id))[0]).toMatchObject({ status: 'CONCLUIDA' })
    expect(await messagesOf(sub.id, 'overdue')).toHaveLength(0)

    // Webhook re-sent, the reconciliation, another tick: nothing changes (idempotent).
    const snapshot = await subscriptionRow(sub.id)
    await post(t.app, '/api/webhooks/pix/cobr', { cobsr: [{ txid: charge.txid, status: 'CONCLUIDA' }] })
    await settle()
    await reconcileAutomatico(deps(), clock.now())
    await runBillingTick(deps())
    expect(await subscriptionRow(sub.id)).toEqual(snapshot)
    expect(
      (await t.database.db.select().from(payments).where(eq(payments.subscriptionId, sub.id))).filter(
        (p) => p.status === 'paid',
      ),
    ).toHaveLength(2)
  })

  it('a rejected attempt: past_due, retries on D+1 and D+3 (paid on the second); codes in words for admins', async () => {
    const { sub, due, charge } = await cycleScheduled('2026-05-02T12:00:00.000Z')

    atDue(due, 0, 1)
    await psp.automatico.controls.failCobr({ txid: charge!.txid, code: 'NIEC' })
    await settle()
    expect((await subscriptionRow(sub.id)).status).toBe('past_due')
    const iso = (days: number) => new Date(due.getTime() + days * 86_400_000).toISOString().slice(0, 10)
    expect((await chargesOf(sub.id))[0]!.retryDates).toEqual([iso(1)])
    expect(await messagesOf(sub.id, 'pix_automatico_failed')).toHaveLength(2)

    atDue(due, 1, 1)
    await psp.automatico.controls.failCobr({ txid: charge!.txid, code: 'NIEC' })
    await settle()
    expect((await chargesOf(sub.id))[0]!.retryDates).toEqual([iso(1), iso(3)])
    await runBillingTick(deps())
    expect((await subscriptionRow(sub.id)).status).toBe('past_due')

    atDue(due, 3, 1)
    await psp.automatico.controls.settleCobr({ txid: charge!.txid })
    await settle()
    const after = await subscriptionRow(sub.id)
    expect(after.status).toBe('active')
    expect(after.currentPeriodEnd.getTime()).toBeGreaterThan(due.getTime())

    const adminView = await get(t.app, `/api/admin/subscriptions/${sub.id}/pix-automatico`, admin.cookie)
    expect(adminView.statusCode).toBe(200)
    const view = adminView.json()
    expect(view.charges[0].status).toBe('CONCLUIDA')
    expect(view.charges[0].attempts.map((a: { status: string }) => a.status)).toEqual([
      'REJEITADA',
      'REJEITADA',
      'PAGA',
    ])
    expect(view.charges[0].attempts[0].reason).toBe('pagamento não efetuado (saldo ou limite) (NIEC)')
    const forbidden = await get(
      t.app,
      `/api/admin/subscriptions/${sub.id}/pix-automatico`,
      (await createUser(t)).cookie,
    )
    expect(forbidden.statusCode).toBe(403)
  })

  it('the payer revokes: the subscription goes on with ordinary invoices, and the customer is told', async () => {
    clock.set('2026-06-01T12:00:00.000Z')
    const { user, result } = await subscribeAndPay()
    const sub = await subscriptionRow(result.subscription.id)
    clock.advance(86_400_000)
    await psp.automatico.controls.revokeRec({ idRec: result.automatico.idRec })
    await settle()
    const [rec] = await recurrencesOf(sub.id)
    expect(rec).toMatchObject({ status: 'CANCELADA', cancelledBy: 'USUARIO_PAGADOR' })
    expect((await subscriptionRow(sub.id)).status).toBe('active')
    const told = await messagesOf(sub.id, 'pix_automatico_revoked')
    expect(told).toHaveLength(2)
    expect(told.find((m) => m.channel === 'email')!.body).toContain('foi cancelada no seu banco')
    const view = await get(t.app, `/api/subscriptions/${sub.id}/pix-automatico`, user.cookie)
    expect(view.json().automatico.state).toBe('cancelada_pelo_banco')

    // The next cycle: an ordinary PIX invoice, no recurring charge.
    clock.set(new Date(sub.currentPeriodEnd.getTime() - 3 * 86_400_000 + 60_000))
    await runBillingTick(deps())
    expect(await chargesOf(sub.id)).toHaveLength(0)
    const invoices = (await t.database.db.select().from(payments).where(eq(payments.subscriptionId, sub.id))).filter(
      (p) => p.type === 'renewal',
    )
    expect(invoices).toHaveLength(1)
    expect(invoices[0]!.status).toBe('pending_pix')

    // Turning it on again: a new authorisation code (Journey 2).
    const on = await post(t.app, `/api/subscriptions/${sub.id}/pix-automatico/enable`, {}, user.cookie)
    expect(on.statusCode, on.body).toBe(200)
    expect(on.json()).toMatchObject({ state: 'aguardando_autorizacao' })
    expect(on.json().copiaECola).toMatch(/^000201/)
  })

  it('turning it off cancels the recurrence at the PSP', async () => {
    clock.set('2026-07-01T12:00:00.000Z')
    const { user, result } = await subscribeAndPay()
    const off = await post(
      t.app,
      `/api/subscriptions/${result.subscription.id}/pix-automatico/disable`,
      {},
      user.cookie,
    )
    expect(off.statusCode, off.body).toBe(200)
    expect(off.json()).toMatchObject({ state: 'desativada' })
    expect(psp.automatico.rec(result.automatico.idRec)).toMatchObject({
      status: 'CANCELADA',
      encerramento: { cancelamento: { solicitante: 'USUARIO_RECEBEDOR' } },
    })
    const other = await createUser(t)
    const foreign = await post(
      t.app,
      `/api/subscriptions/${result.subscription.id}/pix-automatico/disable`,
      {},
      other.cookie,
    )
    expect(foreign.statusCode).toBe(404)
  })

  it('the reconciliation applies what a lost callback missed (approval and settlement)', async () => {
    clock.set('2026-08-01T12:00:00.000Z')
    await t.database.db.delete(rateLimits)
    const user = await createUser(t, { name: 'Perdida' })
    const response = await post(
      t.app,
      '/api/checkout/pix-automatico',
      { plan_id: 'plan_basic', tax_id: cpf },
      user.cookie,
    )
    const result = response.json() as Checkout
    // Approval by another route (Journey 2 style), its callback lost.
    await psp.automatico.controls.approveRec({ idRec: result.automatico.idRec, callback: 'drop' })
    await settle()
    expect((await recurrencesOf(result.subscription.id))[0]!.status).toBe('CRIADA')
    await reconcileAutomatico(deps(), clock.now())
    expect((await recurrencesOf(result.subscription.id))[0]!.status).toBe('APROVADA')
    // Pay the first invoice, then a cycle whose settlement callback is lost.
    await psp.controls.pay({ txid: pixTxidFor(result.payment.id) })
    await settle()
    const sub = await subscriptionRow(result.subscription.id)
    clock.set(new Date(sub.currentPeriodEnd.getTime() - 4 * 86_400_000))
    await runBillingTick(deps())
    await settle()
    const [charge] = await chargesOf(sub.id)
    clock.set(new Date(sub.currentPeriodEnd.getTime() + 3_600_000))
    await psp.automatico.controls.settleCobr({ txid: charge!.txid, callback: 'drop' })
    await settle()
    expect((await chargesOf(sub.id))[0]!.status).toBe('ATIVA')
    await reconcileAutomatico(deps(), clock.now())
    expect((await chargesOf(sub.id))[0]!.status).toBe('CONCLUIDA')
    expect((await subscriptionRow(sub.id)).currentPeriodEnd.getTime()).toBeGreaterThan(sub.currentPeriodEnd.getTime())
  })
})

describe('when a cycle is not debited', () => {
  it('every retry fails: the ordinary PIX invoice goes out by e-mail and WhatsApp, the subscription is past_due', async () => {
    const { sub, due, charge } = await cycleScheduled('2026-09-01T12:00:00.000Z')
    const [renewal] = await t.database.db.select().from(payments).where(eq(payments.id, charge!.paymentId))
    expect(renewal).toMatchObject({ status: 'pending', pixTxid: null })

    // The due date and the three retries (D+1, D+3, D+7) are all refused.
    for (const days of [0, 1, 3, 7]) {
      atDue(due, days, 1)
      await psp.automatico.controls.failCobr({ txid: charge!.txid, code: 'NIEC' })
      await settle()
    }
    const iso = (days: number) => new Date(due.getTime() + days * 86_400_000).toISOString().slice(0, 10)
    const [closed] = await chargesOf(sub.id)
    expect(closed).toMatchObject({ status: 'EXPIRADA', retryDates: [iso(1), iso(3), iso(7)] })
    expect(closed!.fallbackAt).not.toBeNull()
    expect((await subscriptionRow(sub.id)).status).toBe('past_due')
    // The same invoice becomes an ordinary PIX invoice with its own code, sent on both channels, once.
    const [invoice] = await t.database.db.select().from(payments).where(eq(payments.id, charge!.paymentId))
    expect(invoice?.status).toBe('pending_pix')
    const sent = (await messagesOf(sub.id, 'invoice_created')).filter((m) => m.paymentId === invoice!.id)
    expect(sent.map((m) => m.channel).sort()).toEqual(['email', 'whatsapp'])
    await reconcileAutomatico(deps(), clock.now())
    await runBillingTick(deps())
    expect((await messagesOf(sub.id, 'invoice_created')).filter((m) => m.paymentId === invoice!.id)).toHaveLength(2)
    expect(
      (await t.database.db.select().from(payments).where(eq(payments.subscriptionId, sub.id))).filter(
        (p) => p.type === 'renewal',
      ),
    ).toHaveLength(1)
  })

  it('a charge that could not be sent in the BCB window: the cycle is an ordinary invoice instead', async () => {
    clock.set('2026-10-01T12:00:00.000Z')
    const { sub, due } = await subscribedCycle()
    // The pass records the cycle on D-3, but nothing reaches the PSP until D-1 (too late to schedule a debit).
    atDue(due, -3)
    // The PSP refuses every PUT /cobr meanwhile.
    psp.controls.failNext({ path: '/cobr/', method: 'PUT', times: 1_000 })
    await runBillingTick(deps())
    const [pending] = await chargesOf(sub.id)
    expect(pending?.status).toBe('PENDENTE')
    atDue(due, -1)
    await runBillingTick(deps())
    await settle()
    psp.controls.clearFailures()
    const [late] = await chargesOf(sub.id)
    expect(late).toMatchObject({ status: 'CANCELADA' })
    expect(late!.history.at(-1)?.detail).toBe('fora do prazo de envio')
    expect(psp.automatico.cobrs().filter((c) => c.txid === late!.txid)).toHaveLength(0)
    const [invoice] = await t.database.db.select().from(payments).where(eq(payments.id, late!.paymentId))
    expect(invoice?.status).toBe('pending_pix')
    const sent = (await messagesOf(sub.id, 'invoice_created')).filter((m) => m.paymentId === invoice!.id)
    expect(sent.map((m) => m.channel).sort()).toEqual(['email', 'whatsapp'])
  })
})

describe('a cycle that no longer needs a debit', () => {
  it('paid another way before the due date: its recurring charge is cancelled at the PSP, nothing is debited', async () => {
    const { sub, due, charge } = await cycleScheduled('2026-11-01T12:00:00.000Z')
    // The customer paid by bank transfer and the admin confirms it, three days before the debit.
    atDue(due, -3)
    const confirmed = await post(
      t.app,
      `/api/admin/payments/${charge!.paymentId}/confirm`,
      { amount_received_cents: 9_900 },
      admin.cookie,
    )
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    const extended = await subscriptionRow(sub.id)
    expect(extended.currentPeriodEnd.getTime()).toBeGreaterThan(due.getTime())
    await reconcileAutomatico(deps(), clock.now())
    await settle()
    const [cancelled] = await chargesOf(sub.id)
    expect(cancelled?.status).toBe('CANCELADA')
    expect(psp.automatico.cobrs().find((c) => c.txid === charge!.txid)?.status).toBe('CANCELADA')
    // The due date passes: no second settlement, the period paid once.
    atDue(due, 0, 1)
    await runBillingTick(deps())
    await settle()
    const paid = (await t.database.db.select().from(payments).where(eq(payments.subscriptionId, sub.id))).filter(
      (p) => p.status === 'paid',
    )
    expect(paid).toHaveLength(2)
    expect((await subscriptionRow(sub.id)).currentPeriodEnd).toEqual(extended.currentPeriodEnd)
  })

  it('an ordinary invoice whose code already went out is paid that way: no debit is scheduled beside it', async () => {
    clock.set('2026-09-07T12:00:00.000Z')
    const { sub, due } = await subscribedCycle()
    // The cycle's invoice was issued the ordinary way (its PIX code sent) before the debit pass reached it.
    atDue(due, -6)
    const invoice = await t.database.db.transaction((tx) =>
      issuePixInvoice(tx, {
        subscriptionId: sub.id,
        type: 'renewal',
        amountCents: 9_900,
        dueDate: due,
        now: clock.now(),
        oncePerPeriod: true,
      }),
    )
    expect(invoice?.status).toBe('pending_pix')
    atDue(due, -5)
    await runBillingTick(deps())
    await settle()
    // Had a debit been scheduled too, a code paid on the due date (past the PSP's cancel window) took the money twice.
    expect(await chargesOf(sub.id)).toHaveLength(0)
    expect(await messagesOf(sub.id, 'pix_automatico_notice')).toHaveLength(0)
    const [stored] = await t.database.db.select().from(payments).where(eq(payments.id, invoice!.id))
    expect(stored?.status).toBe('pending_pix')
  })

  it('set to end after its debit was scheduled, then taken back: the cycle is an ordinary PIX invoice again', async () => {
    const { user, sub, due, charge } = await setToEndAfterScheduling('2026-10-05T12:00:00.000Z')
    await reconcileAutomatico(deps(), clock.now())
    await settle()
    expect((await chargesOf(sub.id))[0]?.status).toBe('CANCELADA')
    expect(psp.automatico.cobrs().find((c) => c.txid === charge!.txid)?.status).toBe('CANCELADA')
    const invoice = async () =>
      (await t.database.db.select().from(payments).where(eq(payments.id, charge!.paymentId)))[0]
    expect((await invoice())?.status).toBe('pending') // no debit any more, no code either: fine while it ends

    // An admin takes the cancellation back: the subscription goes on, so this cycle must be payable.
    atDue(due, -3, 2)
    const saved = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/subscriptions/${sub.id}`,
      headers: { origin: 'http://localhost:3000', cookie: admin.cookie },
      payload: {
        user_id: user.id,
        plan_id: sub.planId,
        status: 'active',
        current_period_start: sub.currentPeriodStart.toISOString(),
        current_period_end: sub.currentPeriodEnd.toISOString(),
        cancel_at_period_end: false,
      },
    })
    expect(saved.statusCode, saved.body).toBe(200)
    await reconcileAutomatico(deps(), clock.now())
    expect((await invoice())?.status).toBe('pending_pix')
    const sent = await t.database.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.paymentId, charge!.paymentId), eq(notifications.kind, 'invoice_created')))
    expect(sent.map((n) => n.channel).sort()).toEqual(['email', 'whatsapp'])
    // Once, whatever the number of passes.
    await reconcileAutomatico(deps(), clock.now())
    expect(await messagesOf(sub.id, 'invoice_created')).toHaveLength(2)
    expect(await chargesOf(sub.id)).toHaveLength(1)
  })

  it('set to end, and the PSP tells of the cancelled debit before our own cancellation commits: nothing to pay', async () => {
    const { sub, charge } = await setToEndAfterScheduling('2026-10-20T12:00:00.000Z')
    const messagesBefore = await messagesOf(sub.id, 'invoice_created')
    // The debit is cancelled at the PSP and its callback is applied before the reconciliation's transaction marks
    // the charge (the order a fast PSP callback gives): the re-read finds the cobr CANCELADA and the charge still ATIVA.
    await cancelCobr(t.app.ctx.pix!, charge!.txid)
    await refreshCobr(deps(), charge!.txid, 'webhook')
    await settle()
    await reconcileAutomatico(deps(), clock.now())
    await settle()
    const [invoice] = await t.database.db.select().from(payments).where(eq(payments.id, charge!.paymentId))
    expect(invoice?.status).toBe('pending') // no code, not payable: the customer is leaving
    expect(await messagesOf(sub.id, 'invoice_created')).toHaveLength(messagesBefore.length)
    expect((await subscriptionRow(sub.id)).status).toBe('active')
    const [after] = await chargesOf(sub.id)
    expect(after?.status).toBe('CANCELADA')
    expect(after?.fallbackAt).not.toBeNull()
  })

  it('cancelled at period end: no charge for the next cycle, the recurrence ends at the PSP after the last paid one', async () => {
    clock.set('2026-12-01T12:00:00.000Z')
    const { user, result } = await subscribeAndPay()
    const sub = await subscriptionRow(result.subscription.id)
    const cancel = await post(t.app, '/api/subscriptions/cancel', { subscription_id: sub.id }, user.cookie)
    expect(cancel.statusCode, cancel.body).toBe(200)
    clock.set(new Date(sub.currentPeriodEnd.getTime() - 5 * 86_400_000))
    await runBillingTick(deps())
    await settle()
    expect(await chargesOf(sub.id)).toHaveLength(0)
    clock.set(new Date(sub.currentPeriodEnd.getTime() + 3_600_000))
    await runBillingTick(deps())
    await settle()
    expect((await subscriptionRow(sub.id)).status).toBe('canceled')
    await reconcileAutomatico(deps(), clock.now())
    await settle()
    const [rec] = await recurrencesOf(sub.id)
    expect(rec?.status).toBe('CANCELADA')
    expect(psp.automatico.rec(result.automatico.idRec)).toMatchObject({ status: 'CANCELADA' })
  })
})
