import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { adminPaymentsQuerySchema, adminSubscriptionsQuerySchema } from '../../../domain/contracts/admin'
import { adminInsightsSchema } from '../../../domain/contracts/insights'
import { problemSchema } from '../../http/problem'
import { customersCsv, paymentsCsv, subscriptionsCsv } from './exports'
import { adminInsights } from './insights.service'

const guardErrors = { 400: problemSchema, 401: problemSchema, 403: problemSchema } as const
/** A stream (never serialized by Fastify): text/csv; charset=utf-8 with a BOM, ';' separator, comma decimals. */
const csvResponse = { 200: z.unknown().describe('CSV (UTF-8 com BOM, separador ";", decimais com vírgula)') }

function csvHeaders(reply: FastifyReply, name: string, now: Date) {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(now)
  reply
    .header('Content-Type', 'text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${name}-${day}.csv"`)
    .header('Cache-Control', 'no-store')
}

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

  // ---- CSV exports of the filtered lists (streamed; same filters as the lists) ----
  app.get(
    '/api/admin/exports/payments.csv',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Exporta os pagamentos filtrados em CSV (planilhas brasileiras)',
        querystring: adminPaymentsQuerySchema.pick({ q: true, status: true, method: true, due: true }),
        response: { ...csvResponse, ...guardErrors },
      },
    },
    async (request, reply) => {
      const csv = await paymentsCsv(app.ctx.db, request.query, app.ctx.now())
      csvHeaders(reply, 'pagamentos', app.ctx.now())
      return reply.send(csv)
    },
  )
  app.get(
    '/api/admin/exports/subscriptions.csv',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Exporta as assinaturas filtradas em CSV (planilhas brasileiras)',
        querystring: adminSubscriptionsQuerySchema.pick({
          q: true,
          status: true,
          planId: true,
          method: true,
          cancel: true,
          periodEnd: true,
        }),
        response: { ...csvResponse, ...guardErrors },
      },
    },
    async (request, reply) => {
      const csv = await subscriptionsCsv(app.ctx.db, request.query)
      csvHeaders(reply, 'assinaturas', app.ctx.now())
      return reply.send(csv)
    },
  )
  app.get(
    '/api/admin/exports/customers.csv',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Exporta os clientes (ou, com role=admin, os administradores) em CSV',
        querystring: z.object({ q: z.string().trim().max(200).optional(), role: z.enum(['admin', 'user']).optional() }),
        response: { ...csvResponse, ...guardErrors },
      },
    },
    async (request, reply) => {
      const csv = await customersCsv(app.ctx.db, request.query)
      csvHeaders(reply, 'clientes', app.ctx.now())
      return reply.send(csv)
    },
  )
}
