import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { pageOf, pageParams } from '../../../domain/contracts/paging'
import { problemSchema } from '../../http/problem'
import { listPlatformEvents } from './provisioning.service'

export const platformEventsQuerySchema = z.object({
  ...pageParams,
  status: z.enum(['pending', 'delivered', 'skipped']).optional(),
})

export const platformEventSchema = z
  .object({
    id: z.string(),
    seq: z.number().int(),
    subscriptionId: z.string(),
    customerEmail: z.string(),
    type: z.enum(['subscription.activated', 'subscription.plan_changed', 'subscription.ended']),
    status: z.enum(['pending', 'delivered', 'skipped']),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    nextAttemptAt: z.string(),
    deliveredAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'PlatformEvent' })

export const lifecycleRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/admin/platform-events',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Eventos de provisionamento enviados à plataforma de atendimento: estado da entrega, tentativas, erro',
        querystring: platformEventsQuerySchema,
        response: { 200: pageOf(platformEventSchema), 400: problemSchema, 401: problemSchema, 403: problemSchema },
      },
    },
    async (request) => listPlatformEvents(app.ctx.db, request.query),
  )
}
