import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { roleIds } from '../../domain/billing-vocabulary'
import type { SessionUser } from '../../domain/contracts/auth'
import { DomainError } from '../../domain/errors'
import { sessionRules } from '../modules/auth/auth'
import { lookupSession, type SessionRow, sessionToken, validSession } from './session-lookup'
import { forwardSetCookie, toWebHeaders } from './web-headers'

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, read from the database on each guarded request (role changes apply at once). */
    user: SessionUser | null
    /** The id of the session row behind `user` (step-up re-authentication stamps it). */
    sessionId: string | null
  }
  interface FastifyInstance {
    loadUser(request: FastifyRequest, reply: FastifyReply): Promise<SessionUser | null>
    requireUser(request: FastifyRequest, reply: FastifyReply): Promise<void>
    requireAdmin(request: FastifyRequest, reply: FastifyReply): Promise<void>
    /**
     * requireUser and a read of the user's own data in one SQL statement: `read` gets the verified session token
     * and returns the session row it found joined with the data. When that session is valid and needs nothing
     * written, the user is set and the data returned; otherwise (no row, expired, due for extension…) requireUser
     * runs as usual and undefined is returned: the caller reads its data the ordinary way.
     */
    requireUserWith<T>(
      request: FastifyRequest,
      reply: FastifyReply,
      read: (token: string) => Promise<{ session: SessionRow; data: T } | null>,
    ): Promise<T | undefined>
  }
}

type RawUser = {
  id: string
  name: string
  email: string
  createdAt: Date
  companyName?: unknown
  whatsappNumber?: unknown
  roleId?: unknown
  twoFactorEnabled?: unknown
}

/**
 * `adminMfa` is ADMIN_MFA: under 'required' an admin without two-factor is told to enable it
 * (`mustEnableTwoFactor`) and every /api/admin route refuses them until they do.
 */
export function toSessionUser(user: RawUser, adminMfa: 'required' | 'optional'): SessionUser {
  const roleId = Number(user.roleId ?? roleIds.user)
  const twoFactorEnabled = user.twoFactorEnabled === true
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    companyName: typeof user.companyName === 'string' ? user.companyName : '',
    whatsappNumber: typeof user.whatsappNumber === 'string' ? user.whatsappNumber : '',
    roleId,
    isAdmin: roleId === roleIds.admin,
    createdAt: new Date(user.createdAt).toISOString(),
    twoFactorEnabled,
    mustEnableTwoFactor: roleId === roleIds.admin && adminMfa === 'required' && !twoFactorEnabled,
  }
}

export const sessionPlugin = fp(async (app: FastifyInstance) => {
  app.decorateRequest('user', null)
  app.decorateRequest('sessionId', null)

  app.decorate('loadUser', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.user) return request.user
    // One SQL query when the session is valid and needs nothing written (session-lookup.ts); better-auth otherwise.
    const fast = await lookupSession(app.ctx, request)
    if (fast === null) return null
    if (fast !== 'delegate') {
      request.user = toSessionUser(fast.user, app.ctx.config.adminMfa)
      request.sessionId = fast.sessionId
      return request.user
    }
    const headers = toWebHeaders(request.headers)
    const result = await app.ctx.auth.api.getSession({ headers, returnHeaders: true })
    forwardSetCookie(result.headers, reply) // an active session is extended (7 days from now)…
    const found = result.response
    if (!found) return null
    // …but never past 30 days from its sign-in: an older session is deleted and its cookie cleared.
    const age = app.ctx.now().getTime() - new Date(found.session.createdAt).getTime()
    if (age >= sessionRules.absoluteLifetimeMs) {
      const out = await app.ctx.auth.api.signOut({ headers, returnHeaders: true })
      forwardSetCookie(out.headers, reply)
      return null
    }
    request.user = toSessionUser(found.user, app.ctx.config.adminMfa)
    request.sessionId = found.session.id
    return request.user
  })

  app.decorate('requireUser', async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await app.loadUser(request, reply)
    if (!user) throw new DomainError('unauthenticated')
  })

  app.decorate(
    'requireUserWith',
    async <T>(
      request: FastifyRequest,
      reply: FastifyReply,
      read: (token: string) => Promise<{ session: SessionRow; data: T } | null>,
    ): Promise<T | undefined> => {
      const token = request.user ? null : sessionToken(app.ctx, request)
      if (typeof token === 'string' && token !== 'delegate') {
        const found = await read(token)
        const valid = found ? validSession(app.ctx, found.session) : 'delegate'
        if (found && valid !== 'delegate') {
          request.user = toSessionUser(valid.user, app.ctx.config.adminMfa)
          request.sessionId = valid.sessionId
          return found.data
        }
      }
      await app.requireUser(request, reply)
      return undefined
    },
  )

  app.decorate('requireAdmin', async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await app.loadUser(request, reply)
    if (!user) throw new DomainError('unauthenticated')
    if (!user.isAdmin) throw new DomainError('forbidden')
    if (user.mustEnableTwoFactor) throw new DomainError('two_factor_setup_required')
  })
})
