import { sql } from 'drizzle-orm'
import type { Db } from '../db/client'

/** Server tests run on PGlite, or on PostgreSQL when TEST_DATABASE_URL names a server (CI runs both). */
export function testDatabaseUrl(): string | undefined {
  const url = process.env.TEST_DATABASE_URL?.trim()
  return url ? url : undefined
}

/**
 * The migrated template each test file clones. TEST_DATABASE_PREFIX (letters, digits, underscore) keeps
 * two checkouts testing against one server at once out of each other's way.
 */
const prefix = (process.env.TEST_DATABASE_PREFIX ?? '').replace(/[^a-z0-9_]/gi, '').toLowerCase()
export const templateDatabaseName = `billing_test_${prefix ? `${prefix}_` : ''}template`

/** The name of the database `db` is connected to (each test file has its own clone). */
export async function currentDatabaseName(db: Db): Promise<string> {
  const result = (await db.execute(sql`select current_database() as name`)) as unknown as { rows: { name: string }[] }
  return String(result.rows[0]?.name)
}
