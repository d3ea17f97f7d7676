// API Pix routes: the PSP's webhook (no session, no Origin check: /api/webhooks/) and the admin's PIX actions.
import { backgroundWork } from '../../http/background-work'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  pixOverviewSchema,
  pixRefundInputSchema,
  pixRefundResultSchema,
  pixRefundSchema,
  pixWebhookResultSchema,
} from '../../../domain/contracts/pix-api'
import { DomainError } from '../../../domain/errors'
import { problemSchema } from '../../http/problem'
import type { Actor } from '../audit/audit'
import { pixCallbackItems } from './pix-callback'
import { listRefunds, pixOverview, refundPix, registerPixWebhook } from './pix-admin.service'
import type { PixDeps } from '../billing/pix-invoice'
import { confirmNotified } from './pix-confirm.service'

const callbacks = backgroundWork()

/** Resolves when every callback received so far has been handled (tests; graceful shutdown). */
export const pixCallbacksIdle = callbacks.idle

function actorOf(request: FastifyRequest): Actor {
  if (!request.user) throw new DomainError('unauthenticated')
  return { id: request.user.id, roleId: request.user.roleId }
}

const idParamsSchema = z.object({ id: z.string().min(1).max(100) })
const guardErrors = { 401: problemSchema, 403: problemSchema } as const

export const pixRoutes: FastifyPluginAsyncZod = async (app) => {
  const deps = (request: FastifyRequest): PixDeps => ({ ...app.ctx, log: request.log })

  // The PSP calls {registered URL}/pix; some PSPs call the URL itself. The body only says which PIX to re-read:
  // the answer is 200 at once, and the re-reads run after it (the PSP's retry timers never fire on our latency).
  for (const url of ['/api/webhooks/pix', '/api/webhooks/pix/pix']) {
    app.post(
      url,
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Callback do PSP (API Pix): gatilho para reler as cobranças e confirmar os pagamentos',
          body: z.unknown(),
          response: { 200: z.object({ received: z.number().int() }) },
        },
      },
      async (request) => {
        const items = pixCallbackItems(request.body) ?? []
        if (app.ctx.pix && items.length > 0) {
          const log = request.log
          callbacks.track(
            app.ctx.db,
            confirmNotified(deps(request), items).catch((error: unknown) => {
              log.error({ err: error }, 'pix: callback handling failed')
            }),
          )
        }
        return { received: items.length }
      },
    )
  }

  const guard = { onRequest: app.requireAdmin }

  app.post(
    '/api/admin/pix-settings/webhook',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Registra o webhook no PSP (PUT /webhook/{chave}) com APP_URL/api/webhooks/pix',
        response: {
          200: pixWebhookResultSchema,
          ...guardErrors,
          409: problemSchema,
          502: problemSchema,
          503: problemSchema,
        },
      },
    },
    async (request) => registerPixWebhook(deps(request)),
  )

  app.post(
    '/api/admin/payments/:id/refund',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Devolve um PIX pago (total ou parcial, em até 90 dias) com um motivo',
        params: idParamsSchema,
        body: pixRefundInputSchema,
        response: {
          200: pixRefundResultSchema,
          400: problemSchema,
          ...guardErrors,
          404: problemSchema,
          409: problemSchema,
          502: problemSchema,
        },
      },
    },
    async (request) => {
      const result = await refundPix(deps(request), actorOf(request), request.params.id, request.body)
      return { ...result, refunds: await listRefunds(app.ctx, request.params.id) }
    },
  )

  app.get(
    '/api/admin/payments/:id/refunds',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Devoluções de um PIX',
        params: idParamsSchema,
        response: { 200: z.array(pixRefundSchema), ...guardErrors },
      },
    },
    async (request) => listRefunds(app.ctx, request.params.id),
  )

  app.get(
    '/api/admin/pix/overview',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Latência de confirmação PIX (p50, p95, 30 dias) e faturas aguardando confirmação há mais de 12 h',
        response: { 200: pixOverviewSchema, ...guardErrors },
      },
    },
    async () => pixOverview(app.ctx),
  )
}
