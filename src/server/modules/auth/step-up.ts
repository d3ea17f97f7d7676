// Step-up re-authentication: a sensitive admin change (a role, the PIX key or beneficiary) needs the password, or a
// TOTP code, given again in this session within the last 5 minutes. A stolen session or an unattended browser alone
// cannot demote the other admins or redirect the PIX payments.
import type { FastifyRequest } from 'fastify'
import { DomainError } from '../../../domain/errors'
import type { AppContext } from '../../context'
import { sessionRules } from './auth'
import { reauthenticatedAt, setReauthenticatedAt } from './auth.repo'

/** Marks the request's session as re-authenticated now. */
export async function stampReauthentication(ctx: Pick<AppContext, 'db' | 'now'>, sessionId: string): Promise<void> {
  await setReauthenticatedAt(ctx.db, sessionId, ctx.now())
}

/** Throws 403 reauthentication_required unless the request's session re-authenticated within the last 5 minutes. */
export async function requireRecentReauthentication(
  ctx: Pick<AppContext, 'db' | 'now'>,
  request: FastifyRequest,
): Promise<void> {
  if (!request.sessionId) throw new DomainError('unauthenticated')
  const at = await reauthenticatedAt(ctx.db, request.sessionId)
  if (!at || ctx.now().getTime() - at.getTime() > sessionRules.reauthenticationValidMs) {
    throw new DomainError('reauthentication_required')
  }
}
