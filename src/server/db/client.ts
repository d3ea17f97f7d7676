import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PGlite } from '@electric-sql/pglite'
import type { ExtractTablesWithRelations } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator'
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core'
import pg from 'pg'
import { raiseTrimThresholdSql } from './backend-memory'
import { closeHotLine } from './hot-rows'
import * as schema from './schema/all'

export type Schema = typeof schema
export type Db = PgDatabase<PgQueryResultHKT, Schema>
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>
/** Repos take either the database or a transaction. */
export type Executor = Db | Tx

export const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url))

export type Database = {
  db: Db
  kind: 'pglite' | 'postgres'
  /** The raw PGlite instance in embedded mode (pg-boss runs on it in-process). */
  pglite?: PGlite
  /** The pg pool in PostgreSQL mode. */
  pool?: pg.Pool
  migrate(): Promise<void>
  ping(): Promise<boolean>
  close(): Promise<void>
}

// bigint columns come back as strings from node-postgres; our money fits in a JS number.
pg.types.setTypeParser(20, (v) => Number(v))

/** The default of DATABASE_STATEMENT_TIMEOUT_MS: a statement (or its wait for a lock) running longer is cancelled. */
export const defaultStatementTimeoutMs = 15_000

export function connectPostgres(url: string, options: { max?: number; statementTimeoutMs?: number } = {}): Database {
  // A connection (or a free slot) not had within 5 s fails the request with 503 instead of holding it; a statement
  // that runs (or waits for a lock) longer than the statement timeout is cancelled by PostgreSQL (57014), also a 503:
  // a stuck query cannot hold a request, a pool slot and its locks forever. 0 turns the timeout off.
  const statementTimeout = options.statementTimeoutMs ?? defaultStatementTimeoutMs
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5_000,
    ...(statementTimeout > 0 ? { statement_timeout: statementTimeout } : {}),
    // Before a new connection is handed out (db/backend-memory.ts).
    onConnect: async (client) => {
      await client.query(raiseTrimThresholdSql)
    },
  })
  pool.on('error', () => {}) // idle-client errors surface on the next query
  // A checked-out client between two queries (a transaction, a pg-boss start lock) that loses its server emits
  // 'error' with no listener but its own: without this one the process dies (57P01 when PostgreSQL stops). The
  // next query on it fails and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', () => {}))
  const db = drizzlePg(pool, { schema }) as unknown as Db
  return {
    db,
    kind: 'postgres',
    pool,
    // Migrations on a connection of their own without the statement timeout: an index built on a big table may
    // take longer than a request is allowed to.
    migrate: async () => {
      const migrator = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 5_000 })
      migrator.on('error', () => {})
      try {
        await migratePg(drizzlePg(migrator), { migrationsFolder })
      } finally {
        await migrator.end()
      }
    },
    ping: async () => {
      try {
        await pool.query('select 1')
        return true
      } catch {
        return false
      }
    },
    close: async () => {
      await closeHotLine(pool)
      await pool.end()
    },
  }
}

/**
 * The embedded database. Its packages are loaded here, not with the server: on PostgreSQL neither the API nor its
 * jobs thread holds them (about 10 MB resident each).
 */
export async function connectPglite(options: { dataDir?: string; loadDataDir?: Blob | File } = {}): Promise<Database> {
  const [{ PGlite }, { pg_trgm }, { drizzle: drizzlePglite }, { migrate: migratePglite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('drizzle-orm/pglite'),
    import('drizzle-orm/pglite/migrator'),
  ])
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true })
  // pg_trgm backs the admin search indexes (migration 0002).
  const pglite = new PGlite({ dataDir: options.dataDir, loadDataDir: options.loadDataDir, extensions: { pg_trgm } })
  await pglite.waitReady
  const db = drizzlePglite(pglite, { schema }) as unknown as Db
  return {
    db,
    kind: 'pglite',
    pglite,
    migrate: () => migratePglite(drizzlePglite(pglite), { migrationsFolder }),
    ping: async () => {
      try {
        await pglite.query('select 1')
        return true
      } catch {
        return false
      }
    },
    close: () => pglite.close(),
  }
}

/** DATABASE_URL picks PostgreSQL; otherwise the embedded database lives in DATA_DIR/db. */
export async function connectDatabase(config: {
  DATABASE_URL?: string
  DATABASE_STATEMENT_TIMEOUT_MS?: number
  dataDir: string
}): Promise<Database> {
  if (config.DATABASE_URL)
    return connectPostgres(config.DATABASE_URL, { statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS })
  return connectPglite({ dataDir: path.join(config.dataDir, 'db') })
}
