import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { roleIds, type SessionUser } from '../../domain/contracts/auth'
import { DomainError } from '../../domain/errors'
import { forwardSetCookie, toWebHeaders } from './web-headers'

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, read from the database on each guarded request (role changes apply at once). */
    user: SessionUser | null
  }
  interface FastifyInstance {
    loadUser(request: FastifyRequest, reply: FastifyReply): Promise<SessionUser | null>
    requireUser(request: FastifyRequest, reply: FastifyReply): Promise<void>
    requireAdmin(request: FastifyRequest, reply: FastifyReply): Promise<void>
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
}

export function toSessionUser(user: RawUser): SessionUser {
  const roleId = Number(user.roleId ?? roleIds.user)
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    companyName: typeof user.companyName === 'string' ? user.companyName : '',
    whatsappNumber: typeof user.whatsappNumber === 'string' ? user.whatsappNumber : '',
    roleId,
    isAdmin: roleId === roleIds.admin,
    createdAt: new Date(user.createdAt).toISOString(),
  }
}

export const sessionPlugin = fp(async (app: FastifyInstance) => {
  app.decorateRequest('user', null)

  app.decorate('loadUser', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.user) return request.user
    const result = await app.ctx.auth.api.getSession({ headers: toWebHeaders(request.headers), returnHeaders: true })
    forwardSetCookie(result.headers, reply) // an active session is extended
    request.user = result.response ? toSessionUser(result.response.user) : null
    return request.user
  })

  app.decorate('requireUser', async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await app.loadUser(request, reply)
    if (!user) throw new DomainError('unauthenticated')
  })

  app.decorate('requireAdmin', async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await app.loadUser(request, reply)
    if (!user) throw new DomainError('unauthenticated')
    if (!user.isAdmin) throw new DomainError('forbidden')
  })
})
