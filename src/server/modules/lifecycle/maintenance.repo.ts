// The queries of the daily housekeeping (maintenance.service.ts holds the retention periods and the transaction):
// deletes of expired working data and of abandoned sign-ups.
import { and, eq, inArray, lt, notExists, sql } from 'drizzle-orm'
import { roleIds } from '../../../domain/billing-vocabulary'
import type { Executor, Tx } from '../../db/client'
import { profiles, verifications } from '../../db/schema/auth'
import { subscriptions } from '../../db/schema/billing'
import { notifications } from '../../db/schema/lifecycle'
import { whatsappVerifications } from '../../db/schema/platform'

/** WhatsApp sign-up codes sent before `before`, used or not. */
export async function deleteWhatsappVerificationsBefore(db: Executor, before: Date): Promise<void> {
  await db.delete(whatsappVerifications).where(lt(whatsappVerifications.createdAt, before))
}

/** better-auth's verification tokens (e-mail confirmation, password reset) that expired before `before`. */
export async function deleteVerificationsExpiredBefore(db: Executor, before: Date): Promise<void> {
  await db.delete(verifications).where(lt(verifications.expiresAt, before))
}

/**
 * Up to `limit` customer accounts (never an admin) whose e-mail was never confirmed, created before `createdBefore`,
 * without any subscription; locked FOR UPDATE, rows another transaction holds are skipped.
 */
export function lockAbandonedSignUps(
  tx: Tx,
  createdBefore: Date,
  limit: number,
): Promise<{ id: string; createdAt: Date }[]> {
  return tx
    .select({ id: profiles.id, createdAt: profiles.createdAt })
    .from(profiles)
    .where(
      and(
        eq(profiles.emailVerified, false),
        eq(profiles.roleId, roleIds.user),
        lt(profiles.createdAt, createdBefore),
        notExists(tx.select({ one: sql`1` }).from(subscriptions).where(eq(subscriptions.userId, profiles.id))),
      ),
    )
    .limit(limit)
    .for('update', { skipLocked: true })
}

/**
 * Deletes the accounts and their messages (a plain reference since migration 0026, so deleted here, in the same
 * transaction); their sessions, login accounts and Stripe customer go with them (cascade).
 */
export async function deleteProfiles(tx: Tx, ids: string[]): Promise<void> {
  await tx.delete(notifications).where(inArray(notifications.userId, ids))
  await tx.delete(profiles).where(inArray(profiles.id, ids))
}
