import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from './db/client'
import { payments } from './db/schema/billing'
import { notifications } from './db/schema/lifecycle'
import { startJobs } from './jobs'
import { startJobsThread } from './jobs-thread'
import { configurePix, seedPlans } from './modules/billing/test-fixtures'
import { depsOf, insertCustomer, insertSubscription } from './modules/lifecycle/lifecycle-fixtures'
import { readOutbox } from './modules/messaging/outbox'
import { currentDatabaseName, testDatabaseUrl } from './test/database-url'
import { createTestApp, createTestDatabase, type TestApp } from './test/test-app'

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

// An API process on PostgreSQL runs its jobs in a thread of their own (jobs-thread.ts: worker.ts as a worker thread),
// configured from the environment like the process.
describe.skipIf(!testDatabaseUrl())('the jobs thread (PostgreSQL)', () => {
  let database: Database
  let env: NodeJS.ProcessEnv
  const dataDir = mkdtempSync(path.join(tmpdir(), 'billing-jobs-thread-'))
  const threadAppName = 'billing-jobs-thread-test'

  beforeAll(async () => {
    database = await createTestDatabase()
    await seedPlans(database.db)
    await configurePix(database.db)
    const url = new URL(testDatabaseUrl() ?? '')
    url.pathname = `/${await currentDatabaseName(database.db)}`
    env = {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: url.toString(),
      DATA_DIR: dataDir,
      APP_URL: 'http://localhost:3000',
      AUTH_SECRET: 'test-secret-that-is-long-enough-for-better-auth-0123456789',
      LOG_LEVEL: 'silent',
      PGAPPNAME: threadAppName, // node-postgres names the thread's connections with it
    }
  })
  afterAll(async () => {
    await database.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('runs a tick and delivers its notifications, and stops when asked', async () => {
    const db = database.db
    const customer = await insertCustomer(db, { whatsapp: '5585999990919' })
    const sub = await insertSubscription(db, {
      userId: customer.id,
      currentPeriodEnd: new Date(Date.now() + 2 * 86_400_000),
    })
    const logged: string[] = []
    const jobs = startJobsThread({ info: (m) => logged.push(m), error: (_, m) => logged.push(m) }, env)
    try {
      const deadline = Date.now() + 60_000
      for (;;) {
        const sent = await db.select().from(notifications).where(eq(notifications.status, 'sent'))
        if (sent.length === 2) break
        if (Date.now() > deadline) throw new Error(`the jobs thread did not deliver in time (${logged.join('; ')})`)
        await new Promise((r) => setTimeout(r, 200))
      }
    } finally {
      await jobs.stop()
    }
    expect(logged).toContain('Jobs de cobrança prontos (thread própria)')
    const renewals = await db.select().from(payments).where(eq(payments.subscriptionId, sub.id))
    expect(renewals.map((p) => [p.type, p.status])).toEqual([['renewal', 'pending_pix']])
    const outbox = await readOutbox(path.join(dataDir, 'outbox.jsonl'))
    expect(
      outbox
        .filter((e) => e.to === customer.email || e.to === '5585999990919')
        .map((e) => e.channel)
        .sort(),
    ).toEqual(['email', 'whatsapp'])
    // Stopped: the thread closed its pool (pg-boss's workers with it), so none of its connections is left.
    const left = await db.execute(
      sql`select count(*)::int as n from pg_stat_activity where application_name = ${threadAppName}`,
    )
    expect((left as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(0)
  }, 90_000)

  it('is started again when it ends by itself', async () => {
    const errors: string[] = []
    // Without DATABASE_URL the worker refuses to start (PGlite is one process) and its thread ends at once.
    const { DATABASE_URL: _, ...withoutDatabase } = env
    const jobs = startJobsThread({ info: () => {}, error: (_, m) => errors.push(m) }, withoutDatabase)
    try {
      const deadline = Date.now() + 20_000
      while (errors.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    } finally {
      await jobs.stop()
    }
    expect(errors.slice(0, 2)).toEqual(['jobs thread ended; starting it again', 'jobs thread ended; starting it again'])
  }, 30_000)
})
