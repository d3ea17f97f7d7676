import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { SessionUser } from '../../../domain/contracts/auth'
import {
  cancelInputSchema,
  cardCheckoutResultSchema,
  checkoutInputSchema,
  myPaymentsQuerySchema,
  mySubscriptionsQuerySchema,
  paymentPageSchema,
  paymentReceiptSchema,
  pixChargeSchema,
  pixCheckoutResultSchema,
  subscriptionPageSchema,
  subscriptionSchema,
  upgradeInputSchema,
  upgradeOptionsSchema,
  upgradeResultSchema,
} from '../../../domain/contracts/billing'
import { DomainError } from '../../../domain/errors'
import { hotSerializer } from '../../http/hot-serializer'
import { problemSchema } from '../../http/problem'
import { withPspCheckout, withPspUpgrade } from './pix-invoice'
import { type BillingDeps, cancelSubscription, checkoutPix, getReceipt, shownPixCharge } from './billing.service'
import { upgradeOptions, upgradeSubscription } from './customer-upgrade.service'
import { startInvoiceCardCheckout } from './card-invoice.service'
import {
  listMyPayments,
  listMyPaymentsWithSession,
  listMySubscriptions,
  listMySubscriptionsWithSession,
} from './customer-lists.repo'

const idParamsSchema = z.object({ id: z.string().min(1).max(100) })
const readErrors = { 401: problemSchema } as const
const writeErrors = { 400: problemSchema, 401: problemSchema, 403: problemSchema } as const

/** requireUser ran before every handler here; this only narrows the type. */
function userOf(request: FastifyRequest): SessionUser {
  if (!request.user) throw new DomainError('unauthenticated')
  return request.user
}

export const billingRoutes: FastifyPluginAsyncZod = async (app) => {
  const deps = (request: FastifyRequest): BillingDeps => ({ ...app.ctx, log: request.log })
  const hot = hotSerializer(app.ctx.config.NODE_ENV === 'production')

  app.post(
    '/api/checkout/pix',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary: 'Assina um plano pagando com PIX: assinatura pending_pix e fatura com vencimento em 3 dias',
        description:
          'Checkout PIX do cliente. Um clique duplo ou uma nova tentativa devolve a fatura ainda aberta do mesmo ' +
          'plano (reused: true) em vez de criar outra.',
        body: checkoutInputSchema,
        response: { 200: pixCheckoutResultSchema, ...writeErrors, 404: problemSchema, 503: problemSchema },
      },
    },
    async (request) =>
      withPspCheckout(deps(request), await checkoutPix(deps(request), userOf(request), request.body.plan_id)),
  )

  app.get(
    '/api/subscriptions',
    {
      serializerCompiler: hot,
      schema: {
        tags: ['billing'],
        summary: 'Assinaturas do usuário com o plano, das mais novas às mais antigas, uma página por vez',
        querystring: mySubscriptionsQuerySchema,
        response: { 200: subscriptionPageSchema, 400: problemSchema, ...readErrors },
      },
    },
    // requireUser and the page in one statement when the session is valid and needs nothing written.
    async (request, reply) =>
      (await app.requireUserWith(request, reply, (token) =>
        listMySubscriptionsWithSession(app.ctx.database, token, request.query),
      )) ?? listMySubscriptions(app.ctx.db, userOf(request), request.query),
  )

  app.get(
    '/api/payments',
    {
      serializerCompiler: hot,
      schema: {
        tags: ['billing'],
        summary:
          'Pagamentos (faturas) do usuário com o plano da assinatura, dos mais novos aos mais antigos, uma página por vez',
        querystring: myPaymentsQuerySchema,
        response: { 200: paymentPageSchema, 400: problemSchema, ...readErrors },
      },
    },
    async (request, reply) =>
      (await app.requireUserWith(request, reply, (token) =>
        listMyPaymentsWithSession(app.ctx.database, token, request.query),
      )) ?? listMyPayments(app.ctx.db, userOf(request), request.query),
  )

  app.get(
    '/api/payments/:id/pix',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary: 'Código PIX copia e cola de uma fatura aberta do usuário',
        params: idParamsSchema,
        response: {
          200: pixChargeSchema,
          ...readErrors,
          404: problemSchema,
          409: problemSchema,
          503: problemSchema,
        },
      },
    },
    async (request) => shownPixCharge(deps(request), userOf(request).id, request.params.id),
  )

  app.post(
    '/api/payments/:id/card-checkout',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary: 'Paga com cartão uma fatura aberta do usuário e devolve a URL do checkout',
        description:
          'Primeira fatura de uma assinatura aguardando PIX: a mesma assinatura passa para o cartão (a fatura PIX é ' +
          'cancelada quando o cartão é aprovado). Renovação ou upgrade: um pagamento único do valor exato da fatura, ' +
          'com o mesmo efeito da confirmação do PIX.',
        params: idParamsSchema,
        response: {
          200: cardCheckoutResultSchema,
          ...writeErrors,
          404: problemSchema,
          409: problemSchema,
          502: problemSchema,
          503: problemSchema,
        },
      },
    },
    async (request) => startInvoiceCardCheckout(deps(request), userOf(request), request.params.id),
  )

  app.get(
    '/api/payments/:id/receipt',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary: 'Dados do recibo de um pagamento confirmado do usuário (página /dashboard/payments/:id/receipt)',
        params: idParamsSchema,
        response: { 200: paymentReceiptSchema, ...readErrors, 404: problemSchema, 409: problemSchema },
      },
    },
    async (request) => getReceipt(deps(request), userOf(request), request.params.id),
  )

  app.post(
    '/api/subscriptions/cancel',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary: 'Agenda o cancelamento no fim do período (cancel-subscription)',
        body: cancelInputSchema,
        response: {
          200: subscriptionSchema,
          ...writeErrors,
          404: problemSchema,
          409: problemSchema,
          502: problemSchema,
          503: problemSchema,
        },
      },
    },
    async (request) => cancelSubscription(deps(request), userOf(request), request.body.subscription_id),
  )

  app.get(
    '/api/subscriptions/:id/upgrade-options',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary:
          'Planos de valor maior que o atual e o valor proporcional de cada troca (lista vazia no plano mais alto)',
        params: idParamsSchema,
        response: { 200: upgradeOptionsSchema, ...readErrors, 404: problemSchema, 409: problemSchema },
      },
    },
    async (request) => upgradeOptions(deps(request), userOf(request), request.params.id),
  )

  app.post(
    '/api/subscriptions/upgrade',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary: 'Troca para um plano de valor maior cobrando só o proporcional (upgrade-subscription)',
        description:
          'PIX: gera uma fatura de upgrade (o plano muda quando ela for paga); repetir o pedido devolve a mesma ' +
          'fatura. Cartão: o provedor troca o plano e cobra a diferença. Diferença de R$ 0,00: troca na hora.',
        body: upgradeInputSchema,
        response: {
          200: upgradeResultSchema,
          ...writeErrors,
          404: problemSchema,
          409: problemSchema,
          502: problemSchema,
          503: problemSchema,
        },
      },
    },
    async (request) =>
      withPspUpgrade(deps(request), await upgradeSubscription(deps(request), userOf(request), request.body)),
  )
}
