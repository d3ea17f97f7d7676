// PIX Automático routes: checkout (Journey 3), the customer's automatic renewal (state, turn off, turn on), the
// admin's view per subscription, the webhook registration, and the PSP's rec/cobr callbacks (triggers only).
import { backgroundWork } from '../../http/background-work'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { SessionUser } from '../../../domain/contracts/auth'
import { pixCheckoutResultSchema, upgradeResultSchema } from '../../../domain/contracts/billing'
import { DomainError } from '../../../domain/errors'
import { problemSchema } from '../../http/problem'
import { checkoutPix } from '../billing/billing.service'
import { upgradeSubscription } from '../billing/customer-upgrade.service'
import { withPspCheckout, withPspUpgrade } from '../billing/pix-invoice'
import { refreshCobr } from './automatico-renewals'
import { ownsSubscription, planById, recurrenceById } from './automatico.repo'
import {
  type AutomaticoDeps,
  adminView,
  authoriseForInvoice,
  ensureTaxId,
  psp,
  refreshRec,
  requireClient,
  turnOff,
  turnOn,
  viewOf,
} from './automatico.service'
import { putRecWebhooks } from './rec-client'
import { autoRenewalSchema, automaticoAdminViewSchema } from '../../../domain/contracts/pix-automatico'

const checkoutInput = z.strictObject({
  plan_id: z.string().min(1).max(100),
  tax_id: z.string().max(30).optional(),
})
const taxInput = z.strictObject({ tax_id: z.string().max(30).optional() })
const idParams = z.object({ id: z.string().min(1).max(100) })
const errors = {
  400: problemSchema,
  401: problemSchema,
  403: problemSchema,
  404: problemSchema,
  409: problemSchema,
  502: problemSchema,
  503: problemSchema,
} as const

const callbacks = backgroundWork()

/** Resolves when every rec/cobr callback received so far has been handled (tests; graceful shutdown). */
export const automaticoCallbacksIdle = callbacks.idle

function userOf(request: FastifyRequest): SessionUser {
  if (!request.user) throw new DomainError('unauthenticated')
  return request.user
}

/** The ids a callback names ({recs:[{idRec}]} or {cobsr:[{txid}]}), well-formed and once each. */
function namedIds(body: unknown, list: 'recs' | 'cobsr', field: 'idRec' | 'txid'): string[] {
  const items = body && typeof body === 'object' ? (body as Record<string, unknown>)[list] : undefined
  if (!Array.isArray(items)) return []
  const ids = new Set<string>()
  for (const item of items.slice(0, 1000)) {
    const id = item && typeof item === 'object' ? (item as Record<string, unknown>)[field] : undefined
    if (typeof id === 'string' && /^[a-zA-Z0-9]{26,35}$/.test(id)) ids.add(id)
  }
  return [...ids]
}

export const automaticoRoutes: FastifyPluginAsyncZod = async (app) => {
  const deps = (request: FastifyRequest): AutomaticoDeps => ({ ...app.ctx, log: request.log })

  app.post(
    '/api/checkout/pix-automatico',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary: 'Assina um plano com PIX Automático: primeira fatura + autorização da renovação (código composto)',
        body: checkoutInput,
        response: { 200: pixCheckoutResultSchema.extend({ automatico: autoRenewalSchema }), ...errors },
      },
    },
    async (request) => {
      const d = deps(request)
      const user = userOf(request)
      requireClient(d)
      const taxId = await ensureTaxId(d, user.id, request.body.tax_id)
      const result = await withPspCheckout(d, await checkoutPix(d, user, request.body.plan_id))
      await authoriseForInvoice(
        d,
        user,
        result.subscription.id,
        result.payment.id,
        { planId: result.subscription.planId, planName: result.pix.planName, amountCents: result.payment.amountCents },
        taxId,
      )
      const view = await viewOf(d, result.subscription.id)
      if (!view?.copiaECola) throw new DomainError('pix_provider_error')
      return { ...result, pix: { ...result.pix, brCode: view.copiaECola, autoConfirm: true }, automatico: view }
    },
  )

  app.get(
    '/api/subscriptions/:id/pix-automatico',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary: 'Renovação automática via PIX da assinatura: estado e próximo débito',
        params: idParams,
        response: { 200: z.object({ enabled: z.boolean(), automatico: autoRenewalSchema.nullable() }), ...errors },
      },
    },
    async (request) => {
      const d = deps(request)
      const user = userOf(request)
      if (!(await ownsSubscription(d.db, user.id, request.params.id))) throw new DomainError('subscription_not_found')
      return {
        enabled: Boolean(d.pix) && d.config.PIX_AUTOMATICO === true,
        automatico: await viewOf(d, request.params.id),
      }
    },
  )

  app.post(
    '/api/subscriptions/:id/pix-automatico/disable',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary: 'Desativar renovação automática (cancela a autorização no PSP)',
        params: idParams,
        response: { 200: autoRenewalSchema.nullable(), ...errors },
      },
    },
    async (request) => turnOff(deps(request), userOf(request), request.params.id),
  )

  app.post(
    '/api/subscriptions/:id/pix-automatico/enable',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary: 'Ativar renovação automática: nova autorização (QR) a partir da próxima renovação',
        params: idParams,
        body: taxInput,
        response: { 200: autoRenewalSchema.nullable(), ...errors },
      },
    },
    async (request) => turnOn(deps(request), userOf(request), request.params.id, request.body.tax_id),
  )

  app.post(
    '/api/subscriptions/:id/pix-automatico/upgrade',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary:
          'Upgrade com PIX Automático: a fatura proporcional é a cobrança imediata de uma nova autorização (a antiga é cancelada depois da aprovação)',
        params: idParams,
        body: z.strictObject({ plan_id: z.string().min(1).max(100) }),
        response: { 200: z.object({ upgrade: upgradeResultSchema, copiaECola: z.string().nullable() }), ...errors },
      },
    },
    async (request) => {
      const d = deps(request)
      const user = userOf(request)
      requireClient(d)
      const taxId = await ensureTaxId(d, user.id, undefined)
      const upgrade = await withPspUpgrade(
        d,
        await upgradeSubscription(d, user, { subscription_id: request.params.id, new_plan_id: request.body.plan_id }),
      )
      if (upgrade.kind !== 'pix') return { upgrade, copiaECola: null }
      const plan = await planById(d.db, request.body.plan_id)
      if (!plan) throw new DomainError('plan_not_found')
      const rec = await authoriseForInvoice(
        d,
        user,
        request.params.id,
        upgrade.pix.paymentId,
        { planId: plan.id, planName: plan.name, amountCents: plan.priceCents },
        taxId,
      )
      const row = await recurrenceById(d.db, rec.id)
      const code = row?.copiaECola ?? null
      return { upgrade: code ? { ...upgrade, pix: { ...upgrade.pix, brCode: code } } : upgrade, copiaECola: code }
    },
  )

  app.get(
    '/api/admin/subscriptions/:id/pix-automatico',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Recorrências e cobranças recorrentes (PIX Automático) da assinatura, com o histórico',
        params: idParams,
        response: {
          200: automaticoAdminViewSchema,
          401: problemSchema,
          403: problemSchema,
        },
      },
    },
    async (request) => adminView(app.ctx, request.params.id),
  )

  app.post(
    '/api/admin/pix-automatico/webhooks',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Registra os webhooks de recorrência e de cobrança recorrente no PSP (APP_URL/api/webhooks/pix)',
        response: { 200: z.object({ webhookUrl: z.string() }), ...errors },
      },
    },
    async (request) => {
      const d = deps(request)
      const client = requireClient(d)
      const webhookUrl = `${d.config.appUrl}/api/webhooks/pix`
      await psp(d, 'register the rec/cobr webhooks', () => putRecWebhooks(client, webhookUrl))
      return { webhookUrl }
    },
  )

  // The PSP POSTs {registered URL}/rec and /cobr. The body only says what to re-read: 200 at once, work after.
  app.post(
    '/api/webhooks/pix/rec',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Callback de recorrências (PIX Automático): gatilho para reler cada recorrência no PSP',
        body: z.unknown(),
        response: { 200: z.object({ received: z.number().int() }) },
      },
    },
    async (request) => {
      const ids = namedIds(request.body, 'recs', 'idRec')
      const d = deps(request)
      if (d.pix && ids.length > 0) {
        const work = (async () => {
          for (const id of ids) await refreshRec(d, id, 'webhook')
        })().catch((error: unknown) => request.log.error({ err: error }, 'pix automático: rec callback failed'))
        callbacks.track(app.ctx.db, work)
      }
      return { received: ids.length }
    },
  )

  app.post(
    '/api/webhooks/pix/cobr',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Callback de cobranças recorrentes (PIX Automático): gatilho para reler cada cobrança no PSP',
        body: z.unknown(),
        response: { 200: z.object({ received: z.number().int() }) },
      },
    },
    async (request) => {
      const ids = namedIds(request.body, 'cobsr', 'txid')
      const d = deps(request)
      if (d.pix && ids.length > 0) {
        const work = (async () => {
          for (const id of ids) await refreshCobr(d, id, 'webhook')
        })().catch((error: unknown) => request.log.error({ err: error }, 'pix automático: cobr callback failed'))
        callbacks.track(app.ctx.db, work)
      }
      return { received: ids.length }
    },
  )
}
