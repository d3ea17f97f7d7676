import { randomUUID } from 'node:crypto'
import { eq, inArray } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { accounts, profiles, sessions } from '../../db/schema/auth'
import { notifications } from '../../db/schema/lifecycle'
import { auditLog, rateLimits, whatsappVerifications } from '../../db/schema/platform'
import { createTestApp, type TestApp, TestClock } from '../../test/test-app'
import { seedPlans } from '../billing/test-fixtures'
import { depsOf, insertCustomer, insertSubscription } from './lifecycle-fixtures'
import { runBillingTick } from './lifecycle.service'

const day = 86_400_000
const hour = 3_600_000
const clock = new TestClock(new Date('2026-03-10T12:00:00.000Z'))
let t: TestApp

beforeAll(async () => {
  t = await createTestApp({ clock })
  await seedPlans(t.database.db)
})
afterAll(async () => {
  await t.close()
})

/** A customer signed up `ageMs` ago, verified or not, with a session and a password account. */
async function signedUp(ageMs: number, verified: boolean, roleId = 2) {
  const db = t.database.db
  const user = await insertCustomer(db)
  const createdAt = new Date(clock.now().getTime() - ageMs)
  await db.update(profiles).set({ emailVerified: verified, createdAt, roleId }).where(eq(profiles.id, user.id))
  await db.insert(sessions).values({
    id: randomUUID(),
    token: randomUUID(),
    userId: user.id,
    expiresAt: new Date(clock.now().getTime() + day),
  })
  await db
    .insert(accounts)
    .values({ id: randomUUID(), accountId: user.id, providerId: 'credential', userId: user.id, password: 'x' })
  return user
}

it('the billing tick prunes old rate-limit windows and WhatsApp codes and removes stale unverified sign-ups', async () => {
  const db = t.database.db
  const now = clock.now()
  await db.insert(rateLimits).values([
    { key: 'sign-in:ip:old', windowStart: new Date(now.getTime() - 25 * hour), count: 3 },
    { key: 'sign-in:ip:recent', windowStart: new Date(now.getTime() - 2 * hour), count: 1 },
  ])
  const oldCode = randomUUID()
  const recentCode = randomUUID()
  await db.insert(whatsappVerifications).values([
    {
      id: oldCode,
      phoneNumber: '5585999990001',
      codeHash: 'h',
      createdAt: new Date(now.getTime() - 8 * day),
      expiresAt: new Date(now.getTime() - 8 * day + 600_000),
    },
    {
      id: recentCode,
      phoneNumber: '5585999990002',
      codeHash: 'h',
      createdAt: new Date(now.getTime() - day),
      expiresAt: new Date(now.getTime() - day + 600_000),
    },
  ])
  const stale = await signedUp(8 * day, false)
  const young = await signedUp(6 * day, false)
  const verified = await signedUp(30 * day, true)
  const staleAdmin = await signedUp(30 * day, false, 1)
  const staleWithSubscription = await signedUp(30 * day, false)
  await insertSubscription(db, {
    userId: staleWithSubscription.id,
    status: 'canceled',
    currentPeriodEnd: new Date(now.getTime() - 20 * day),
  })

  // A message for each of two unverified sign-ups: the removed account's goes with it (no foreign key since
  // migration 0026: deleteProfiles deletes it), the young one's stays.
  const message = (userId: string) => ({
    id: randomUUID(),
    dedupeKey: `test:${userId}:email`,
    kind: 'test',
    channel: 'email' as const,
    userId,
    recipient: `${userId}@example.com`,
    body: 'Olá',
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  })
  await db.insert(notifications).values([message(stale.id), message(young.id)])

  const report = await runBillingTick(depsOf(t))
  expect(report.maintenance).toBe(1)
  const messages = await db
    .select({ userId: notifications.userId })
    .from(notifications)
    .where(inArray(notifications.userId, [stale.id, young.id]))
  expect(messages.map((m) => m.userId)).toEqual([young.id])

  expect((await db.select().from(rateLimits)).map((r) => r.key)).toEqual(['sign-in:ip:recent'])
  expect((await db.select().from(whatsappVerifications)).map((r) => r.id)).toEqual([recentCode])
  const ids = [stale.id, young.id, verified.id, staleAdmin.id, staleWithSubscription.id]
  const left = (await db.select({ id: profiles.id }).from(profiles).where(inArray(profiles.id, ids))).map((p) => p.id)
  expect(left.sort()).toEqual([young.id, verified.id, staleAdmin.id, staleWithSubscription.id].sort())
  expect(await db.select().from(sessions).where(eq(sessions.userId, stale.id))).toEqual([])
  expect(await db.select().from(accounts).where(eq(accounts.userId, stale.id))).toEqual([])
  expect((await db.select().from(sessions).where(eq(sessions.userId, young.id))).length).toBe(1)
  const audits = await db.select().from(auditLog).where(eq(auditLog.action, 'user.unverified_removed'))
  expect(audits.map((a) => a.entityId)).toEqual([stale.id])

  // Once a day: a second tick the same day changes nothing.
  await db.insert(rateLimits).values({ key: 'again', windowStart: new Date(now.getTime() - 30 * hour), count: 1 })
  expect((await runBillingTick(depsOf(t))).maintenance).toBe(0)
  expect((await db.select().from(rateLimits)).length).toBe(2)
  clock.advance(day + 1000)
  await runBillingTick(depsOf(t))
  expect((await db.select().from(rateLimits)).map((r) => r.key)).not.toContain('again')
})
