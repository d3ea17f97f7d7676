import { eq } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { pixSettings } from '../../db/schema/billing'
import type { PixSettingsRow } from '../../db/schema/billing'

/** The spec's "SELECT where id 1"; null only before start-up has created the row. */
export async function getPixSettings(db: Executor): Promise<PixSettingsRow | null> {
  const [row] = await db.select().from(pixSettings).where(eq(pixSettings.id, 1)).limit(1)
  return row ?? null
}
