import { createServer } from 'node:http'
import { asc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parsePixBrCode } from '../../../domain/pix'
import { payments, subscriptions } from '../../db/schema/billing'
import { notifications, platformEvents } from '../../db/schema/lifecycle'
import { auditLog } from '../../db/schema/platform'
import { readOutbox } from '../messaging/outbox'
import { createTestApp, TestClock } from '../../test/test-app'
import { createUser, get } from '../../test/users'
import { configurePix, seedPlans, storedSubscription } from '../billing/test-fixtures'
import type { CardGateway } from '../billing/card-gateway'
import {
  billingTestApp,
  depsOf,
  eventsOf,
  insertCustomer,
  insertPayment,
  insertSubscription,
  notificationsOf,
  platformSecret,
  signedAt,
  recordingLog,
  startPlatform,
} from './lifecycle-fixtures'
import { runBillingTick } from './lifecycle.service'
import { reconcileCardSubscriptions } from './reconcile.service'
import { deliverNotifications } from './notifications.service'
import { verifySignature } from './provisioning.service'

const day = 86_400_000
const hour = 3_600_000

describe('renewals, period ends and notifications', () => {
  const clock = new TestClock(new Date('2026-03-10T12:00:00.000Z'))
  const t = billingTestApp({ clock })

  const subscriptionRow = (id: string) => storedSubscription(t.database.db, id)

  it('issues the renewal invoice 3 days before the period ends, once, and tells the customer with the BR Code', async () => {
    clock.set('2026-03-10T12:00:00.000Z')
    const db = t.database.db
    const customer = await insertCustomer(db, { whatsapp: '5585999990101', name: 'Ana Renovação' })
    const periodEnd = new Date('2026-03-14T12:00:00.000Z')
    const sub = await insertSubscription(db, { userId: customer.id, currentPeriodEnd: periodEnd })

    await runBillingTick(depsOf(t))
    expect(await db.select().from(payments).where(eq(payments.subscriptionId, sub.id))).toEqual([])

    clock.set('2026-03-11T12:00:00.000Z') // exactly 3 days before
    const first = await runBillingTick(depsOf(t))
    expect(first.renewals).toBe(1)
    const [invoice, ...others] = await db.select().from(payments).where(eq(payments.subscriptionId, sub.id))
    expect(others).toEqual([])
    expect(invoice).toMatchObject({
      status: 'pending_pix',
      paymentMethod: 'pix',
      type: 'renewal',
      metadata: { type: 'renewal' },
      amountCents: 19_900,
      dueDate: periodEnd,
    })
    expect(invoice?.pixReference).toMatch(/^REN[A-Za-z0-9]{22}$/)

    const rows = await notificationsOf(db, customer.id)
    expect(rows.map((n) => [n.dedupeKey, n.status, n.recipient])).toEqual([
      [`invoice_created:${invoice?.id}:email`, 'sent', customer.email],
      [`invoice_created:${invoice?.id}:whatsapp`, 'sent', '5585999990101'],
    ])
    const outbox = (await readOutbox(t.outboxPath)).filter((e) => e.to === customer.email || e.to === '5585999990101')
    expect(outbox.map((e) => [e.channel, e.subject])).toEqual([
      ['email', 'Fatura de renovação disponível'],
      ['whatsapp', undefined],
    ])
    const brCode = outbox[0]?.text.split('\n').find((line) => line.startsWith('000201'))
    expect(brCode).toBeDefined()
    expect(parsePixBrCode(brCode ?? '')).toMatchObject({ amountCents: 19_900, txid: invoice?.pixReference })
    expect(outbox[0]?.text).toContain('Olá, Ana Renovação!')
    expect(outbox[0]?.text).toContain('Valor: R$\u00a0199,00\nVencimento: 14/03/2026')
    expect(outbox[0]?.text).toContain('para renovar sua assinatura do plano Profissional')
    expect(outbox[1]?.text).toContain(brCode ?? 'missing')
    const audits = await db
      .select()
      .from(auditLog)
      .where(eq(auditLog.entityId, invoice?.id ?? ''))
    expect(audits.map((a) => [a.action, a.actorId])).toEqual([['payment.renewal_invoice', null]])

    // The second tick (and a concurrent pair) find nothing left to do.
    clock.advance(hour)
    const again = await Promise.all([runBillingTick(depsOf(t)), runBillingTick(depsOf(t))])
    expect(again.map((r) => r.renewals)).toEqual([0, 0])
    expect(await db.select().from(payments).where(eq(payments.subscriptionId, sub.id))).toHaveLength(1)
    expect(await notificationsOf(db, customer.id)).toHaveLength(2)
  })

  it('issues concurrent renewals exactly once per subscription', async () => {
    clock.set('2026-04-01T12:00:00.000Z')
    const db = t.database.db
    const subs = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const customer = await insertCustomer(db)
        return insertSubscription(db, { userId: customer.id, currentPeriodEnd: new Date('2026-04-03T00:00:00Z') })
      }),
    )
    const reports = await Promise.all([1, 2, 3].map(() => runBillingTick(depsOf(t))))
    expect(reports.reduce((sum, r) => sum + (r.renewals ?? 0), 0)).toBe(6)
    for (const sub of subs) {
      const rows = await db.select().from(payments).where(eq(payments.subscriptionId, sub.id))
      expect(rows.map((p) => p.type)).toEqual(['renewal'])
      const sent = await db
        .select()
        .from(notifications)
        .where(eq(notifications.paymentId, rows[0]?.id ?? ''))
      expect(sent.map((n) => n.dedupeKey)).toEqual([`invoice_created:${rows[0]?.id}:email`])
    }
  })

  it('makes an unpaid subscription past_due at period end and cancels it 7 days later, voiding the invoice', async () => {
    clock.set('2026-05-01T10:00:00.000Z')
    const db = t.database.db
    const customer = await insertCustomer(db, { name: 'Bruno Atrasado' })
    const periodEnd = new Date('2026-05-02T12:00:00.000Z')
    const sub = await insertSubscription(db, { userId: customer.id, currentPeriodEnd: periodEnd })
    await runBillingTick(depsOf(t))
    const [invoice] = await db.select().from(payments).where(eq(payments.subscriptionId, sub.id))
    expect(invoice?.type).toBe('renewal')

    clock.set('2026-05-02T11:59:59.000Z')
    await runBillingTick(depsOf(t))
    expect((await subscriptionRow(sub.id)).status).toBe('active')

    clock.set('2026-05-02T12:00:00.000Z')
    const report = await runBillingTick(depsOf(t))
    expect(report.overdue).toBe(1)
    expect((await subscriptionRow(sub.id)).status).toBe('past_due')

    clock.set('2026-05-09T11:59:00.000Z')
    await runBillingTick(depsOf(t))
    expect((await subscriptionRow(sub.id)).status).toBe('past_due')

    clock.set('2026-05-09T12:00:00.000Z')
    expect((await runBillingTick(depsOf(t))).overdue_cancellations).toBe(1)
    expect(await subscriptionRow(sub.id)).toMatchObject({
      status: 'canceled',
      canceledAt: new Date('2026-05-09T12:00:00.000Z'),
    })
    const [voided] = await db.select().from(payments).where(eq(payments.subscriptionId, sub.id))
    expect(voided?.status).toBe('void')

    const rows = await notificationsOf(db, customer.id)
    expect(rows.map((n) => [n.dedupeKey, n.status])).toEqual([
      [`invoice_created:${invoice?.id}:email`, 'sent'],
      [`due_tomorrow:${invoice?.id}:email`, 'sent'],
      [`overdue:${sub.id}:2026-05-02:email`, 'sent'],
      [`canceled:${sub.id}:email`, 'sent'],
    ])
    const texts = (await readOutbox(t.outboxPath)).filter((e) => e.to === customer.email)
    expect(texts.map((e) => e.subject)).toEqual([
      'Fatura de renovação disponível',
      'Sua fatura vence amanhã',
      'Assinatura vencida',
      'Assinatura cancelada',
    ])
    expect(texts[2]?.text).toContain('Regularize até 09/05/2026 para que ela não seja cancelada.')
    expect(texts[3]?.text).toContain(
      'Sua assinatura do plano Profissional foi cancelada porque a fatura ficou mais de 7 dias vencida sem pagamento.',
    )
    const actions = await db
      .select({ action: auditLog.action, after: auditLog.after })
      .from(auditLog)
      .where(eq(auditLog.entityId, sub.id))
      .orderBy(asc(auditLog.id))
    expect(actions.map((a) => a.action)).toEqual([
      'platform.event',
      'subscription.past_due',
      'subscription.canceled_overdue',
      'platform.event',
    ])
    // The cancellation's audit names the invoice it voided (and only that one).
    expect(actions[2]?.after).toMatchObject({ status: 'canceled', voidedPaymentIds: [invoice?.id], by: 'billing' })
  })

  it('ends a cancel_at_period_end subscription when its period ends, without a renewal invoice', async () => {
    clock.set('2026-06-01T12:00:00.000Z')
    const db = t.database.db
    const customer = await insertCustomer(db)
    const sub = await insertSubscription(db, {
      userId: customer.id,
      currentPeriodEnd: new Date('2026-06-03T12:00:00.000Z'),
      cancelAtPeriodEnd: true,
      updatedAt: new Date('2026-06-01T11:00:00.000Z'),
    })
    await runBillingTick(depsOf(t))
    expect(await db.select().from(payments).where(eq(payments.subscriptionId, sub.id))).toEqual([])
    expect((await subscriptionRow(sub.id)).status).toBe('active')

    clock.set('2026-06-03T12:00:00.000Z')
    expect((await runBillingTick(depsOf(t))).scheduled_cancellations).toBe(1)
    expect(await subscriptionRow(sub.id)).toMatchObject({
      status: 'canceled',
      canceledAt: new Date('2026-06-03T12:00:00.000Z'),
    })
    const rows = await notificationsOf(db, customer.id)
    expect(rows.map((n) => n.dedupeKey)).toEqual([
      `cancel_scheduled:${sub.id}:2026-06-03:email`,
      `canceled:${sub.id}:email`,
    ])
    const texts = (await readOutbox(t.outboxPath)).filter((e) => e.to === customer.email)
    expect(texts.map((e) => e.subject)).toEqual(['Cancelamento agendado', 'Assinatura cancelada'])
    expect(texts[0]?.text).toContain('será cancelada no final do período de faturamento, em 03/06/2026.')
    expect(texts[1]?.text).toContain('foi cancelada no final do período de faturamento, como você pediu.')
  })

  it('cancels a pending_pix subscription whose first invoice expired unpaid, but not one under review', async () => {
    clock.set('2026-07-01T12:00:00.000Z')
    const db = t.database.db
    const customer = await insertCustomer(db)
    const start = new Date('2026-07-01T12:00:00.000Z')
    const sub = await insertSubscription(db, {
      userId: customer.id,
      status: 'pending_pix',
      currentPeriodStart: start,
      currentPeriodEnd: new Date('2026-08-01T12:00:00.000Z'),
    })
    const invoice = await insertPayment(db, {
      subscriptionId: sub.id,
      dueDate: new Date('2026-07-04T12:00:00.000Z'),
      createdAt: start,
    })
    const reviewed = await insertSubscription(db, {
      userId: customer.id,
      status: 'pending_pix',
      currentPeriodStart: start,
      currentPeriodEnd: new Date('2026-08-01T12:00:00.000Z'),
    })
    await insertPayment(db, {
      subscriptionId: reviewed.id,
      status: 'review',
      dueDate: new Date('2026-07-04T12:00:00.000Z'),
      createdAt: start,
    })

    await runBillingTick(depsOf(t))
    clock.set('2026-07-04T11:00:00.000Z')
    await runBillingTick(depsOf(t))
    expect((await subscriptionRow(sub.id)).status).toBe('pending_pix')

    clock.set('2026-07-04T12:00:00.000Z')
    expect((await runBillingTick(depsOf(t))).expired_first_invoices).toBe(1)
    expect(await subscriptionRow(sub.id)).toMatchObject({
      status: 'canceled',
      canceledAt: new Date('2026-07-04T12:00:00.000Z'),
    })
    expect((await subscriptionRow(reviewed.id)).status).toBe('pending_pix')
    const [voided] = await db.select().from(payments).where(eq(payments.id, invoice.id))
    expect(voided?.status).toBe('void')
    const rows = await notificationsOf(db, customer.id)
    expect(rows.map((n) => n.dedupeKey)).toEqual([
      `invoice_created:${invoice.id}:email`,
      `due_tomorrow:${invoice.id}:email`,
      `canceled:${sub.id}:email`,
    ])
    const last = (await readOutbox(t.outboxPath)).filter((e) => e.to === customer.email).at(-1)
    expect(last?.text).toContain('foi cancelada porque a fatura PIX não foi paga até o vencimento.')
  })

  it('notifies what other modules did, once, and ignores rows older than 7 days', async () => {
    clock.set('2026-08-10T12:00:00.000Z')
    const db = t.database.db
    const customer = await insertCustomer(db, { whatsapp: '5585999990202' })
    const sub = await insertSubscription(db, {
      userId: customer.id,
      currentPeriodEnd: new Date('2026-09-10T12:00:00.000Z'),
      updatedAt: new Date('2026-08-10T11:00:00.000Z'),
    })
    const paid = await insertPayment(db, {
      subscriptionId: sub.id,
      status: 'paid',
      paidAt: new Date('2026-08-10T11:00:00.000Z'),
      amountReceivedCents: 19_900,
      dueDate: new Date('2026-08-12T12:00:00.000Z'),
    })
    const old = await insertPayment(db, {
      subscriptionId: sub.id,
      status: 'paid',
      paidAt: new Date('2026-08-02T11:00:00.000Z'),
      dueDate: new Date('2026-08-03T12:00:00.000Z'),
    })
    await runBillingTick(depsOf(t))
    await runBillingTick(depsOf(t))
    const rows = await notificationsOf(db, customer.id)
    expect(rows.map((n) => [n.dedupeKey, n.status])).toEqual([
      [`payment_confirmed:${paid.id}:email`, 'sent'],
      [`payment_confirmed:${paid.id}:whatsapp`, 'sent'],
    ])
    expect(rows.some((n) => n.paymentId === old.id)).toBe(false)
    const email = (await readOutbox(t.outboxPath)).filter((e) => e.to === customer.email)
    expect(email.map((e) => e.text)).toEqual([
      [
        `Olá, ${customer.name}!`,
        '',
        'Recebemos o pagamento de R$\u00a0199,00 em 10/08/2026. Obrigado!',
        '',
        'Sua assinatura do plano Profissional está ativa até 10/09/2026.',
        '',
        'O recibo está nos seus pagamentos: http://localhost:3000/dashboard/payments',
        '',
        'Equipe Atendimento Multicanal',
        '',
      ].join('\n'),
    ])
  })

  it('retries a failed notification with back-off and gives up after 6 attempts', async () => {
    clock.set('2026-09-01T12:00:00.000Z')
    const db = t.database.db
    const customer = await insertCustomer(db, { whatsapp: '5585999990303' })
    const sub = await insertSubscription(db, {
      userId: customer.id,
      currentPeriodEnd: new Date('2026-10-01T12:00:00.000Z'),
      cancelAtPeriodEnd: true,
      updatedAt: new Date('2026-09-01T12:00:00.000Z'),
    })
    let mailCalls = 0
    const flakyMail = {
      send: async () => {
        mailCalls += 1
        if (mailCalls <= 2) throw new Error('SMTP fora do ar')
      },
    }
    const deadWhatsApp = {
      send: async () => {
        throw new Error('WhatsApp recusou')
      },
    }
    const { log, lines } = recordingLog()
    const deps = depsOf(t, { mail: flakyMail, whatsapp: deadWhatsApp, log })
    await runBillingTick(deps)
    const key = `cancel_scheduled:${sub.id}:2026-10-01`
    const byKey = async () =>
      Object.fromEntries(
        (await db.select().from(notifications).where(eq(notifications.subscriptionId, sub.id))).map((n) => [
          n.channel,
          n,
        ]),
      )
    let rows = await byKey()
    expect(rows.email).toMatchObject({
      dedupeKey: `${key}:email`,
      status: 'pending',
      attempts: 1,
      lastError: 'SMTP fora do ar',
      nextAttemptAt: new Date('2026-09-01T12:01:00.000Z'),
    })
    // Not before its time.
    await deliverNotifications(deps, new Date('2026-09-01T12:00:30.000Z'))
    expect((await byKey()).email?.attempts).toBe(1)

    const delays: number[] = []
    for (let i = 0; i < 6; i++) {
      const next = (await byKey()).whatsapp?.nextAttemptAt
      if (!next || (await byKey()).whatsapp?.status !== 'pending') break
      delays.push(next.getTime() - clock.now().getTime())
      clock.set(next)
      await deliverNotifications(deps, clock.now())
    }
    rows = await byKey()
    expect(rows.email).toMatchObject({ status: 'sent', attempts: 3, lastError: null })
    expect(rows.whatsapp).toMatchObject({ status: 'failed', attempts: 6, lastError: 'WhatsApp recusou' })
    expect(delays).toEqual([60_000, 120_000, 240_000, 480_000, 960_000])
    expect(mailCalls).toBe(3)
    expect(lines.filter((l) => l.msg === 'notification failed for good')).toHaveLength(1)
  })
})

describe('provisioning webhook to the chat platform', () => {
  let platform: Awaited<ReturnType<typeof startPlatform>>
  const clock = new TestClock(new Date('2026-03-10T12:00:00.000Z'))
  let failNext = 0

  beforeAll(async () => {
    platform = await startPlatform(() => {
      if (failNext > 0) {
        failNext -= 1
        return { status: 503 }
      }
      return { status: 200 }
    })
  })
  afterAll(async () => {
    await platform.close()
  })
  // The app reads the platform's URL when it starts, after the platform above.
  const t = billingTestApp({
    clock,
    get env() {
      return { PLATFORM_WEBHOOK_URL: platform.url, PLATFORM_WEBHOOK_SECRET: platformSecret }
    },
  })

  it('sends activated, plan_changed and ended, signed, in order, retrying a failure before sending the next', async () => {
    const db = t.database.db
    const customer = await insertCustomer(db, { company: 'Loja Provisionada' })
    const sub = await insertSubscription(db, {
      userId: customer.id,
      planId: 'plan_basic',
      currentPeriodEnd: new Date('2026-04-10T12:00:00.000Z'),
      updatedAt: new Date('2026-03-10T11:00:00.000Z'),
    })
    failNext = 1
    await runBillingTick(depsOf(t))
    let events = await eventsOf(db, sub.id)
    expect(events.map((e) => [e.type, e.status, e.attempts])).toEqual([['subscription.activated', 'pending', 1]])
    expect(events[0]?.lastError).toBe('plataforma respondeu 503: erro')

    // The plan changes while the first event waits for its retry: the second must not overtake it.
    clock.advance(10_000)
    await db
      .update(subscriptions)
      .set({ planId: 'plan_business', updatedAt: clock.now() })
      .where(eq(subscriptions.id, sub.id))
    await runBillingTick(depsOf(t))
    events = await eventsOf(db, sub.id)
    expect(events.map((e) => [e.type, e.status, e.attempts])).toEqual([
      ['subscription.activated', 'pending', 1],
      ['subscription.plan_changed', 'pending', 0],
    ])
    expect(platform.received).toHaveLength(1)

    clock.advance(60_000)
    await runBillingTick(depsOf(t))
    events = await eventsOf(db, sub.id)
    expect(events.map((e) => [e.type, e.status, e.attempts])).toEqual([
      ['subscription.activated', 'delivered', 2],
      ['subscription.plan_changed', 'delivered', 1],
    ])

    clock.advance(hour)
    await db
      .update(subscriptions)
      .set({ status: 'canceled', canceledAt: clock.now(), updatedAt: clock.now() })
      .where(eq(subscriptions.id, sub.id))
    await runBillingTick(depsOf(t))
    await runBillingTick(depsOf(t))
    events = await eventsOf(db, sub.id)
    expect(events.map((e) => [e.type, e.status])).toEqual([
      ['subscription.activated', 'delivered'],
      ['subscription.plan_changed', 'delivered'],
      ['subscription.ended', 'delivered'],
    ])

    const mine = platform.received.filter((r) => JSON.parse(r.body).subscription_id === sub.id)
    expect(mine.map((r) => JSON.parse(r.body).type)).toEqual([
      'subscription.activated',
      'subscription.activated',
      'subscription.plan_changed',
      'subscription.ended',
    ])
    for (const r of mine) {
      expect(r.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
      expect(verifySignature(r.signature, r.body, platformSecret, signedAt(r.signature))).toBe(true)
      expect(r.eventId).toBe(JSON.parse(r.body).id)
    }
    expect(JSON.parse(mine[2]?.body ?? '{}')).toEqual({
      id: events[1]?.id,
      type: 'subscription.plan_changed',
      occurred_at: '2026-03-10T12:00:10.000Z',
      subscription_id: sub.id,
      customer: { email: customer.email, company: 'Loja Provisionada' },
      plan_id: 'plan_business',
      box_quantity: 5,
      agent_quantity: 15,
      current_period_end: '2026-04-10T12:00:00.000Z',
    })
  })

  it('lists the deliveries for admins only', async () => {
    const admin = await createUser(t, { admin: true })
    const user = await createUser(t)
    expect((await get(t.app, '/api/admin/platform-events', user.cookie)).statusCode).toBe(403)
    expect((await get(t.app, '/api/admin/platform-events')).statusCode).toBe(401)
    const page = await get(t.app, '/api/admin/platform-events?pageSize=2', admin.cookie)
    expect(page.statusCode, page.body).toBe(200)
    const body = page.json()
    expect(body.total).toBe(3)
    expect(body.items).toHaveLength(2)
    expect(body.items[0]).toMatchObject({ type: 'subscription.ended', status: 'delivered', attempts: 1 })
    const failedOnce = await get(t.app, '/api/admin/platform-events?page=2&pageSize=2', admin.cookie)
    expect(failedOnce.json().items[0]).toMatchObject({
      type: 'subscription.activated',
      status: 'delivered',
      attempts: 2,
      lastError: null,
    })
  })
})

describe('provisioning signature and redirects', () => {
  it('signs t=<unix>,v1=HMAC("t.body") at the sending instant; receivers refuse it after 5 minutes', async () => {
    const platform = await startPlatform()
    const t = await createTestApp({
      env: { PLATFORM_WEBHOOK_URL: platform.url, PLATFORM_WEBHOOK_SECRET: platformSecret },
    })
    try {
      await seedPlans(t.database.db)
      const customer = await insertCustomer(t.database.db)
      await insertSubscription(t.database.db, {
        userId: customer.id,
        currentPeriodEnd: new Date(t.clock.now().getTime() + 20 * day),
        updatedAt: t.clock.now(),
      })
      await runBillingTick(depsOf(t))
      const [r] = platform.received
      if (!r) throw new Error('nothing delivered')
      expect(r.signature).toBe(`t=${t.clock.now().getTime() / 1000},v1=${r.signature?.split('v1=')[1]}`)
      const at = t.clock.now()
      expect(verifySignature(r.signature, r.body, platformSecret, at)).toBe(true)
      expect(verifySignature(r.signature, r.body, platformSecret, new Date(at.getTime() + 299_000))).toBe(true)
      expect(verifySignature(r.signature, r.body, platformSecret, new Date(at.getTime() + 301_000))).toBe(false)
      expect(verifySignature(r.signature, `${r.body} `, platformSecret, at)).toBe(false)
      expect(verifySignature(r.signature, r.body, 'outro-segredo-0123456789', at)).toBe(false)
      // Replaying the body with a fresh timestamp needs the secret.
      const forged = r.signature?.replace(/^t=\d+/, `t=${at.getTime() / 1000 + 600}`)
      expect(verifySignature(forged, r.body, platformSecret, new Date(at.getTime() + 600_000))).toBe(false)
    } finally {
      await t.close()
      await platform.close()
    }
  })

  it('does not follow a redirect with the signed body: the delivery fails and is retried', async () => {
    const target = await startPlatform()
    const redirecting = createServer((_req, res) => {
      res.writeHead(307, { location: target.url })
      res.end()
    })
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve))
    const address = redirecting.address()
    if (typeof address !== 'object' || !address) throw new Error('not listening')
    const t = await createTestApp({
      env: { PLATFORM_WEBHOOK_URL: `http://127.0.0.1:${address.port}/hook`, PLATFORM_WEBHOOK_SECRET: platformSecret },
    })
    try {
      await seedPlans(t.database.db)
      const customer = await insertCustomer(t.database.db)
      const sub = await insertSubscription(t.database.db, {
        userId: customer.id,
        currentPeriodEnd: new Date(t.clock.now().getTime() + 20 * day),
        updatedAt: t.clock.now(),
      })
      await runBillingTick(depsOf(t))
      expect(target.received).toEqual([])
      const events = await eventsOf(t.database.db, sub.id)
      expect(events.map((e) => [e.type, e.status, e.attempts])).toEqual([['subscription.activated', 'pending', 1]])
      expect(events[0]?.lastError).toContain('plataforma inacessível')
    } finally {
      await t.close()
      redirecting.closeAllConnections()
      await new Promise<void>((resolve) => redirecting.close(() => resolve()))
      await target.close()
    }
  })
})

describe('without a platform URL', () => {
  it('records the events as skipped', async () => {
    const t = await createTestApp()
    try {
      await seedPlans(t.database.db)
      const db = t.database.db
      const customer = await insertCustomer(db)
      const sub = await insertSubscription(db, {
        userId: customer.id,
        currentPeriodEnd: new Date(t.clock.now().getTime() + 20 * day),
        updatedAt: t.clock.now(),
      })
      await runBillingTick(depsOf(t))
      expect((await eventsOf(db, sub.id)).map((e) => [e.type, e.status])).toEqual([
        ['subscription.activated', 'skipped'],
      ])
    } finally {
      await t.close()
    }
  })
})

describe('daily card reconciliation', () => {
  it('reports drift once a day, and skips when the gateway cannot read subscriptions', async () => {
    const t = await createTestApp()
    try {
      await seedPlans(t.database.db)
      const db = t.database.db
      const now = t.clock.now()
      const customer = await insertCustomer(db)
      const periodEnd = new Date(now.getTime() + 10 * day)
      const inSync = await insertSubscription(db, {
        userId: customer.id,
        billingMethod: 'card',
        stripeSubscriptionId: 'sub_sync',
        currentPeriodEnd: periodEnd,
      })
      const drifted = await insertSubscription(db, {
        userId: customer.id,
        billingMethod: 'card',
        stripeSubscriptionId: 'sub_drift',
        currentPeriodEnd: periodEnd,
      })
      const remote: Record<string, { status: string; cancelAtPeriodEnd: boolean; currentPeriodEnd: Date }> = {
        sub_sync: { status: 'active', cancelAtPeriodEnd: false, currentPeriodEnd: periodEnd },
        sub_drift: { status: 'canceled', cancelAtPeriodEnd: false, currentPeriodEnd: periodEnd },
      }
      const base = t.app.ctx.card
      const card: CardGateway = {
        mode: base.mode,
        createCheckoutSession: (i) => base.createCheckoutSession(i),
        cancelAtPeriodEnd: (id) => base.cancelAtPeriodEnd(id),
        cancelNow: (id) => base.cancelNow(id),
        changePlan: (id, p) => base.changePlan(id, p),
        retrieveSubscription: async (id) => remote[id] ?? null,
      }
      const { log, lines } = recordingLog()
      expect((await reconcileCardSubscriptions(depsOf(t, { card, log }), now)).processed).toBe(2)
      expect(
        (await reconcileCardSubscriptions(depsOf(t, { card, log }), new Date(now.getTime() + hour))).processed,
      ).toBe(0)
      const drift = await db.select().from(auditLog).where(eq(auditLog.action, 'reconcile.drift'))
      expect(drift.map((a) => [a.entityId, (a.after as { problems: string[] }).problems])).toEqual([
        [drifted.id, ['status']],
      ])
      expect(drift.some((a) => a.entityId === inSync.id)).toBe(false)
      expect(lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual(['card reconciliation: drift'])

      const { retrieveSubscription: _, ...withoutRead } = card
      const skipped = recordingLog()
      const tomorrow = new Date(now.getTime() + 25 * hour)
      expect(
        (await reconcileCardSubscriptions(depsOf(t, { card: withoutRead, log: skipped.log }), tomorrow)).processed,
      ).toBe(0)
      expect(skipped.lines.map((l) => l.msg)).toEqual([
        'card reconciliation skipped: the card gateway cannot read subscriptions',
      ])
    } finally {
      await t.close()
    }
  })
})

describe('billing tick idempotence', () => {
  it('changes nothing when run a second time', async () => {
    const t = await createTestApp()
    try {
      const db = t.database.db
      await seedPlans(db)
      await configurePix(db)
      const now = t.clock.now()
      for (let i = 0; i < 4; i++) {
        const customer = await insertCustomer(db, { whatsapp: `558599999040${i}` })
        await insertSubscription(db, {
          userId: customer.id,
          currentPeriodEnd: new Date(now.getTime() + (i - 1) * day),
          cancelAtPeriodEnd: i === 3,
          updatedAt: now,
        })
      }
      const first = await runBillingTick(depsOf(t))
      expect(Object.values(first).some((n) => n > 0)).toBe(true)
      const snapshot = async () => ({
        subscriptions: await db.select().from(subscriptions).orderBy(asc(subscriptions.id)),
        payments: await db.select().from(payments).orderBy(asc(payments.id)),
        notifications: await db.select().from(notifications).orderBy(asc(notifications.id)),
        events: await db.select().from(platformEvents).orderBy(asc(platformEvents.seq)),
        audit: await db.select().from(auditLog).orderBy(asc(auditLog.id)),
        outbox: await readOutbox(t.outboxPath),
      })
      const before = await snapshot()
      const second = await runBillingTick(depsOf(t))
      expect(Object.values(second).every((n) => n === 0)).toBe(true)
      expect(await snapshot()).toEqual(before)
      expect(before.payments.filter((p) => p.type === 'renewal')).toHaveLength(3)
    } finally {
      await t.close()
    }
  })
})
