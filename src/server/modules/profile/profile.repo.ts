import { eq } from 'drizzle-orm'
import type { Profile } from '../../../domain/contracts/billing'
import type { Executor, Tx } from '../../db/client'
import { profiles } from '../../db/schema/auth'
import type { ProfileRow } from '../../db/schema/auth'

export function toProfile(row: ProfileRow): Profile {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    companyName: row.companyName,
    whatsappNumber: row.whatsappNumber,
    roleId: row.roleId,
    createdAt: row.createdAt.toISOString(),
  }
}

export async function findProfile(db: Executor, id: string): Promise<ProfileRow | null> {
  const [row] = await db.select().from(profiles).where(eq(profiles.id, id)).limit(1)
  return row ?? null
}

export async function lockProfile(tx: Tx, id: string): Promise<ProfileRow | null> {
  const [row] = await tx.select().from(profiles).where(eq(profiles.id, id)).for('update')
  return row ?? null
}

/** Only these columns can ever be written from the customer's side: never e-mail or role_id. */
export async function updateProfileRow(
  tx: Tx,
  id: string,
  values: Partial<Pick<ProfileRow, 'name' | 'companyName' | 'whatsappNumber'>> & { updatedAt: Date },
): Promise<ProfileRow> {
  const [row] = await tx.update(profiles).set(values).where(eq(profiles.id, id)).returning()
  if (!row) throw new Error(`profile ${id} vanished while locked`)
  return row
}
