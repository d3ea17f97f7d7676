import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { asc, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectPostgres, type Database } from '../../db/client'
import { payments, subscriptions } from '../../db/schema/billing'
import { notifications, platformEvents } from '../../db/schema/lifecycle'
import { ensurePixSettingsRow } from '../../db/seed'
import { templateDatabaseName, testDatabaseUrl } from '../../test/database-url'
import { withDatabase } from '../../test/global-setup'
import { adminQuery, type ScriptRun, scriptEnv, startScript } from '../../test/scripts'
import { configurePix, seedPlans } from '../billing/test-fixtures'
import { readOutbox } from '../messaging/outbox'
import { insertCustomer, insertPayment, insertSubscription, platformSecret, startPlatform } from './lifecycle-fixtures'

// Several processes against one PostgreSQL, as in production: `npm run billing:tick` started twice at once, two
// `npm run worker` processes, and a worker killed (SIGKILL) while a webhook delivery is in flight. The processes run
// on the real clock, so the rows are placed relative to now. PGlite is one process by design: these run only with
// TEST_DATABASE_URL.

const serverUrl = testDatabaseUrl()
const day = 86_400_000

describe.skipIf(!serverUrl)('lifecycle with several processes on one PostgreSQL', () => {
  let databaseUrl: string
  let databaseName: string
  let database: Database
  let dataDir: string
  let platform: Awaited<ReturnType<typeof startPlatform>>
  /** The first delivery of each event id answers after `slowFirstMs` (the kill test sets it). */
  let slowFirstMs = 0
  const children = new Set<ChildProcess>()

  beforeAll(async () => {
    databaseName = `billing_workers_${randomBytes(6).toString('hex')}`
    await adminQuery(serverUrl ?? '', `create database ${databaseName} template ${templateDatabaseName}`)
    databaseUrl = withDatabase(serverUrl ?? '', databaseName)
    database = connectPostgres(databaseUrl, { max: 3 })
    await ensurePixSettingsRow(database.db)
    await seedPlans(database.db)
    await configurePix(database.db)
    dataDir = mkdtempSync(path.join(tmpdir(), 'billing-workers-'))
    const seen = new Set<string>()
    platform = await startPlatform((event) => {
      const first = event.eventId !== undefined && !seen.has(event.eventId)
      if (event.eventId) seen.add(event.eventId)
      return { status: 200, delayMs: first ? slowFirstMs : 0 }
    })
  })
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL')
    await database?.close()
    await platform?.close()
    if (databaseName) await adminQuery(serverUrl ?? '', `drop database if exists ${databaseName} with (force)`)
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  function env(): NodeJS.ProcessEnv {
    return scriptEnv({
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      APP_URL: 'http://localhost:3000',
      AUTH_SECRET: 'workers-test-secret-that-is-long-enough-0123456789',
      LOG_LEVEL: 'warn',
      PLATFORM_WEBHOOK_URL: platform.url,
      PLATFORM_WEBHOOK_SECRET: platformSecret,
    })
  }

  /** `startScript` with this file's environment; the child is killed in afterAll if it is still running. */
  function start(file: string): { child: ChildProcess; done: Promise<ScriptRun> } {
    const run = startScript(file, [], env())
    children.add(run.child)
    run.child.on('close', () => children.delete(run.child))
    return run
  }

  async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 90_000) {
    const deadline = Date.now() + timeoutMs
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 250))
    }
  }

  /** Work for one round: renewals due, first invoices, scheduled cancellations; each customer has WhatsApp. */
  async function seedRound(count: number) {
    const now = Date.now()
    const ids: string[] = []
    for (let i = 0; i < count; i++) {
      const customer = await insertCustomer(database.db, {
        whatsapp: `55859${String(now % 1e6).padStart(6, '0')}${i % 10}`,
      })
      const kind = i % 3
      const sub = await insertSubscription(database.db, {
        userId: customer.id,
        status: kind === 1 ? 'pending_pix' : 'active',
        cancelAtPeriodEnd: kind === 2,
        currentPeriodStart: new Date(now - 28 * day),
        currentPeriodEnd: new Date(now + (kind === 1 ? 30 : 2) * day),
        updatedAt: new Date(now),
      })
      if (kind === 1) await insertPayment(database.db, { subscriptionId: sub.id, dueDate: new Date(now + 3 * day) })
      ids.push(sub.id)
    }
    return ids
  }

  async function counts() {
    const db = database.db
    const [n] = await db.select({ n: sql<number>`count(*)::int` }).from(notifications)
    const [sent] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(notifications)
      .where(eq(notifications.status, 'sent'))
    const [events] = await db.select({ n: sql<number>`count(*)::int` }).from(platformEvents)
    const [delivered] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(platformEvents)
      .where(eq(platformEvents.status, 'delivered'))
    return { notifications: n?.n ?? 0, sent: sent?.n ?? 0, events: events?.n ?? 0, delivered: delivered?.n ?? 0 }
  }

  /** Each invoice, notification and platform event exists once, and each was sent/received exactly once. */
  async function expectEachOnce(subscriptionIds: string[]) {
    const db = database.db
    for (const id of subscriptionIds) {
      const [sub] = await db.select().from(subscriptions).where(eq(subscriptions.id, id))
      const rows = await db.select().from(payments).where(eq(payments.subscriptionId, id))
      const renewals = rows.filter((p) => p.type === 'renewal')
      expect(renewals).toHaveLength(sub?.status === 'active' && !sub.cancelAtPeriodEnd ? 1 : 0)
      const events = await db.select().from(platformEvents).where(eq(platformEvents.subscriptionId, id))
      expect(events.map((e) => e.type)).toEqual(sub?.status === 'active' ? ['subscription.activated'] : [])
    }
    const all = await db.select().from(notifications).orderBy(asc(notifications.dedupeKey))
    expect(all.every((n) => n.status === 'sent' && n.attempts === 1)).toBe(true)
    const outbox = await readOutbox(path.join(dataDir, 'outbox.jsonl'))
    expect(outbox).toHaveLength(all.length)
    const outboxKeys = outbox.map((e) => `${e.channel} ${e.to} ${e.text}`).sort()
    const rowKeys = all.map((n) => `${n.channel} ${n.recipient} ${n.body}`).sort()
    expect(outboxKeys).toEqual(rowKeys)
    const ids = platform.received.map((r) => r.eventId)
    expect(new Set(ids).size).toBe(ids.length)
  }

  it('two billing:tick processes started together create and send everything once', async () => {
    const subs = await seedRound(45)
    const [a, b] = [start('scripts/billing-tick.ts'), start('scripts/billing-tick.ts')]
    const runs = await Promise.all([a.done, b.done])
    for (const run of runs) expect(run.code, run.stderr).toBe(0)
    // Between them (whichever got which row) they issued each of the 15 renewals once.
    const renewals = runs.map((r) => Number(/renewals (\d+)/.exec(r.stdout)?.[1] ?? 0))
    expect((renewals[0] ?? 0) + (renewals[1] ?? 0)).toBe(15)
    const c = await counts()
    // 30 active (15 renewing + 15 scheduled to cancel) and 15 pending_pix, each customer with e-mail and WhatsApp.
    expect(c).toEqual({ notifications: 90, sent: 90, events: 30, delivered: 30 })
    await expectEachOnce(subs)

    // Again, both at once: nothing is left to do.
    const again = await Promise.all([start('scripts/billing-tick.ts').done, start('scripts/billing-tick.ts').done])
    for (const run of again) {
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toContain('Nada a fazer.')
    }
    expect(await counts()).toEqual(c)
    expect(platform.received).toHaveLength(30)
  }, 180_000)

  it('two workers share the queue and still create and send everything once', async () => {
    const before = await counts()
    const subs = await seedRound(12)
    const workers = [start('src/server/worker.ts'), start('src/server/worker.ts')]
    await waitFor(
      'the workers to send everything',
      async () => {
        const c = await counts()
        return (
          c.notifications === before.notifications + 24 &&
          c.sent === c.notifications &&
          c.events === before.events + 8 &&
          c.delivered === c.events
        )
      },
      120_000,
    )
    for (const w of workers) w.child.kill('SIGTERM')
    const runs = await Promise.all(workers.map((w) => w.done))
    for (const run of runs) expect(run.code, run.stderr).toBe(0)
    expect(await counts()).toEqual({
      notifications: before.notifications + 24,
      sent: before.notifications + 24,
      events: before.events + 8,
      delivered: before.events + 8,
    })
    await expectEachOnce(subs)
  }, 180_000)

  it('a worker killed during a webhook delivery loses nothing and repeats nothing it committed', async () => {
    const before = await counts()
    const receivedBefore = platform.received.length
    slowFirstMs = 60_000
    const subs = await seedRound(1) // one active subscription: a renewal, its notifications, an activated event
    const first = start('src/server/worker.ts')
    await waitFor('the platform to receive the event', () => platform.received.length === receivedBefore + 1)
    // The notifications go out on their own queue: let them finish, so that only the webhook is in flight.
    await waitFor('the notifications to be sent', async () => (await counts()).sent === before.sent + 2)
    first.child.kill('SIGKILL')
    await first.done
    const eventId = platform.received.at(-1)?.eventId

    // What committed before the kill: the renewal, its notifications (sent), the event (still pending).
    const [event] = await database.db
      .select()
      .from(platformEvents)
      .where(eq(platformEvents.id, eventId ?? ''))
    expect(event).toMatchObject({ status: 'pending', attempts: 0, subscriptionId: subs[0] })

    slowFirstMs = 0
    const second = start('src/server/worker.ts')
    await waitFor('the event to be delivered after the restart', async () => {
      const [row] = await database.db
        .select()
        .from(platformEvents)
        .where(eq(platformEvents.id, eventId ?? ''))
      return row?.status === 'delivered'
    })
    second.child.kill('SIGTERM')
    const run = await second.done
    expect(run.code, run.stderr).toBe(0)

    // At least once outside (the same event id twice), exactly once inside.
    expect(platform.received.slice(receivedBefore).map((r) => r.eventId)).toEqual([eventId, eventId])
    const [delivered] = await database.db
      .select()
      .from(platformEvents)
      .where(eq(platformEvents.id, eventId ?? ''))
    expect(delivered).toMatchObject({ status: 'delivered', attempts: 1, lastError: null })
    expect(await counts()).toEqual({
      notifications: before.notifications + 2,
      sent: before.notifications + 2,
      events: before.events + 1,
      delivered: before.delivered + 1,
    })
    const rows = await database.db
      .select()
      .from(payments)
      .where(eq(payments.subscriptionId, subs[0] ?? ''))
    expect(rows.map((p) => p.type)).toEqual(['renewal'])
    const outbox = await readOutbox(path.join(dataDir, 'outbox.jsonl'))
    expect(outbox).toHaveLength(before.notifications + 2)
  }, 240_000)
})
