import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { connectPglite, type Database } from '../../db/client'
import { payments } from '../../db/schema/billing'
import { notifications } from '../../db/schema/lifecycle'
import { ensurePixSettingsRow } from '../../db/seed'
import { testDatabaseUrl } from '../../test/database-url'
import { runScript, type ScriptRun } from '../../test/scripts'
import { configurePix, seedPlans } from '../billing/test-fixtures'
import { readOutbox } from '../messaging/outbox'
import { insertCustomer, insertSubscription } from './lifecycle-fixtures'

// `npm run billing:tick` as an operator runs it, on the embedded database (the PostgreSQL runs, two at once, are in
// lifecycle.workers.test.ts). PGlite is one process at a time: the test's own connection is closed before each run.

const dataDir = mkdtempSync(path.join(tmpdir(), 'billing-tick-'))

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true })
})

async function withDatabase<T>(work: (database: Database) => Promise<T>): Promise<T> {
  const database = await connectPglite({ dataDir: path.join(dataDir, 'db') })
  try {
    return await work(database)
  } finally {
    await database.close()
  }
}

function tick(): Promise<ScriptRun> {
  return runScript('billing-tick', [], { DATA_DIR: dataDir })
}

describe.skipIf(Boolean(testDatabaseUrl()))('npm run billing:tick (embedded database)', () => {
  it('runs the due passes once, and changes nothing when run again', async () => {
    const customer = await withDatabase(async (database) => {
      await database.migrate()
      await ensurePixSettingsRow(database.db)
      await seedPlans(database.db)
      await configurePix(database.db)
      const row = await insertCustomer(database.db)
      await insertSubscription(database.db, {
        userId: row.id,
        currentPeriodEnd: new Date(Date.now() + 2 * 86_400_000),
        updatedAt: new Date(),
      })
      return row
    })

    const first = await tick()
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toContain('Banco: PGlite embutido em')
    expect(first.stdout).toContain('Processado: renewals 1, platform_events 1, deliver_notifications 1.')

    const second = await tick()
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toContain('Nada a fazer.')

    await withDatabase(async (database) => {
      const rows = await database.db.select().from(payments)
      expect(rows.map((p) => [p.type, p.amountCents, p.status])).toEqual([['renewal', 19_900, 'pending_pix']])
      const sent = await database.db.select().from(notifications)
      expect(sent.map((n) => [n.dedupeKey, n.status])).toEqual([[`invoice_created:${rows[0]?.id}:email`, 'sent']])
    })
    const outbox = await readOutbox(path.join(dataDir, 'outbox.jsonl'))
    expect(outbox.map((e) => [e.to, e.subject])).toEqual([[customer.email, 'Fatura de renovação disponível']])
  }, 120_000)
})
