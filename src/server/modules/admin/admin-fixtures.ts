// Rows and helpers the admin tests start from (test-only; nothing in the app imports this file).
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { beforeAll, expect } from 'vitest'
import type { Plan } from '../../../domain/contracts/plans'
import { addDays, addMonthsAnchored } from '../../../domain/billing-period'
import type { Db } from '../../db/client'
import { profiles } from '../../db/schema/auth'
import { payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import { demoPlans } from '../../db/seed'
import { fileTestApp, lateHandle } from '../../test/http'
import type { TestApp } from '../../test/test-app'
import { createUser, origin, type TestUser } from '../../test/users'
import type { CardGateway } from '../billing/card-gateway'
import { roleIds } from '../../../domain/billing-vocabulary'

/** The file's test app (fileTestApp), the plans seeded and an admin signed in, in beforeAll. */
export function fileAdminApp(): { t: TestApp; admin: TestUser } {
  const t = fileTestApp()
  let admin: TestUser | undefined
  beforeAll(async () => {
    await seedPlans(t.database.db)
    admin = await createUser(t, { admin: true })
  })
  return { t, admin: lateHandle(() => admin, 'the admin') }
}

/** plan_basic R$ 99,00, plan_pro R$ 199,00, plan_business R$ 399,00. */
export async function seedPlans(db: Db): Promise<void> {
  await db.insert(plans).values(demoPlans).onConflictDoNothing()
}

let counter = 0

/** A profile row without an account (the lists and forms only need the row). */
export async function insertCustomer(
  db: Db,
  values: Partial<typeof profiles.$inferInsert> = {},
): Promise<typeof profiles.$inferSelect> {
  counter += 1
  const [row] = await db
    .insert(profiles)
    .values({
      id: randomUUID(),
      name: `Cliente ${counter}`,
      email: `cliente${counter}-${randomUUID().slice(0, 8)}@example.com`,
      companyName: `Empresa ${counter}`,
      whatsappNumber: `5585988${String(counter).padStart(6, '0')}`,
      roleId: roleIds.user,
      ...values,
    })
    .returning()
  if (!row) throw new Error('insert into profiles returned nothing')
  return row
}

export async function insertSubscription(
  db: Db,
  values: Partial<typeof subscriptions.$inferInsert> & { userId: string },
): Promise<typeof subscriptions.$inferSelect> {
  const start = values.currentPeriodStart ?? new Date('2026-03-01T12:00:00.000Z')
  const [row] = await db
    .insert(subscriptions)
    .values({
      id: randomUUID(),
      planId: 'plan_basic',
      status: 'active',
      currentPeriodStart: start,
      currentPeriodEnd: addMonthsAnchored(start, 1),
      anchorDay: start.getUTCDate(),
      ...values,
    })
    .returning()
  if (!row) throw new Error('insert into subscriptions returned nothing')
  return row
}

export async function insertPayment(
  db: Db,
  values: Partial<typeof payments.$inferInsert> & { subscriptionId: string },
): Promise<typeof payments.$inferSelect> {
  const createdAt = values.createdAt ?? new Date('2026-03-01T12:00:00.000Z')
  counter += 1
  const [row] = await db
    .insert(payments)
    .values({
      id: randomUUID(),
      amountCents: 9_900,
      status: 'pending_pix',
      paymentMethod: 'pix',
      type: 'new',
      dueDate: addDays(createdAt, 3),
      pixReference: `ADM${String(counter).padStart(6, '0')}${randomUUID().replaceAll('-', '').slice(0, 16)}`,
      createdAt,
      ...values,
    })
    .returning()
  if (!row) throw new Error('insert into payments returned nothing')
  return row
}

/** A valid 32-character PIX end-to-end id. */
export function e2eId(seed: string): string {
  return `E${seed.replace(/[^A-Za-z0-9]/g, '')}${'0'.repeat(31)}`.slice(0, 32)
}

/** Any method, JSON body, the Origin header cookie-authenticated writes need. */
export function send(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  options: { cookie?: string; body?: unknown } = {},
) {
  return app.inject({
    method,
    url,
    headers: { origin, ...(options.cookie ? { cookie: options.cookie } : {}) },
    ...(options.body !== undefined ? { payload: options.body as Record<string, unknown> } : {}),
  })
}

/**
 * The admin confirms a PIX payment received in full (`extra` adds fields, such as end_to_end_id): answered 200 and not
 * flagged for review.
 */
export async function confirmReceived(
  app: FastifyInstance,
  adminCookie: string,
  paymentId: string,
  amountCents: number,
  extra: Record<string, unknown> = {},
) {
  const response = await send(app, 'POST', `/api/admin/payments/${paymentId}/confirm`, {
    cookie: adminCookie,
    body: { amount_received_cents: amountCents, ...extra },
  })
  expect(response.statusCode, response.body).toBe(200)
  expect(response.json().flagged).toBe(false)
  return response
}

/** Records what the admin asks the card provider; `fail` makes cancelNow throw like a provider outage. */
export function recordingCard() {
  const state = { calls: [] as string[], fail: false }
  const gateway: CardGateway = {
    mode: 'simulator',
    createCheckoutSession: async () => ({ url: 'http://localhost/checkout', sessionId: 'cs_test' }),
    cancelAtPeriodEnd: async (id: string) => {
      state.calls.push(`cancelAtPeriodEnd:${id}`)
    },
    cancelNow: async (id: string) => {
      if (state.fail) throw new Error('provider down')
      state.calls.push(`cancelNow:${id}`)
    },
    changePlan: async (id: string, plan: Plan) => {
      state.calls.push(`changePlan:${id}:${plan.id}`)
    },
  }
  return { state, gateway }
}
