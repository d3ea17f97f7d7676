import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { inject } from 'vitest'
import { buildApp } from '../app'
import { ensurePixSettingsRow } from '../db/seed'
import { type Config, loadConfig } from '../config'
import { connectPglite, connectPostgres, type Database } from '../db/client'
import type { CardGateway } from '../modules/billing/card-gateway'
import type { MailSender } from '../modules/messaging/email'
import type { WhatsAppSender } from '../modules/messaging/whatsapp'
import { templateDatabaseName, testDatabaseUrl } from './database-url'
import { withDatabase } from './global-setup'

/** A clock tests move by hand. */
export class TestClock {
  constructor(private current = new Date('2026-03-10T12:00:00.000Z')) {}
  now = (): Date => new Date(this.current)
  set(date: Date | string) {
    this.current = new Date(date)
  }
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms)
  }
}

/** A fresh database for one test file: a copy of the migrated template. */
export async function createTestDatabase(options: { statementTimeoutMs?: number } = {}): Promise<Database> {
  const url = testDatabaseUrl()
  if (url) {
    const name = `billing_test_${randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query(`create database ${name} template ${templateDatabaseName}`)
    await admin.end()
    const database = connectPostgres(withDatabase(url, name), {
      max: 5,
      statementTimeoutMs: options.statementTimeoutMs,
    })
    const close = database.close
    return {
      ...database,
      close: async () => {
        await close()
        const dropper = new pg.Client({ connectionString: url })
        await dropper.connect()
        await dropper.query(`drop database if exists ${name} with (force)`)
        await dropper.end()
      },
    }
  }
  const template = inject('pgliteTemplate')
  return connectPglite({ loadDataDir: new Blob([readFileSync(template)]) })
}

export type TestApp = {
  app: FastifyInstance
  config: Config
  database: Database
  clock: TestClock
  outboxPath: string
  close(): Promise<void>
}

export async function createTestApp(
  options: {
    env?: Record<string, string>
    mail?: MailSender
    whatsapp?: WhatsAppSender
    clock?: TestClock
    card?: CardGateway
    /** A built SPA to serve (default: none). */
    webRoot?: string
    /** Turns logging on (LOG_LEVEL from env, default info) and sends the lines here. */
    logStream?: { write(line: string): void }
  } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'billing-app-'))
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    APP_URL: 'http://localhost:3000',
    AUTH_SECRET: 'test-secret-that-is-long-enough-for-better-auth-0123456789',
    LOG_LEVEL: options.logStream ? 'info' : 'silent',
    ...options.env,
  })
  const database = await createTestDatabase({ statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS })
  await ensurePixSettingsRow(database.db)
  const clock = options.clock ?? new TestClock()
  const app = await buildApp({
    config,
    database,
    now: clock.now,
    ...(options.logStream ? { logStream: options.logStream } : { logger: false }),
    webRoot: options.webRoot ?? path.join(dataDir, 'no-web'),
    ...(options.mail ? { mail: options.mail } : {}),
    ...(options.whatsapp ? { whatsapp: options.whatsapp } : {}),
    ...(options.card ? { card: options.card } : {}),
  })
  await app.ready()
  return {
    app,
    config,
    database,
    clock,
    outboxPath: config.outboxPath,
    close: async () => {
      await app.close()
      await database.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
