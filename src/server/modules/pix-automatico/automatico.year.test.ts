// A year of one PIX Automático subscription with the test clock, ticking once a day at 12:00 UTC against the fake
// PSP: subscribed on 15 January with the composite code (plan_basic, R$ 99,00); each cycle's recurring charge sent
// once in the D-8..D-3 window and settled on its date; the April cycle rejected on its date and on D+1, paid on the
// second retry (D+3); an upgrade to plan_pro on 1 June (the prorated invoice approves a new authorisation, the old
// one is cancelled after); the payer revokes the authorisation on 25 September, and the last four cycles are
// ordinary PIX invoices the customer pays. Every row and message is checked at the end.
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withCheckDigits } from '../../../domain/cpf-cnpj'
import { pixTxidFor } from '../../../domain/pix-txid'
import { payments, subscriptions } from '../../db/schema/billing'
import { notifications } from '../../db/schema/lifecycle'
import { pixRecurrences, pixRecurringCharges } from '../../db/schema/pix-automatico'
import type { FakePsp } from '../../test/fake-psp/fake-psp'
import { TestClock, type TestApp } from '../../test/test-app'
import { createUser, post, type TestUser } from '../../test/users'
import { runBillingTick } from '../lifecycle/lifecycle.service'
import { settleCallbacks, startAutomaticoApp } from './automatico-fixtures'

const dayMs = 86_400_000

describe('a year of PIX Automático', () => {
  let t: TestApp
  let psp: FakePsp
  let customer: TestUser
  const clock = new TestClock(new Date('2026-01-15T12:00:00.000Z'))

  beforeAll(async () => {
    ;({ t, psp } = await startAutomaticoApp(clock))
    customer = await createUser(t, { name: 'Maria Cliente' })
  })
  afterAll(async () => {
    await t?.close()
    await psp?.stop()
  })

  it('twelve cycles, a rejection paid on the second retry, an upgrade, a revocation and the switch to invoices', async () => {
    const db = t.database.db
    const deps = { ...t.app.ctx, log: { info: () => {}, warn: () => {}, error: () => {} } }
    const settle = () => settleCallbacks(t, psp)
    const statuses: string[] = []
    const record = async (id: string) => {
      const [s] = await db.select().from(subscriptions).where(eq(subscriptions.id, id))
      const line = `${clock.now().toISOString().slice(0, 10)} ${s?.status} ${s?.planId}`
      if (statuses.at(-1)?.slice(11) !== line.slice(11)) statuses.push(line)
    }

    // 15 January: checkout with the composite code, paid at once (approves the recurrence).
    const checkout = await post(
      t.app,
      '/api/checkout/pix-automatico',
      { plan_id: 'plan_basic', tax_id: withCheckDigits('529982247') },
      customer.cookie,
    )
    expect(checkout.statusCode, checkout.body).toBe(200)
    const subscriptionId: string = checkout.json().subscription.id
    const firstRec: string = checkout.json().automatico.idRec
    await psp.controls.pay({ txid: pixTxidFor(checkout.json().payment.id) })
    await settle()
    await record(subscriptionId)

    let secondRec = ''
    const failuresOfApril: string[] = []
    for (let date = new Date('2026-01-16T12:00:00.000Z'); date < new Date('2027-01-22T00:00:00.000Z'); ) {
      clock.set(date)
      const today = date.toISOString().slice(0, 10)

      // The payer's bank debits what is scheduled for today; the April cycle fails twice first.
      for (const cobr of psp.automatico.cobrs() as Array<{
        status: string
        txid: string
        calendario: { dataDeVencimento: string }
        tentativas: unknown
      }>) {
        const attempt = (cobr.tentativas as Array<{ status: string; dataLiquidacao: string }>).find(
          (a) => a.status === 'AGENDADA' && a.dataLiquidacao === today,
        )
        if (cobr.status !== 'ATIVA' || !attempt) continue
        if (cobr.calendario.dataDeVencimento.startsWith('2026-04') && failuresOfApril.length < 2) {
          failuresOfApril.push(today)
          await psp.automatico.controls.failCobr({ txid: cobr.txid, code: 'NIEC' })
        } else await psp.automatico.controls.settleCobr({ txid: cobr.txid })
      }
      // After the revocation: the customer pays each ordinary invoice the day before it is due.
      const open = await db
        .select()
        .from(payments)
        .where(and(eq(payments.subscriptionId, subscriptionId), eq(payments.status, 'pending_pix')))
      for (const invoice of open) {
        if (invoice.pixTxid && invoice.dueDate.getTime() - date.getTime() <= dayMs)
          await psp.controls.pay({ txid: invoice.pixTxid })
      }
      await settle()

      if (today === '2026-06-01') {
        const upgrade = await post(
          t.app,
          `/api/subscriptions/${subscriptionId}/pix-automatico/upgrade`,
          { plan_id: 'plan_pro' },
          customer.cookie,
        )
        expect(upgrade.statusCode, upgrade.body).toBe(200)
        expect(upgrade.json().copiaECola).toBe(upgrade.json().upgrade.pix.brCode)
        const [pending] = await db
          .select()
          .from(pixRecurrences)
          .where(and(eq(pixRecurrences.subscriptionId, subscriptionId), eq(pixRecurrences.status, 'CRIADA')))
        secondRec = pending!.idRec
        // Not approved yet: the old authorisation stays.
        expect(psp.automatico.rec(firstRec)).toMatchObject({ status: 'APROVADA' })
        await psp.controls.pay({ txid: pixTxidFor(upgrade.json().upgrade.pix.paymentId) })
        await settle()
      }
      if (today === '2026-09-25') {
        await psp.automatico.controls.revokeRec({ idRec: secondRec })
        await settle()
      }

      await runBillingTick(deps)
      await settle()
      await record(subscriptionId)
      date = new Date(date.getTime() + dayMs)
    }

    // The subscription: active on plan_pro, past_due only during the April retries.
    const [sub] = await db.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId))
    expect(sub).toMatchObject({ status: 'active', planId: 'plan_pro' })
    expect(statuses.filter((s) => s.includes('past_due'))).toEqual(['2026-04-15 past_due plan_basic'])
    expect(failuresOfApril).toEqual(['2026-04-15', '2026-04-16'])

    // Twelve renewals, each paid once; eight debited by PIX Automático, four ordinary invoices after the revocation.
    const all = await db.select().from(payments).where(eq(payments.subscriptionId, subscriptionId))
    const renewals = all.filter((p) => p.type === 'renewal').sort((a, b) => a.dueDate.getTime() - b.dueDate.getTime())
    expect(renewals).toHaveLength(12)
    expect(renewals.every((p) => p.status === 'paid' && p.pixConfirmedVia === 'api_pix')).toBe(true)
    expect(new Set(renewals.map((p) => p.dueDate.toISOString())).size).toBe(12)
    expect(all.filter((p) => p.type === 'upgrade' && p.status === 'paid')).toHaveLength(1)
    const charges = await db
      .select()
      .from(pixRecurringCharges)
      .where(eq(pixRecurringCharges.subscriptionId, subscriptionId))
      .orderBy(pixRecurringCharges.dueDate)
    expect(charges).toHaveLength(8)
    expect(charges.every((c) => c.status === 'CONCLUIDA')).toBe(true)
    expect(charges.map((c) => c.amountCents)).toEqual([9_900, 9_900, 9_900, 9_900, 19_900, 19_900, 19_900, 19_900])
    expect(charges.map((c) => c.paymentId)).toEqual(renewals.slice(0, 8).map((p) => p.id))
    const april = charges[2]!
    expect(april.attempts.map((a) => a.status)).toEqual(['REJEITADA', 'REJEITADA', 'PAGA'])
    expect(april.retryDates).toEqual(['2026-04-16', '2026-04-18'])
    expect(renewals.slice(8).every((p) => p.pixTxid && !charges.some((c) => c.paymentId === p.id))).toBe(true)
    // At the PSP: one cobr per cycle, nothing else.
    expect(psp.automatico.cobrs()).toHaveLength(8)

    // The authorisations: the first cancelled by us after the upgrade's approval, the second revoked by the payer.
    const recs = await db
      .select()
      .from(pixRecurrences)
      .where(eq(pixRecurrences.subscriptionId, subscriptionId))
      .orderBy(pixRecurrences.createdAt)
    expect(recs.map((r) => [r.idRec, r.status, r.cancelledBy, r.amountCents])).toEqual([
      [firstRec, 'CANCELADA', 'USUARIO_RECEBEDOR', 9_900],
      [secondRec, 'CANCELADA', 'USUARIO_PAGADOR', 19_900],
    ])
    expect(recs[1]!.history.map((h) => h.status)).toEqual(['CRIADA', 'APROVADA', 'CANCELADA'])

    // The messages (e-mail and WhatsApp each).
    const messages = await db.select().from(notifications).where(eq(notifications.subscriptionId, subscriptionId))
    const count = (kind: string) => messages.filter((m) => m.kind === kind).length
    expect(count('pix_automatico_notice')).toBe(8 * 2)
    expect(count('pix_automatico_failed')).toBe(2 * 2)
    expect(count('pix_automatico_revoked')).toBe(2)
    expect(
      messages.filter((m) => m.kind === 'invoice_created' && renewals.slice(8).some((p) => p.id === m.paymentId)),
    ).toHaveLength(4 * 2)
    expect(
      messages.filter((m) => m.kind === 'invoice_created' && renewals.slice(0, 8).some((p) => p.id === m.paymentId)),
    ).toHaveLength(0)
    // The April cycle: past_due from the first failure to the payment, told once (the ordinary 'overdue' notice).
    expect(count('overdue')).toBe(2)
    expect(count('canceled')).toBe(0)
    expect(messages.every((m) => m.status === 'sent')).toBe(true)
  }, 600_000)
})
