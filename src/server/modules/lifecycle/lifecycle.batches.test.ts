import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { payments, subscriptions } from '../../db/schema/billing'
import { notifications } from '../../db/schema/lifecycle'
import { auditLog } from '../../db/schema/platform'
import { testDatabaseUrl } from '../../test/database-url'
import { startSmtp, type TestSmtp } from '../../test/smtp'
import { TestClock } from '../../test/test-app'
import { audit, auditMany, systemActor } from '../audit/audit'
import { issuePixInvoice, issuePixRenewals } from '../billing/pix-invoice'
import { billingTestApp, depsOf, insertCustomer, insertPayment, insertSubscription } from './lifecycle-fixtures'
import { readOutbox } from '../messaging/outbox'
import { runBillingTick } from './lifecycle.service'
import { renderInvoicesCreated } from './notifications.render'
import { cancelOverdue, markOverdue } from './period-end.service'
import { deliverNotifications, enqueueMany } from './notifications.service'
import { claimBatchSize } from './pass-runner'
import { createRenewalInvoices } from './renewals.service'

// The passes' batch statements (one JSON parameter for all the rows, db/json-rows.ts) write the same rows as the
// one-row statements (drizzle's values()), and keep their ON CONFLICT rules.
describe('batch inserts of the billing passes', () => {
  const clock = new TestClock(new Date('2026-03-10T12:00:00.000Z'))
  const t = billingTestApp({ clock })

  it('issues renewal invoices in a batch exactly as one by one, once per subscription and due date', async () => {
    const db = t.database.db
    const now = clock.now()
    const customer = await insertCustomer(db)
    const end = new Date('2026-03-12T12:00:00.000Z')
    const [a, b, c] = await Promise.all(
      [0, 1, 2].map(() => insertSubscription(db, { userId: customer.id, currentPeriodEnd: end })),
    )
    if (!a || !b || !c) throw new Error('subscriptions missing')
    const input = (subscriptionId: string) => ({
      subscriptionId,
      type: 'renewal' as const,
      amountCents: 19_900,
      dueDate: end,
      now,
    })
    const single = await db.transaction((tx) => issuePixInvoice(tx, { ...input(a.id), oncePerPeriod: true }))
    const issued = await db.transaction((tx) => issuePixRenewals(tx, [input(b.id), input(a.id), input(c.id)]))
    expect(issued.map((p) => p.subscriptionId)).toEqual([b.id, c.id]) // a's was issued already
    expect(issued.every((p) => p.amountCents === 19_900 && p.dueDate.getTime() === end.getTime())).toBe(true)
    expect(await db.transaction((tx) => issuePixRenewals(tx, [input(b.id), input(c.id)]))).toEqual([])

    const rows = await db
      .select()
      .from(payments)
      .where(inArray(payments.subscriptionId, [a.id, b.id, c.id]))
      .orderBy(asc(payments.createdAt))
    expect(rows).toHaveLength(3)
    const { id, subscriptionId, pixReference, ...fields } = single ?? rows[0]!
    for (const row of rows.filter((r) => r.subscriptionId !== a.id)) {
      expect(issued.some((p) => p.id === row.id)).toBe(true)
      expect(row.pixReference).toMatch(/^REN[A-Za-z0-9]{22}$/)
      const { id: _id, subscriptionId: _sub, pixReference: _ref, ...rest } = row
      expect(rest).toEqual(fields)
    }
    expect([id, subscriptionId, pixReference]).toEqual([single?.id, a.id, single?.pixReference])
    const metadata = await db
      .select({ type: sql<string>`jsonb_typeof(${payments.metadata})` })
      .from(payments)
      .where(inArray(payments.subscriptionId, [a.id, b.id, c.id]))
    expect(metadata).toEqual([{ type: 'object' }, { type: 'object' }, { type: 'object' }])
  })

  it('writes a batch of audit rows exactly as audit() one by one, in the given order', async () => {
    const db = t.database.db
    const actor = systemActor('billing')
    const change = (n: number) => ({
      before: { status: 'active', n, nested: { list: [1, 'dois', null], quote: `"aspas" e \\ barra` } },
      after: { status: 'past_due', name: 'João Ção', by: 'billing' },
    })
    await db.transaction((tx) => audit(tx, actor, 'batch.test', 'subscription', 'single', change(0)))
    await db.transaction((tx) =>
      auditMany(tx, actor, [
        { action: 'batch.test', entity: 'subscription', entityId: 'first', ...change(0) },
        { action: 'batch.test', entity: 'subscription', entityId: 'second', ...change(2) },
        { action: 'batch.test', entity: 'subscription', entityId: 'third' }, // no change: after is { by }
      ]),
    )
    const rows = await db.select().from(auditLog).where(eq(auditLog.action, 'batch.test')).orderBy(asc(auditLog.id))
    expect(rows.map((r) => r.entityId)).toEqual(['single', 'first', 'second', 'third'])
    const strip = ({ id: _id, entityId: _e, createdAt: _c, ...rest }: (typeof rows)[number]) => rest
    const [single, first, second, third] = rows.map(strip)
    expect(first).toEqual(single)
    expect(second).toEqual({ ...single, before: change(2).before })
    expect(third).toEqual({ ...single, before: null, after: { by: 'billing' } })
    expect(rows.every((r) => r.createdAt instanceof Date && r.actorId === null)).toBe(true)
    // Stored as JSON objects, not as strings holding JSON (drizzle would parse either back into the same object).
    const types = await db
      .select({
        before: sql<string>`jsonb_typeof(${auditLog.before})`,
        after: sql<string>`jsonb_typeof(${auditLog.after})`,
      })
      .from(auditLog)
      .where(eq(auditLog.action, 'batch.test'))
      .orderBy(asc(auditLog.id))
    expect(types).toEqual([
      { before: 'object', after: 'object' },
      { before: 'object', after: 'object' },
      { before: 'object', after: 'object' },
      { before: null, after: 'object' },
    ])
  })

  it('enqueues a batch of notifications with the rendered messages, each dedupe key once', async () => {
    const db = t.database.db
    const now = clock.now()
    const withPhone = await insertCustomer(db, { whatsapp: '5585999990301', name: 'Ana Lote' })
    const withoutPhone = await insertCustomer(db, { name: 'Bruno Lote' })
    const end = new Date('2026-03-13T12:00:00.000Z')
    const subs = [
      await insertSubscription(db, { userId: withPhone.id, currentPeriodEnd: end }),
      await insertSubscription(db, { userId: withoutPhone.id, currentPeriodEnd: end }),
    ]
    const issued = await db.transaction((tx) =>
      issuePixRenewals(
        tx,
        subs.map((s) => ({ subscriptionId: s.id, type: 'renewal' as const, amountCents: 19_900, dueDate: end, now })),
      ),
    )
    const ids = issued.map((p) => p.id)
    const rendered = await db.transaction((tx) => renderInvoicesCreated(tx, depsOf(t), ids))
    expect(rendered).toHaveLength(2)
    expect(await db.transaction((tx) => enqueueMany(tx, now, rendered))).toBe(3) // e-mail twice, WhatsApp once
    expect(await db.transaction((tx) => enqueueMany(tx, now, rendered))).toBe(0)

    const rows = await db
      .select()
      .from(notifications)
      .where(inArray(notifications.paymentId, ids))
      .orderBy(asc(notifications.dedupeKey))
    expect(rows).toHaveLength(3)
    for (const event of rendered) {
      const email = rows.find((r) => r.dedupeKey === `invoice_created:${event.ref}:email`)
      expect(email).toMatchObject({
        kind: 'invoice_created',
        channel: 'email',
        userId: event.user.id,
        subscriptionId: event.subscriptionId,
        paymentId: event.paymentId,
        recipient: event.user.email,
        subject: event.message.subject,
        body: event.message.text,
        html: null, // made from the subject and text when sent
        template: null,
        status: 'pending',
        attempts: 0,
        lastError: null,
        sentAt: null,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      })
      const whatsapp = rows.find((r) => r.dedupeKey === `invoice_created:${event.ref}:whatsapp`)
      if (event.user.whatsappNumber) {
        expect(whatsapp).toMatchObject({
          channel: 'whatsapp',
          recipient: event.user.whatsappNumber,
          subject: null,
          body: event.message.whatsapp,
          html: null,
          template: event.message.template,
          status: 'pending',
          nextAttemptAt: now,
        })
        const [stored] = await db
          .select({ type: sql<string>`jsonb_typeof(${notifications.template})` })
          .from(notifications)
          .where(eq(notifications.id, whatsapp?.id ?? ''))
        expect(stored?.type).toBe('object')
      } else expect(whatsapp).toBeUndefined()
    }
  })

  it('moves a batch to past_due and cancels it, each subscription at its own instant', async () => {
    const db = t.database.db
    const customer = await insertCustomer(db)
    const ends = ['2026-04-01T12:00:00.000Z', '2026-04-02T15:30:00.000Z'].map((d) => new Date(d))
    const subs = await Promise.all(
      ends.map((end) => insertSubscription(db, { userId: customer.id, currentPeriodEnd: end })),
    )
    const invoices = []
    for (const s of subs)
      invoices.push(await insertPayment(db, { subscriptionId: s.id, type: 'renewal', dueDate: s.currentPeriodEnd }))
    const ids = subs.map((s) => s.id)
    const read = () =>
      db.select().from(subscriptions).where(inArray(subscriptions.id, ids)).orderBy(asc(subscriptions.currentPeriodEnd))

    clock.set('2026-04-03T12:00:00.000Z')
    await markOverdue(depsOf(t), clock.now())
    expect((await read()).map((s) => [s.status, s.updatedAt])).toEqual([
      ['past_due', clock.now()],
      ['past_due', clock.now()],
    ])

    clock.set('2026-04-10T12:00:00.000Z')
    await cancelOverdue(depsOf(t), clock.now())
    expect((await read()).map((s) => [s.status, s.canceledAt, s.updatedAt])).toEqual([
      ['canceled', new Date('2026-04-08T12:00:00.000Z'), clock.now()],
      ['canceled', new Date('2026-04-09T15:30:00.000Z'), clock.now()],
    ])
    const audits = await db.select().from(auditLog).where(inArray(auditLog.entityId, ids)).orderBy(asc(auditLog.id))
    expect(audits.map((a) => [a.action, a.entityId])).toEqual([
      ['subscription.past_due', ids[0]],
      ['subscription.past_due', ids[1]],
      ['subscription.canceled_overdue', ids[0]],
      ['subscription.canceled_overdue', ids[1]],
    ])
    // In one batch, each cancellation's audit names its own voided invoice and no other.
    expect(audits.slice(2).map((a) => (a.after as { voidedPaymentIds: string[] }).voidedPaymentIds)).toEqual(
      invoices.map((p) => [p.id]),
    )
  })
})

// On PostgreSQL a pass runs BILLING_PASS_CONCURRENCY transactions at once, each claiming its own batch
// (pass-runner.ts): with batches of 3, eleven subscriptions take four claims shared by two transactions, and every
// one is handled once and counted once. PGlite runs one (batches of one row).
describe('a pass in concurrent batches', () => {
  const clock = new TestClock(new Date('2026-05-01T12:00:00.000Z'))
  const t = billingTestApp({ clock, env: { BILLING_PASS_CONCURRENCY: '2' } })
  const batch = claimBatchSize.postgres

  beforeAll(() => {
    claimBatchSize.postgres = 3
  })
  afterAll(() => {
    claimBatchSize.postgres = batch
  })

  it('issues each renewal once and marks each subscription overdue once, and counts each one', async () => {
    expect(t.app.ctx.config.BILLING_PASS_CONCURRENCY).toBe(2)
    const db = t.database.db
    const subs = []
    for (let i = 0; i < 11; i += 1) {
      const customer = await insertCustomer(db)
      const end = new Date(Date.UTC(2026, 4, 2, 12, i))
      subs.push(await insertSubscription(db, { userId: customer.id, currentPeriodEnd: end }))
    }
    const ids = subs.map((s) => s.id)
    const renewals = () =>
      db
        .select({ subscriptionId: payments.subscriptionId, dueDate: payments.dueDate, status: payments.status })
        .from(payments)
        .where(inArray(payments.subscriptionId, ids))
        .orderBy(asc(payments.subscriptionId))

    expect((await createRenewalInvoices(depsOf(t), clock.now())).processed).toBe(11)
    const issued = await renewals()
    expect(issued.map((p) => p.subscriptionId)).toEqual([...ids].sort())
    for (const p of issued) {
      expect(p.status).toBe('pending_pix')
      expect(p.dueDate).toEqual(subs.find((s) => s.id === p.subscriptionId)?.currentPeriodEnd)
    }
    const created = await db
      .select({ paymentId: notifications.paymentId })
      .from(notifications)
      .where(inArray(notifications.subscriptionId, ids))
    expect(created).toHaveLength(11)
    expect((await createRenewalInvoices(depsOf(t), clock.now())).processed).toBe(0)
    expect(await renewals()).toHaveLength(11)

    clock.set('2026-05-03T12:00:00.000Z')
    expect((await markOverdue(depsOf(t), clock.now())).processed).toBe(11)
    const after = await db.select().from(subscriptions).where(inArray(subscriptions.id, ids))
    expect(after.every((s) => s.status === 'past_due')).toBe(true)
    const audits = await db
      .select({ entityId: auditLog.entityId })
      .from(auditLog)
      .where(and(inArray(auditLog.entityId, ids), eq(auditLog.action, 'subscription.past_due')))
    expect(audits.map((a) => a.entityId).sort()).toEqual([...ids].sort())
  })
})

// A backlog is walked in id order (pass-runner.ts, claimCursor): the first batch is the longest due, and once a claim
// comes back full the rest follows the subscriptions' ids, each handled once. Batches of 3, one at a time, so that the
// audit rows' order is the claims' order. PGlite's one-row batches never switch: PostgreSQL only.
describe.runIf(testDatabaseUrl())('a backlog in id order', () => {
  const clock = new TestClock(new Date('2026-06-01T12:00:00.000Z'))
  const t = billingTestApp({ clock, env: { BILLING_PASS_CONCURRENCY: '1' } })
  const batch = claimBatchSize.postgres

  beforeAll(() => {
    claimBatchSize.postgres = 3
  })
  afterAll(() => {
    claimBatchSize.postgres = batch
  })

  it('claims the longest due first, then the rest of the backlog by id, each subscription once', async () => {
    const db = t.database.db
    const subs = []
    for (let i = 0; i < 8; i += 1) {
      const customer = await insertCustomer(db)
      subs.push(
        await insertSubscription(db, { userId: customer.id, currentPeriodEnd: new Date(Date.UTC(2026, 5, 3, i)) }),
      )
    }
    const byEnd = [...subs].sort((a, b) => a.currentPeriodEnd.getTime() - b.currentPeriodEnd.getTime())
    const firstBatch = byEnd.slice(0, 3).map((s) => s.id)
    const rest = byEnd
      .slice(3)
      .map((s) => s.id)
      .sort()

    expect((await createRenewalInvoices(depsOf(t), clock.now())).processed).toBe(8)
    const audits = await db
      .select({ subscriptionId: sql<string>`${auditLog.after}->>'subscriptionId'` })
      .from(auditLog)
      .where(eq(auditLog.action, 'payment.renewal_invoice'))
      .orderBy(asc(auditLog.id))
    const order = audits.map((a) => a.subscriptionId)
    expect(order.slice(0, 3).sort()).toEqual([...firstBatch].sort())
    expect(order.slice(3)).toEqual(rest)
    const issued = await db
      .select({ subscriptionId: payments.subscriptionId })
      .from(payments)
      .where(
        and(
          inArray(
            payments.subscriptionId,
            subs.map((s) => s.id),
          ),
          eq(payments.type, 'renewal'),
        ),
      )
    expect(issued.map((p) => p.subscriptionId).sort()).toEqual(subs.map((s) => s.id).sort())
    expect((await createRenewalInvoices(depsOf(t), clock.now())).processed).toBe(0)
  })
})

// A subscription is overdue on an invoice it was sent: when the renewal pass stopped at its budget with a backlog
// (the worker was down past the renewal lead), the overdue pass leaves the subscriptions it still owes a renewal, and
// the next tick issues the renewal first (already due), which marks them overdue in the same batch (static PIX).
describe('overdue after the renewal', () => {
  const clock = new TestClock(new Date('2026-07-10T12:00:00.000Z'))
  const t = billingTestApp({ clock })

  it('never marks overdue a subscription whose renewal was not issued; the renewal comes first', async () => {
    const db = t.database.db
    const customer = await insertCustomer(db)
    const end = new Date('2026-07-05T12:00:00.000Z') // ended 5 days ago, no renewal issued (worker down)
    const sub = await insertSubscription(db, { userId: customer.id, currentPeriodEnd: end })
    const state = async () => ({
      status: (await db.select().from(subscriptions).where(eq(subscriptions.id, sub.id)))[0]?.status,
      invoices: await db
        .select({ type: payments.type, status: payments.status, dueDate: payments.dueDate })
        .from(payments)
        .where(eq(payments.subscriptionId, sub.id)),
      notices: (await db.select().from(notifications).where(eq(notifications.subscriptionId, sub.id))).map(
        (n) => n.kind,
      ),
    })

    expect((await markOverdue(depsOf(t), clock.now())).processed).toBe(0)
    expect(await state()).toEqual({ status: 'active', invoices: [], notices: [] })

    expect((await createRenewalInvoices(depsOf(t), clock.now())).processed).toBe(1)
    const after = await state()
    expect(after.status).toBe('past_due')
    expect(after.invoices).toEqual([{ type: 'renewal', status: 'pending_pix', dueDate: end }])
    // Issued already due: the overdue message announces it (with its code), not an invoice_created one of its own.
    expect(after.notices).toEqual(['overdue'])
    const audits = await db
      .select({ action: auditLog.action, entityId: auditLog.entityId, after: auditLog.after })
      .from(auditLog)
      .where(inArray(auditLog.action, ['payment.renewal_invoice', 'subscription.past_due']))
      .orderBy(asc(auditLog.id))
    expect(audits.map((a) => a.action)).toEqual(['payment.renewal_invoice', 'subscription.past_due'])
    expect(audits[1]).toMatchObject({ entityId: sub.id, after: { status: 'past_due', by: 'billing' } })
    // The overdue pass finds it done: one transition, one audit row, one message per channel.
    expect((await markOverdue(depsOf(t), clock.now())).processed).toBe(0)
    expect(await state()).toEqual(after)
  })

  it('gives a renewal issued late the whole grace from its issue: no cancellation in the minute it is sent', async () => {
    clock.set('2026-07-20T12:00:00.000Z')
    const db = t.database.db
    const customer = await insertCustomer(db, { name: 'Rita Retomada' })
    const end = new Date('2026-07-10T12:00:00.000Z') // ended 10 days ago, past the 7 days of grace: worker down
    const sub = await insertSubscription(db, { userId: customer.id, currentPeriodEnd: end })
    const row = async () => (await db.select().from(subscriptions).where(eq(subscriptions.id, sub.id)))[0]

    const report = await runBillingTick(depsOf(t))
    expect([report.renewals, report.overdue]).toEqual([1, 0]) // overdue in the renewal's batch
    expect(await row()).toMatchObject({ status: 'past_due', canceledAt: null })
    // One message for the late invoice, even after the detection passes: the overdue one, with the invoice's code.
    const sent = (await readOutbox(t.outboxPath)).filter((e) => e.to === customer.email)
    expect(sent.map((e) => e.subject)).toEqual(['Assinatura vencida'])
    expect(sent[0]?.text).toContain('Regularize até 27/07/2026 para que ela não seja cancelada.')
    expect(sent[0]?.text).toMatch(/^000201.*6304[0-9A-F]{4}$/m)

    clock.set('2026-07-27T11:59:00.000Z')
    await runBillingTick(depsOf(t))
    expect((await row())?.status).toBe('past_due')

    clock.set('2026-07-27T12:00:00.000Z')
    expect((await runBillingTick(depsOf(t))).overdue_cancellations).toBe(1)
    expect(await row()).toMatchObject({ status: 'canceled', canceledAt: new Date('2026-07-27T12:00:00.000Z') })
    const invoices = await db.select().from(payments).where(eq(payments.subscriptionId, sub.id))
    expect(invoices.map((p) => [p.type, p.status, p.dueDate])).toEqual([['renewal', 'void', end]])
  })
})

// A cancellation gives way to a payment someone else is confirming (an admin, a provider's callback: they lock the
// payment, then the subscription), and only to an unsettled one: a past invoice (paid) held elsewhere, a refund
// say, does not stop it, and the pass locks none of the settled ones. It needs a second connection: PostgreSQL.
describe.runIf(testDatabaseUrl())('a cancellation and the payments others hold', () => {
  const clock = new TestClock(new Date('2026-08-20T12:00:00.000Z'))
  const t = billingTestApp({ clock })

  /** Runs `during` while another transaction holds the payment `paymentId` FOR UPDATE. */
  async function whileHeld<T>(paymentId: string, during: () => Promise<T>): Promise<T> {
    let release = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    let holding = () => {}
    const held = new Promise<void>((resolve) => {
      holding = resolve
    })
    const holder = t.database.db.transaction(async (tx) => {
      await tx.select({ id: payments.id }).from(payments).where(eq(payments.id, paymentId)).for('update')
      holding()
      await released
    })
    await held
    try {
      return await during()
    } finally {
      release()
      await holder
    }
  }

  it('leaves out a subscription whose open invoice is held, cancels it once released, and locks no paid one', async () => {
    const db = t.database.db
    const customer = await insertCustomer(db)
    const end = new Date('2026-08-10T12:00:00.000Z')
    const sub = await insertSubscription(db, { userId: customer.id, currentPeriodEnd: end, status: 'past_due' })
    const paid = await insertPayment(db, {
      subscriptionId: sub.id,
      status: 'paid',
      type: 'new',
      dueDate: new Date('2026-07-11T12:00:00.000Z'),
      paidAt: new Date('2026-07-11T12:00:00.000Z'),
    })
    const renewal = await insertPayment(db, { subscriptionId: sub.id, type: 'renewal', dueDate: end })
    const state = async () => ({
      subscription: (await db.select().from(subscriptions).where(eq(subscriptions.id, sub.id)))[0]?.status,
      payments: (
        await db
          .select({ id: payments.id, status: payments.status })
          .from(payments)
          .where(eq(payments.subscriptionId, sub.id))
          .orderBy(asc(payments.dueDate))
      ).map((p) => [p.id, p.status]),
    })

    // The open renewal is being confirmed elsewhere: the pass gives way and changes nothing.
    expect(await whileHeld(renewal.id, () => cancelOverdue(depsOf(t), clock.now()))).toEqual({ processed: 0 })
    expect(await state()).toEqual({
      subscription: 'past_due',
      payments: [
        [paid.id, 'paid'],
        [renewal.id, 'pending_pix'],
      ],
    })

    // A paid invoice held elsewhere does not stop it (the pass never waits for it, nor locks it).
    expect(await whileHeld(paid.id, () => cancelOverdue(depsOf(t), clock.now()))).toEqual({ processed: 1 })
    expect(await state()).toEqual({
      subscription: 'canceled',
      payments: [
        [paid.id, 'paid'],
        [renewal.id, 'void'],
      ],
    })
  })
})

/** The text/html part of a raw MIME message as sent over SMTP, its transfer encoding and CRLF line ends undone. */
function htmlPartOf(raw: string): string {
  const part = /Content-Type: text\/html[^\r\n]*\r?\n((?:[^\r\n]+\r?\n)*)\r?\n([\s\S]*?)\r?\n--/i.exec(raw)
  if (!part) throw new Error('no text/html part')
  const [, headers = '', body = ''] = part
  const lf = (text: string) => text.replace(/\r\n/g, '\n')
  if (/Content-Transfer-Encoding: base64/i.test(headers)) return lf(Buffer.from(body, 'base64').toString('utf8'))
  if (!/Content-Transfer-Encoding: quoted-printable/i.test(headers)) return lf(body)
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
  return lf(Buffer.from(bytes, 'latin1').toString('utf8'))
}

// The outbox keeps a billing e-mail's subject and text; its HTML (a third of what a pass wrote) is made again from
// them when it is sent. Over a real SMTP peer, the HTML that leaves is the one rendered at enqueue time.
describe('a billing e-mail sent with the HTML made from its text', () => {
  let smtp: TestSmtp
  const clock = new TestClock(new Date('2026-09-01T12:00:00.000Z'))
  beforeAll(async () => {
    smtp = await startSmtp()
    await smtp.mode('ok')
  })
  afterAll(async () => {
    await smtp.close()
  })
  // The app reads SMTP_URL when it starts, after the SMTP peer above.
  const t = billingTestApp({
    clock,
    get env() {
      return { SMTP_URL: smtp.url }
    },
  })

  it('stores no HTML and sends the HTML of the rendered message, escaped, a paragraph each', async () => {
    const db = t.database.db
    const customer = await insertCustomer(db, { name: 'Ana <b>&</b> Filhos' })
    const end = new Date('2026-09-03T12:00:00.000Z')
    const sub = await insertSubscription(db, { userId: customer.id, currentPeriodEnd: end })
    const now = clock.now()
    const rendered = await db.transaction(async (tx) => {
      const [issued] = await issuePixRenewals(tx, [
        { subscriptionId: sub.id, type: 'renewal', amountCents: 19_900, dueDate: end, now },
      ])
      const events = await renderInvoicesCreated(tx, depsOf(t), [issued?.id ?? ''])
      await enqueueMany(tx, now, events)
      return events[0]
    })
    if (!rendered) throw new Error('nothing rendered')
    const [row] = await db.select().from(notifications).where(eq(notifications.userId, customer.id))
    expect(row).toMatchObject({ channel: 'email', html: null, body: rendered.message.text })

    await deliverNotifications(depsOf(t), now)
    const [mail] = smtp.received.filter((m) => m.to.includes(customer.email))
    const html = htmlPartOf(mail?.raw ?? '')
    expect(html).toBe(rendered.message.html)
    expect(html).toContain('<p>Olá, Ana &lt;b&gt;&amp;&lt;/b&gt; Filhos!</p>')
    expect(html).toMatch(/<p>Código PIX copia e cola:<br>000201[^<]+<\/p>/)
    expect(html.match(/<p>/g)).toHaveLength(rendered.message.text.trimEnd().split('\n\n').length)
  })
})
