import { asc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parsePixBrCode } from '../../../domain/pix'
import { payments, subscriptions } from '../../db/schema/billing'
import { auditLog } from '../../db/schema/platform'
import { readOutbox } from '../messaging/outbox'
import { createTestApp, type TestApp, TestClock } from '../../test/test-app'
import { expectInvariantsHold } from '../../test/invariants'
import { createUser, post, type TestUser } from '../../test/users'
import { confirmReceived } from '../admin/admin-fixtures'
import { openShop } from '../billing/test-fixtures'
import { depsOf, eventsOf, notificationsOf, platformSecret, signedAt, startPlatform } from './lifecycle-fixtures'
import { runBillingTick } from './lifecycle.service'
import { verifySignature } from './provisioning.service'

// A whole year of one PIX subscription on plan_pro (R$ 199,00), started on 31 January so that the anchor day is
// tested through February and 30-day months. The clock ticks once a day at 12:00 UTC (as the minute cron would, only
// coarser); the admin confirms payments through the real endpoint at 13:00. The customer pays each renewal the day
// after it is issued, except the 3rd (paid 3 days late: past_due, then reactivated from the payment date) and the
// 8th (never paid: past_due, canceled 7 days after the period end, invoice voided).

const day = 86_400_000
const at = (iso: string) => new Date(iso)

describe('a year of a PIX subscription', () => {
  let t: TestApp
  let platform: Awaited<ReturnType<typeof startPlatform>>
  let admin: TestUser
  let customer: TestUser
  const clock = new TestClock(at('2026-01-20T12:00:00.000Z'))

  beforeAll(async () => {
    platform = await startPlatform()
    t = await createTestApp({
      clock,
      env: { PLATFORM_WEBHOOK_URL: platform.url, PLATFORM_WEBHOOK_SECRET: platformSecret },
    })
    admin = await openShop(t)
    customer = await createUser(t, { name: 'Maria Cliente' })
  })
  afterAll(async () => {
    await t.close()
    await platform.close()
  })

  it('renews monthly on the anchor day, goes past_due and back when paid late, and ends when a renewal is missed', async () => {
    const db = t.database.db
    const deps = depsOf(t)
    const outboxBefore = (await readOutbox(t.outboxPath)).length
    const history: string[] = []
    const record = async (id: string) => {
      const [s] = await db.select().from(subscriptions).where(eq(subscriptions.id, id))
      const line = `${s?.status} ${s?.currentPeriodStart.toISOString()} → ${s?.currentPeriodEnd.toISOString()}`
      if (history.at(-1) !== line) history.push(line)
    }
    const confirm = async (paymentId: string, amountCents: number, when: Date) => {
      clock.set(when)
      await confirmReceived(t.app, admin.cookie, paymentId, amountCents)
      await runBillingTick(deps)
    }

    clock.set('2026-01-31T12:00:00.000Z')
    const checkout = await post(t.app, '/api/checkout/pix', { plan_id: 'plan_pro' }, customer.cookie)
    expect(checkout.statusCode, checkout.body).toBe(200)
    const subscriptionId: string = checkout.json().subscription.id
    const firstInvoiceId: string = checkout.json().payment.id
    await runBillingTick(deps)
    await record(subscriptionId)
    await confirm(firstInvoiceId, 19_900, at('2026-01-31T13:00:00.000Z'))
    await record(subscriptionId)

    const start = at('2026-02-01T12:00:00.000Z').getTime()
    for (let i = 0; i < 365; i++) {
      clock.set(new Date(start + i * day))
      await runBillingTick(deps)
      await record(subscriptionId)
      const now = clock.now()
      const renewals = await db
        .select()
        .from(payments)
        .where(eq(payments.subscriptionId, subscriptionId))
        .orderBy(asc(payments.dueDate))
      for (const [index, invoice] of renewals.filter((p) => p.type === 'renewal').entries()) {
        if (invoice.status !== 'pending_pix') continue
        const n = index + 1
        const due =
          n === 3
            ? now.getTime() >= invoice.dueDate.getTime() + 71 * 3_600_000
            : n !== 8 && now.getTime() >= invoice.createdAt.getTime() + day
        if (due) {
          await confirm(invoice.id, invoice.amountCents, new Date(now.getTime() + 3_600_000))
          await record(subscriptionId)
        }
      }
    }

    // Every state the subscription went through, in order.
    expect(history).toEqual([
      'pending_pix 2026-01-31T12:00:00.000Z → 2026-02-28T12:00:00.000Z',
      'active 2026-01-31T13:00:00.000Z → 2026-02-28T13:00:00.000Z',
      'active 2026-02-28T13:00:00.000Z → 2026-03-31T13:00:00.000Z',
      'active 2026-03-31T13:00:00.000Z → 2026-04-30T13:00:00.000Z',
      'past_due 2026-03-31T13:00:00.000Z → 2026-04-30T13:00:00.000Z',
      'active 2026-05-03T13:00:00.000Z → 2026-06-03T13:00:00.000Z',
      'active 2026-06-03T13:00:00.000Z → 2026-07-03T13:00:00.000Z',
      'active 2026-07-03T13:00:00.000Z → 2026-08-03T13:00:00.000Z',
      'active 2026-08-03T13:00:00.000Z → 2026-09-03T13:00:00.000Z',
      'active 2026-09-03T13:00:00.000Z → 2026-10-03T13:00:00.000Z',
      'past_due 2026-09-03T13:00:00.000Z → 2026-10-03T13:00:00.000Z',
      'canceled 2026-09-03T13:00:00.000Z → 2026-10-03T13:00:00.000Z',
    ])

    const [subscription, ...otherSubscriptions] = await db.select().from(subscriptions)
    expect(otherSubscriptions).toEqual([])
    expect(subscription).toMatchObject({
      id: subscriptionId,
      userId: customer.id,
      planId: 'plan_pro',
      status: 'canceled',
      billingMethod: 'pix',
      anchorDay: 3,
      cancelAtPeriodEnd: false,
      canceledAt: at('2026-10-10T13:00:00.000Z'),
    })

    // Every invoice: the first one, then one renewal per period, issued 3 days ahead (at the first daily tick).
    const rows = await db.select().from(payments).orderBy(asc(payments.dueDate))
    expect(
      rows.map((p) => [
        p.type,
        p.amountCents,
        p.paymentMethod,
        p.status,
        p.createdAt.toISOString(),
        p.dueDate.toISOString(),
        p.paidAt?.toISOString() ?? null,
      ]),
    ).toEqual([
      [
        'new',
        19_900,
        'pix',
        'paid',
        '2026-01-31T12:00:00.000Z',
        '2026-02-03T12:00:00.000Z',
        '2026-01-31T13:00:00.000Z',
      ],
      [
        'renewal',
        19_900,
        'pix',
        'paid',
        '2026-02-26T12:00:00.000Z',
        '2026-02-28T13:00:00.000Z',
        '2026-02-27T13:00:00.000Z',
      ],
      [
        'renewal',
        19_900,
        'pix',
        'paid',
        '2026-03-29T12:00:00.000Z',
        '2026-03-31T13:00:00.000Z',
        '2026-03-30T13:00:00.000Z',
      ],
      [
        'renewal',
        19_900,
        'pix',
        'paid',
        '2026-04-28T12:00:00.000Z',
        '2026-04-30T13:00:00.000Z',
        '2026-05-03T13:00:00.000Z',
      ],
      [
        'renewal',
        19_900,
        'pix',
        'paid',
        '2026-06-01T12:00:00.000Z',
        '2026-06-03T13:00:00.000Z',
        '2026-06-02T13:00:00.000Z',
      ],
      [
        'renewal',
        19_900,
        'pix',
        'paid',
        '2026-07-01T12:00:00.000Z',
        '2026-07-03T13:00:00.000Z',
        '2026-07-02T13:00:00.000Z',
      ],
      [
        'renewal',
        19_900,
        'pix',
        'paid',
        '2026-08-01T12:00:00.000Z',
        '2026-08-03T13:00:00.000Z',
        '2026-08-02T13:00:00.000Z',
      ],
      [
        'renewal',
        19_900,
        'pix',
        'paid',
        '2026-09-01T12:00:00.000Z',
        '2026-09-03T13:00:00.000Z',
        '2026-09-02T13:00:00.000Z',
      ],
      ['renewal', 19_900, 'pix', 'void', '2026-10-01T12:00:00.000Z', '2026-10-03T13:00:00.000Z', null],
    ])
    for (const p of rows.slice(1)) {
      expect(p.metadata).toEqual({ type: 'renewal' })
      expect(p.pixReference).toMatch(/^REN[A-Za-z0-9]{22}$/)
    }
    expect(new Set(rows.map((p) => p.pixReference)).size).toBe(rows.length)
    const [first, r1, r2, r3, r4, r5, r6, r7, r8] = rows.map((p) => p.id)

    // Every notification, each once, on both channels (the customer has a WhatsApp number), all sent.
    const events = [
      `invoice_created:${first}`,
      `payment_confirmed:${first}`,
      `invoice_created:${r1}`,
      `payment_confirmed:${r1}`,
      `invoice_created:${r2}`,
      `payment_confirmed:${r2}`,
      `invoice_created:${r3}`,
      `due_tomorrow:${r3}`,
      `overdue:${subscriptionId}:2026-04-30`,
      `payment_confirmed:${r3}`,
      `invoice_created:${r4}`,
      `payment_confirmed:${r4}`,
      `invoice_created:${r5}`,
      `payment_confirmed:${r5}`,
      `invoice_created:${r6}`,
      `payment_confirmed:${r6}`,
      `invoice_created:${r7}`,
      `payment_confirmed:${r7}`,
      `invoice_created:${r8}`,
      `due_tomorrow:${r8}`,
      `overdue:${subscriptionId}:2026-10-03`,
      `canceled:${subscriptionId}`,
    ]
    // Besides the sign-up's confirmation e-mail (an account e-mail, sent through the same outbox), the year's
    // billing notifications, each once.
    const all = await notificationsOf(db, customer.id)
    expect(all.filter((n) => n.kind === 'email_confirmation').map((n) => [n.status, n.attempts])).toEqual([['sent', 1]])
    const sent = all.filter((n) => n.kind !== 'email_confirmation')
    expect(sent.map((n) => [n.dedupeKey, n.status, n.attempts])).toEqual(
      events.flatMap((e) => [
        [`${e}:email`, 'sent', 1],
        [`${e}:whatsapp`, 'sent', 1],
      ]),
    )

    // The dev outbox has exactly those messages, in that order, e-mail then WhatsApp.
    const outbox = (await readOutbox(t.outboxPath)).slice(outboxBefore)
    expect(outbox.map((e) => [e.channel, e.to])).toEqual(
      events.flatMap(() => [
        ['email', customer.email],
        ['whatsapp', customer.phone],
      ]),
    )
    const subjects = outbox.filter((e) => e.channel === 'email').map((e) => e.subject)
    expect(subjects).toEqual([
      'Fatura PIX gerada',
      'Pagamento confirmado',
      ...Array.from({ length: 2 }, () => ['Fatura de renovação disponível', 'Pagamento confirmado']).flat(),
      'Fatura de renovação disponível',
      'Sua fatura vence amanhã',
      'Assinatura vencida',
      'Pagamento confirmado',
      ...Array.from({ length: 4 }, () => ['Fatura de renovação disponível', 'Pagamento confirmado']).flat(),
      'Fatura de renovação disponível',
      'Sua fatura vence amanhã',
      'Assinatura vencida',
      'Assinatura cancelada',
    ])
    for (const [index, entry] of outbox.entries()) {
      const event = events[Math.floor(index / 2)] ?? ''
      if (!event.startsWith('invoice_created') && !event.startsWith('due_tomorrow')) continue
      const invoice = rows.find((p) => event.endsWith(p.id))
      const brCode = entry.text.split('\n').find((line) => line.startsWith('000201'))
      expect(parsePixBrCode(brCode ?? '')).toMatchObject({ amountCents: 19_900, txid: invoice?.pixReference })
    }
    const texts = outbox.filter((e) => e.channel === 'email').map((e) => e.text)
    expect(texts[1]).toContain('Sua assinatura do plano Profissional está ativa até 28/02/2026.')
    expect(texts[3]).toContain('Sua assinatura do plano Profissional está ativa até 31/03/2026.')
    expect(texts[8]).toContain('está vencida desde 30/04/2026')
    expect(texts[8]).toContain('Regularize até 07/05/2026 para que ela não seja cancelada.')
    expect(texts[9]).toContain('Recebemos o pagamento de R$\u00a0199,00 em 03/05/2026.')
    expect(texts[9]).toContain('está ativa até 03/06/2026.')
    expect(texts[21]).toContain('foi cancelada porque a fatura ficou mais de 7 dias vencida sem pagamento.')
    expect(outbox.every((e) => !/\b\d{6}\b/.test(e.text))).toBe(true)

    // The chat platform heard the activation and the end, once each, signed.
    const platformRows = await eventsOf(db, subscriptionId)
    expect(platformRows.map((e) => [e.type, e.status, e.attempts, e.createdAt.toISOString()])).toEqual([
      ['subscription.activated', 'delivered', 1, '2026-01-31T13:00:00.000Z'],
      ['subscription.ended', 'delivered', 1, '2026-10-11T12:00:00.000Z'],
    ])
    expect(platform.received.map((r) => JSON.parse(r.body).type)).toEqual([
      'subscription.activated',
      'subscription.ended',
    ])
    for (const r of platform.received)
      expect(verifySignature(r.signature, r.body, platformSecret, signedAt(r.signature))).toBe(true)
    expect(JSON.parse(platform.received[0]?.body ?? '{}')).toMatchObject({
      customer: { email: customer.email, company: 'Loja da Maria' },
      plan_id: 'plan_pro',
      box_quantity: 2,
      agent_quantity: 5,
      current_period_end: '2026-02-28T13:00:00.000Z',
    })

    // Who did what to the subscription: the admin's confirmations and the billing job's transitions.
    const actions = await db
      .select({ action: auditLog.action, actorId: auditLog.actorId })
      .from(auditLog)
      .where(eq(auditLog.entityId, subscriptionId))
      .orderBy(asc(auditLog.id))
    expect(actions.map((a) => `${a.action} by ${a.actorId === admin.id ? 'admin' : (a.actorId ?? 'billing')}`)).toEqual(
      [
        `subscription.checkout_pix by ${customer.id}`,
        'subscription.activated by admin',
        'platform.event by billing',
        'subscription.renewed by admin',
        'subscription.renewed by admin',
        'subscription.past_due by billing',
        'subscription.reactivated by admin',
        'subscription.renewed by admin',
        'subscription.renewed by admin',
        'subscription.renewed by admin',
        'subscription.renewed by admin',
        'subscription.past_due by billing',
        'subscription.canceled_overdue by billing',
        'platform.event by billing',
      ],
    )
  }, 600_000)

  it('leaves every invariant of the database holding (db:check)', async () => {
    await expectInvariantsHold(t.database.db)
  })
})
