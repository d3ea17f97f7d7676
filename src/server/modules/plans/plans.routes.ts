import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { planSchema } from '../../../domain/contracts/plans'
import { listPlans } from './plans.service'

export const plansRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/plans',
    {
      schema: {
        tags: ['plans'],
        summary: 'Planos à venda, do mais barato ao mais caro',
        response: { 200: z.array(planSchema) },
      },
    },
    async () => listPlans(app.ctx.db),
  )
}
