import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { planSchema } from '../../../domain/contracts/plans'
import { createPlansCache } from './plans-cache'

export const plansRoutes: FastifyPluginAsyncZod = async (app) => {
  // Served from memory, invalidated on every change on every instance (plans-cache.ts).
  const cache = createPlansCache(app.ctx.database, app.log)
  app.addHook('onClose', async () => cache.close())

  app.get(
    '/api/plans',
    {
      schema: {
        tags: ['plans'],
        summary: 'Planos à venda, do mais barato ao mais caro',
        response: { 200: z.array(planSchema), 304: z.null() },
      },
    },
    async (request, reply) => {
      const { body, etag } = await cache.get()
      reply.header('etag', etag).header('cache-control', 'no-cache')
      if (request.headers['if-none-match'] === etag) return reply.status(304).send(null)
      // Already JSON, built by toPlan (plans.repo.ts) as the schema says: sent as it is, not serialized again.
      return (reply as unknown as FastifyReply).type('application/json; charset=utf-8').send(body)
    },
  )
}
