// The queries of the WhatsApp verification codes (whatsapp_verifications); the rules are in verification.service.ts.
import { and, desc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm'
import type { Executor, Tx } from '../../db/client'
import { whatsappVerifications } from '../../db/schema/platform'

export type VerificationRow = typeof whatsappVerifications.$inferSelect

/** Serialises code sends for one number until the transaction ends. */
export async function lockNumberSends(tx: Tx, phone: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`wa:${phone}`}))`)
}

/** The codes sent to the number since `since` (every requester), newest first. */
export function codesSentSince(db: Executor, phone: string, since: Date) {
  return db
    .select({ createdAt: whatsappVerifications.createdAt, ip: whatsappVerifications.ip })
    .from(whatsappVerifications)
    .where(and(eq(whatsappVerifications.phoneNumber, phone), gt(whatsappVerifications.createdAt, since)))
    .orderBy(desc(whatsappVerifications.createdAt))
}

export async function insertVerification(db: Executor, values: typeof whatsappVerifications.$inferInsert) {
  await db.insert(whatsappVerifications).values(values)
}

export async function deleteVerification(db: Executor, id: string): Promise<void> {
  await db.delete(whatsappVerifications).where(eq(whatsappVerifications.id, id))
}

/** The newest code of the number sent for this browser (by the hash of its token), used or not. */
export async function latestCodeOfBrowser(
  db: Executor,
  phone: string,
  browserHash: string,
): Promise<VerificationRow | null> {
  const [row] = await db
    .select()
    .from(whatsappVerifications)
    .where(and(eq(whatsappVerifications.phoneNumber, phone), eq(whatsappVerifications.browserHash, browserHash)))
    .orderBy(desc(whatsappVerifications.createdAt))
    .limit(1)
  return row ?? null
}

/** Counts one attempt atomically while fewer than `maxAttempts` were made; false once they are used up. */
export async function countAttempt(db: Executor, id: string, maxAttempts: number): Promise<boolean> {
  const [counted] = await db
    .update(whatsappVerifications)
    .set({ attempts: sql`${whatsappVerifications.attempts} + 1` })
    .where(and(eq(whatsappVerifications.id, id), sql`${whatsappVerifications.attempts} < ${maxAttempts}`))
    .returning({ attempts: whatsappVerifications.attempts })
  return counted !== undefined
}

export async function markVerified(db: Executor, id: string, now: Date): Promise<void> {
  await db
    .update(whatsappVerifications)
    .set({ verifiedAt: now })
    .where(and(eq(whatsappVerifications.id, id), isNull(whatsappVerifications.verifiedAt)))
}

/**
 * Marks used the newest unused verification of the number by this browser verified after `since`; answers its id,
 * or null when there is none.
 */
export async function consumeLatestVerified(
  db: Executor,
  phone: string,
  browserHash: string,
  since: Date,
  now: Date,
): Promise<string | null> {
  const [row] = await db
    .update(whatsappVerifications)
    .set({ consumedAt: now })
    .where(
      sql`${whatsappVerifications.id} = (
        select id from ${whatsappVerifications}
        where ${whatsappVerifications.phoneNumber} = ${phone}
          and ${whatsappVerifications.browserHash} = ${browserHash}
          and ${whatsappVerifications.verifiedAt} > ${since.toISOString()}
          and ${whatsappVerifications.consumedAt} is null
        order by ${whatsappVerifications.verifiedAt} desc limit 1
      ) and ${isNull(whatsappVerifications.consumedAt)}`,
    )
    .returning({ id: whatsappVerifications.id })
  return row?.id ?? null
}

/** Gives a consumed verification back (the sign-up that used it failed). */
export async function releaseConsumed(db: Executor, id: string): Promise<void> {
  await db
    .update(whatsappVerifications)
    .set({ consumedAt: null })
    .where(and(eq(whatsappVerifications.id, id), isNotNull(whatsappVerifications.consumedAt)))
}
