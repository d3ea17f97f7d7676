// Step-up re-authentication: a sensitive admin change (a role, the PIX key or beneficiary) needs the password, or a
// TOTP code, given again in this session within the last 5 minutes. A stolen session or an unattended browser alone
// cannot demote the other admins or redirect the PIX payments.
import { eq } from 'drizzle-orm'
import type { FastifyRequest } from 'fastify'
import { DomainError } from '../../../domain/errors'
import type { AppContext } from '../../context'
import { sessions } from '../../db/schema/auth'
import { sessionRules } from './auth'

/** Marks the request's session as re-authenticated now. */
export async function stampReauthentication(ctx: Pick<AppContext, 'db' | 'now'>, sessionId: string): Promise<void> {
  await ctx.db.update(sessions).set({ reauthenticatedAt: ctx.now() }).where(eq(sessions.id, sessionId))
}

/** Throws 403 reauthentication_required unless the request's session re-authenticated within the last 5 minutes. */
export async function requireRecentReauthentication(
  ctx: Pick<AppContext, 'db' | 'now'>,
  request: FastifyRequest,
): Promise<void> {
  if (!request.sessionId) throw new DomainError('unauthenticated')
  const [row] = await ctx.db
    .select({ at: sessions.reauthenticatedAt })
    .from(sessions)
    .where(eq(sessions.id, request.sessionId))
  const at = row?.at
  if (!at || ctx.now().getTime() - at.getTime() > sessionRules.reauthenticationValidMs) {
    throw new DomainError('reauthentication_required')
  }
}
