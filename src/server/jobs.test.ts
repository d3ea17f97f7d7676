import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { payments } from './db/schema/billing'
import { notifications } from './db/schema/lifecycle'
import { startJobs } from './jobs'
import { configurePix, seedPlans } from './modules/billing/test-fixtures'
import { depsOf, insertCustomer, insertSubscription } from './modules/lifecycle/lifecycle-fixtures'
import { readOutbox } from './modules/messaging/outbox'
import { createTestApp, type TestApp } from './test/test-app'

// The queue itself, in-process, on whichever database the suite runs on (pg-boss's PGlite backend, or PostgreSQL
// through the application's pool): starting it queues a first tick at once, and its deliverers send what the tick
// enqueued.
describe('in-process billing jobs', () => {
  let t: TestApp

  beforeAll(async () => {
    t = await createTestApp()
    await seedPlans(t.database.db)
    await configurePix(t.database.db)
  })
  afterAll(async () => {
    await t.close()
  })

  it('run a tick at start and deliver its notifications', async () => {
    const db = t.database.db
    const customer = await insertCustomer(db, { whatsapp: '5585999990909' })
    const sub = await insertSubscription(db, {
      userId: customer.id,
      currentPeriodEnd: new Date(t.clock.now().getTime() + 2 * 86_400_000),
    })
    const jobs = await startJobs(depsOf(t))
    try {
      const deadline = Date.now() + 60_000
      for (;;) {
        const sent = await db.select().from(notifications).where(eq(notifications.status, 'sent'))
        if (sent.length === 2) break
        if (Date.now() > deadline) throw new Error('the jobs did not deliver the notifications in time')
        await new Promise((r) => setTimeout(r, 200))
      }
    } finally {
      await jobs.stop()
    }
    const renewals = await db.select().from(payments).where(eq(payments.subscriptionId, sub.id))
    expect(renewals.map((p) => p.type)).toEqual(['renewal'])
    const outbox = (await readOutbox(t.outboxPath)).filter((e) => e.to === customer.email || e.to === '5585999990909')
    expect(outbox.map((e) => e.channel).sort()).toEqual(['email', 'whatsapp'])
  }, 90_000)
})
