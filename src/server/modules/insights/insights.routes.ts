import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { adminInsightsSchema } from '../../../domain/contracts/insights'
import { problemSchema } from '../../http/problem'
import { adminInsights } from './insights.service'

/** The admin home's API (admins only; admin-guard.routes.test.ts checks every /api/admin route is guarded). */
export const insightsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/admin/insights',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Visão geral do negócio: MRR, recebíveis, o que espera um admin e 12 meses de movimentos',
        response: { 200: adminInsightsSchema, 401: problemSchema, 403: problemSchema },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'no-store')
      return adminInsights(app.ctx)
    },
  )
}
