// The queries of our own auth code (sign-up, the sign-in lockout, step-up re-authentication); better-auth runs its
// own. Queries only, taking a `db` or `tx`; the rules are in auth.routes.ts, sign-in-guard.ts and step-up.ts.
import { eq } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { profiles, sessions } from '../../db/schema/auth'

/** Whether an account already uses this e-mail. */
export async function emailTaken(db: Executor, email: string): Promise<boolean> {
  const [taken] = await db.select({ id: profiles.id }).from(profiles).where(eq(profiles.email, email)).limit(1)
  return taken !== undefined
}

/** The account with this e-mail, as much as a notice to its owner needs; null without one. */
export async function accountOwner(
  db: Executor,
  email: string,
): Promise<{ id: string; name: string; email: string } | null> {
  const [owner] = await db
    .select({ id: profiles.id, name: profiles.name, email: profiles.email })
    .from(profiles)
    .where(eq(profiles.email, email))
    .limit(1)
  return owner ?? null
}

export async function setReauthenticatedAt(db: Executor, sessionId: string, at: Date): Promise<void> {
  await db.update(sessions).set({ reauthenticatedAt: at }).where(eq(sessions.id, sessionId))
}

/** When the session last re-authenticated; null when it never did (or the session is gone). */
export async function reauthenticatedAt(db: Executor, sessionId: string): Promise<Date | null> {
  const [row] = await db.select({ at: sessions.reauthenticatedAt }).from(sessions).where(eq(sessions.id, sessionId))
  return row?.at ?? null
}
