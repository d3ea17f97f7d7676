import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  platformEventPageSchema,
  platformEventRetrySchema,
  platformEventsQuerySchema,
} from '../../../domain/contracts/provisioning'
import { DomainError } from '../../../domain/errors'
import { problemSchema } from '../../http/problem'
import { listPlatformEvents, retryPlatformEvent } from './platform-events-admin'

const guardErrors = { 400: problemSchema, 401: problemSchema, 403: problemSchema } as const

export const lifecycleRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/admin/platform-events',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Eventos de provisionamento enviados à plataforma de atendimento: estado da entrega, tentativas, erro',
        description: 'status=failed: pendentes cuja última tentativa falhou (o número do painel do administrador).',
        querystring: platformEventsQuerySchema,
        response: { 200: platformEventPageSchema, ...guardErrors },
      },
    },
    async (request) => listPlatformEvents(app.ctx.db, request.query),
  )
  app.post(
    '/api/admin/platform-events/:id/retry',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Reenviar agora: uma entrega pendente passa a ser devida já (a próxima passagem de entrega a envia)',
        description: 'Idempotente: um evento já devido, entregue ou ignorado volta sem mudanças (requeued = false).',
        params: z.object({ id: z.string().min(1).max(100) }),
        response: { 200: platformEventRetrySchema, ...guardErrors, 404: problemSchema },
      },
    },
    async (request) => {
      const user = request.user
      if (!user) throw new DomainError('unauthenticated')
      return retryPlatformEvent(app.ctx, { id: user.id, roleId: user.roleId }, request.params.id)
    },
  )
}
