// Rows and helpers the lifecycle tests start from (test-only; nothing in the app imports this file).
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { asc, eq } from 'drizzle-orm'
import { beforeAll } from 'vitest'
import type { Db } from '../../db/client'
import { profiles } from '../../db/schema/auth'
import { payments, subscriptions } from '../../db/schema/billing'
import { notifications, platformEvents } from '../../db/schema/lifecycle'
import { fileTestApp } from '../../test/http'
import type { createTestApp, TestApp } from '../../test/test-app'
import { configurePix, seedPlans } from '../billing/test-fixtures'
import type { LifecycleDeps, LifecycleLog } from './pass-runner'

export const silentLog: LifecycleLog = { info: () => {}, warn: () => {}, error: () => {} }

/** A log that keeps what was written, for tests that assert warnings. */
export function recordingLog() {
  const lines: { level: 'info' | 'warn' | 'error'; obj: object; msg: string }[] = []
  const log: LifecycleLog = {
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
  }
  return { log, lines }
}

/** A test app for the file or describe block (fileTestApp), with the demo plans and PIX configured. */
export function billingTestApp(options?: Parameters<typeof createTestApp>[0]): TestApp {
  const t = fileTestApp(options)
  beforeAll(async () => {
    await seedPlans(t.database.db)
    await configurePix(t.database.db)
  })
  return t
}

export function depsOf(t: TestApp, overrides: Partial<LifecycleDeps> = {}): LifecycleDeps {
  return { ...t.app.ctx, log: silentLog, ...overrides }
}

let counter = 0
/** A customer row (no login): enough for the lifecycle, which only reads name, e-mail, company and WhatsApp. */
export async function insertCustomer(
  db: Db,
  options: { whatsapp?: string; name?: string; company?: string } = {},
): Promise<typeof profiles.$inferSelect> {
  counter += 1
  const id = randomUUID()
  const [row] = await db
    .insert(profiles)
    .values({
      id,
      name: options.name ?? `Cliente ${counter}`,
      email: `cliente-${id.slice(0, 8)}@example.com`,
      emailVerified: true,
      companyName: options.company ?? `Empresa ${counter}`,
      whatsappNumber: options.whatsapp ?? '',
    })
    .returning()
  if (!row) throw new Error('insert failed')
  return row
}

export async function insertSubscription(
  db: Db,
  values: Partial<typeof subscriptions.$inferInsert> & { userId: string; currentPeriodEnd: Date },
): Promise<typeof subscriptions.$inferSelect> {
  const start = values.currentPeriodStart ?? new Date(values.currentPeriodEnd.getTime() - 30 * 86_400_000)
  const [row] = await db
    .insert(subscriptions)
    .values({
      id: randomUUID(),
      planId: 'plan_pro',
      status: 'active',
      billingMethod: 'pix',
      anchorDay: start.getUTCDate(),
      createdAt: start,
      updatedAt: start,
      ...values,
      currentPeriodStart: start,
    })
    .returning()
  if (!row) throw new Error('insert failed')
  return row
}

export async function insertPayment(
  db: Db,
  values: Partial<typeof payments.$inferInsert> & { subscriptionId: string; dueDate: Date },
): Promise<typeof payments.$inferSelect> {
  const [row] = await db
    .insert(payments)
    .values({
      id: randomUUID(),
      amountCents: 19_900,
      status: 'pending_pix',
      paymentMethod: 'pix',
      type: 'new',
      metadata: { type: values.type ?? 'new' },
      pixReference: `ASS${randomUUID().replaceAll('-', '').slice(0, 22)}`,
      createdAt: values.dueDate,
      updatedAt: values.dueDate,
      ...values,
    })
    .returning()
  if (!row) throw new Error('insert failed')
  return row
}

export function notificationsOf(db: Db, userId: string) {
  return db
    .select()
    .from(notifications)
    .where(eq(notifications.userId, userId))
    .orderBy(asc(notifications.createdAt), asc(notifications.dedupeKey))
}

export function eventsOf(db: Db, subscriptionId: string) {
  return db
    .select()
    .from(platformEvents)
    .where(eq(platformEvents.subscriptionId, subscriptionId))
    .orderBy(asc(platformEvents.seq))
}

export type ReceivedEvent = { body: string; signature: string | undefined; eventId: string | undefined }

/**
 * A local chat platform: records each webhook request and answers with what `respond` decides (status, delay).
 * `received` keeps every request, including those answered with an error.
 */
export async function startPlatform(
  respond: (event: ReceivedEvent, index: number) => { status: number; delayMs?: number } = () => ({ status: 200 }),
) {
  const received: ReceivedEvent[] = []
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const event: ReceivedEvent = {
        body: Buffer.concat(chunks).toString('utf8'),
        signature: req.headers['x-signature'] as string | undefined,
        eventId: req.headers['x-event-id'] as string | undefined,
      }
      received.push(event)
      const { status, delayMs = 0 } = respond(event, received.length - 1)
      setTimeout(() => {
        res.statusCode = status
        res.end(status < 300 ? 'ok' : 'erro')
      }, delayMs)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (typeof address !== 'object' || address === null) throw new Error('platform is not listening on TCP')
  return {
    url: `http://127.0.0.1:${address.port}/webhooks/billing`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export const platformSecret = 'segredo-da-plataforma-0123456789'

/** The instant an X-Signature header says it was signed (its `t=`). */
export function signedAt(header: string | undefined): Date {
  const t = /(?:^|,)t=(\d+)/.exec(header ?? '')?.[1]
  if (!t) throw new Error(`no timestamp in the signature ${header}`)
  return new Date(Number(t) * 1000)
}
