// WhatsApp for real (issue 16): Meta's webhook (subscription check, delivery receipts, customers' messages), the
// delivery state of a sign-up code, and a customer's message history for admins.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { adminWhatsAppMessageSchema, codeStatusQuerySchema, codeStatusSchema } from '../../../domain/contracts/whatsapp'
import { DomainError } from '../../../domain/errors'
import { deliveryFailureReason } from '../../../domain/whatsapp-delivery'
import { providerWebhookBodyLimit } from '../../http/body-limit'
import { problemSchema } from '../../http/problem'
import { clientKey, hitRateLimit } from '../rate-limit/rate-limit'
import { readBrowserToken } from './browser-token'
import { handleInbound } from './chat.service'
import { applyStatusUpdate, codeDelivery, messagesOfUser } from './messages.repo'
import { codeRules, latestCodeForBrowser } from './verification.service'

/** `sha256=<hex>` of the raw body with the app secret, compared in constant time. */
export function validMetaSignature(raw: Buffer, header: unknown, secret: string | undefined): boolean {
  if (!secret || typeof header !== 'string' || !header.startsWith('sha256=')) return false
  const given = Buffer.from(header.slice('sha256='.length), 'hex')
  const expected = createHmac('sha256', secret).update(raw).digest()
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const statusSchema = z.object({
  id: z.string().min(1),
  status: z.string(),
  timestamp: z.string().optional(),
  recipient_id: z.string().optional(),
  errors: z.array(z.object({ code: z.number().optional(), title: z.string().optional() })).optional(),
})
const messageSchema = z.object({
  id: z.string().min(1),
  from: z.string().regex(/^\d{8,15}$/),
  type: z.string(),
  text: z.object({ body: z.string() }).optional(),
  button: z.object({ text: z.string() }).optional(),
  interactive: z
    .object({
      button_reply: z.object({ title: z.string() }).optional(),
      list_reply: z.object({ title: z.string() }).optional(),
    })
    .optional(),
})
const webhookSchema = z.object({
  object: z.string().optional(),
  entry: z
    .array(
      z.object({
        changes: z
          .array(
            z.object({
              field: z.string().optional(),
              value: z
                .object({
                  statuses: z.array(z.unknown()).optional(),
                  messages: z.array(z.unknown()).optional(),
                })
                .passthrough(),
            }),
          )
          .default([]),
      }),
    )
    .default([]),
})

const deliveryStatuses = ['sent', 'delivered', 'read', 'failed'] as const
const codeStatusPerIp = { limit: 300, windowMs: 60 * 60_000 }

function textOf(message: z.infer<typeof messageSchema>): string | null {
  return (
    message.text?.body ??
    message.button?.text ??
    message.interactive?.button_reply?.title ??
    message.interactive?.list_reply?.title ??
    null
  )
}

export const whatsappRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/webhooks/whatsapp',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Verificação da assinatura do webhook pela Meta (hub.mode, hub.verify_token, hub.challenge)',
        querystring: z.object({
          'hub.mode': z.string().max(100).optional(),
          'hub.verify_token': z.string().max(500).optional(),
          'hub.challenge': z.string().max(500).optional(),
        }),
        response: { 200: z.string(), 403: problemSchema },
      },
    },
    async (request, reply) => {
      const expected = app.ctx.config.WHATSAPP_VERIFY_TOKEN
      const given = request.query['hub.verify_token'] ?? ''
      const same =
        !!expected &&
        Buffer.byteLength(given) === Buffer.byteLength(expected) &&
        timingSafeEqual(Buffer.from(given), Buffer.from(expected))
      if (request.query['hub.mode'] !== 'subscribe' || !same) throw new DomainError('forbidden')
      return reply.type('text/plain; charset=utf-8').send(request.query['hub.challenge'] ?? '')
    },
  )

  await app.register(whatsappWebhookPost)

  app.get(
    '/api/whatsapp/code-status',
    {
      schema: {
        tags: ['auth'],
        summary: 'Situação da entrega do último código enviado ao número (com o motivo, se a Meta não entregou)',
        querystring: codeStatusQuerySchema,
        response: { 200: codeStatusSchema, 400: problemSchema, 429: problemSchema },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      const now = app.ctx.now()
      // The page asks every 3 s for 2 minutes after a send (40 asks): room for a few codes, not for a scan.
      await hitRateLimit(app.ctx.db, `wa-status:ip:${clientKey(request.ip)}`, codeStatusPerIp, now)
      // Only the codes this browser asked for: nobody learns how another person's number fares.
      const browserToken = readBrowserToken(request, app.ctx.config.secureCookies)
      if (!browserToken) return { status: 'none' as const, reason: null }
      const latest = await latestCodeForBrowser(app.ctx.db, request.query.phone_number, browserToken)
      // Only a code that still counts: an old delivery says nothing about the number today.
      if (!latest || now.getTime() - latest.createdAt.getTime() > codeRules.validForMs)
        return { status: 'none' as const, reason: null }
      const delivery = await codeDelivery(app.ctx.db, latest.id)
      if (!delivery || delivery.status === 'accepted' || delivery.status === 'received')
        return { status: 'pending' as const, reason: null }
      if (delivery.status === 'failed')
        return { status: 'failed' as const, reason: deliveryFailureReason(delivery.errorCode) }
      return { status: delivery.status, reason: null }
    },
  )

  app.get(
    '/api/admin/users/:id/whatsapp-messages',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Mensagens de WhatsApp do cliente (enviadas e recebidas), com os recibos de entrega',
        params: z.object({ id: z.string().min(1).max(100) }),
        response: { 200: z.array(adminWhatsAppMessageSchema), 401: problemSchema, 403: problemSchema },
      },
    },
    async (request) => {
      const rows = await messagesOfUser(app.ctx.db, request.params.id, 100)
      return rows.map(({ row, statuses }) => ({
        id: row.id,
        direction: row.direction,
        kind: row.kind,
        phone: row.phone,
        body: row.body,
        template: row.template,
        status: row.status,
        errorCode: row.errorCode,
        errorTitle: row.errorTitle,
        notificationId: row.notificationId,
        createdAt: row.createdAt.toISOString(),
        statuses: statuses.map((s) => ({
          status: s.status,
          errorCode: s.errorCode,
          errorTitle: s.errorTitle,
          occurredAt: s.occurredAt.toISOString(),
        })),
      }))
    },
  )
}

/** Its own plugin: the raw-body parser must not replace JSON parsing for the rest of the API. */
const whatsappWebhookPost: FastifyPluginAsyncZod = async (app) => {
  // The signature covers the exact bytes Meta sent: keep the Buffer instead of parsing JSON.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  app.post(
    '/api/webhooks/whatsapp',
    {
      bodyLimit: providerWebhookBodyLimit,
      schema: {
        tags: ['webhooks'],
        summary: 'Webhook da Meta (assinado): recibos de entrega e mensagens dos clientes, cada mensagem uma única vez',
        response: {
          200: z.object({ received: z.literal(true) }),
          401: problemSchema,
        },
      },
    },
    async (request) => {
      const raw = request.body
      if (
        !Buffer.isBuffer(raw) ||
        !validMetaSignature(raw, request.headers['x-hub-signature-256'], app.ctx.config.WHATSAPP_APP_SECRET)
      )
        throw new DomainError('whatsapp_signature_invalid')
      let json: unknown
      try {
        json = JSON.parse(raw.toString('utf8'))
      } catch {
        return { received: true as const } // signed but unreadable: nothing to do, and Meta must not retry it
      }
      const parsed = webhookSchema.safeParse(json)
      if (!parsed.success) return { received: true as const }
      const deps = { ...app.ctx, log: request.log }
      for (const entry of parsed.data.entry) {
        for (const change of entry.changes) {
          for (const item of change.value.statuses ?? []) {
            const status = statusSchema.safeParse(item)
            if (!status.success) continue
            const kind = deliveryStatuses.find((s) => s === status.data.status)
            if (!kind) continue
            const error = status.data.errors?.[0]
            const seconds = Number(status.data.timestamp)
            await applyStatusUpdate(
              app.ctx.db,
              {
                providerMessageId: status.data.id,
                status: kind,
                errorCode: error?.code ?? null,
                errorTitle: error?.title ?? null,
                occurredAt: Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : app.ctx.now(),
              },
              app.ctx.now(),
            )
          }
          for (const item of change.value.messages ?? []) {
            const message = messageSchema.safeParse(item)
            if (!message.success) continue
            await handleInbound(deps, {
              id: message.data.id,
              from: message.data.from,
              type: message.data.type,
              text: textOf(message.data),
            })
          }
        }
      }
      return { received: true as const }
    },
  )
}
