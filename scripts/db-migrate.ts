// `npm run db:migrate`: applies the pending migrations to the database of DATABASE_URL (or the embedded one in
// DATA_DIR) and makes sure the single PIX settings row exists. Safe to run again. With the embedded database,
// stop the server first: PGlite is used by one process at a time.
import { sql } from 'drizzle-orm'
import type { Db } from '../src/server/db/client'
import { ensurePixSettingsRow } from '../src/server/db/seed'
import { describeDatabase, runScript } from './run-script'

async function appliedMigrations(db: Db): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(sql`drizzle.__drizzle_migrations`)
    .catch(() => [{ n: 0 }]) // no journal yet: a brand-new database
  return row?.n ?? 0
}

await runScript('aplicar as migrações', async ({ config, database, log }) => {
  log(`Banco: ${describeDatabase(config, database)}`)
  const before = await appliedMigrations(database.db)
  await database.migrate()
  const after = await appliedMigrations(database.db)
  log(
    after > before
      ? `Migrações aplicadas: ${after - before} nova(s), ${after} no total.`
      : `Nenhuma migração pendente (${after} já aplicadas).`,
  )
  await ensurePixSettingsRow(database.db)
  log('Configurações PIX: linha única garantida.')
})
