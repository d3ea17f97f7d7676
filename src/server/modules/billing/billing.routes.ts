import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { SessionUser } from '../../../domain/contracts/auth'
import {
  cancelInputSchema,
  checkoutInputSchema,
  paymentReceiptSchema,
  paymentSchema,
  pixChargeSchema,
  pixCheckoutResultSchema,
  subscriptionSchema,
  upgradeInputSchema,
  upgradeOptionsSchema,
  upgradeResultSchema,
} from '../../../domain/contracts/billing'
import { DomainError } from '../../../domain/errors'
import { problemSchema } from '../../http/problem'
import { withRefunds } from '../pix/pix-admin.service'
import { withPspCharge, withPspCheckout, withPspUpgrade } from '../pix/pix-charge.service'
import {
  type BillingDeps,
  cancelSubscription,
  checkoutPix,
  getPixCharge,
  getReceipt,
  listPayments,
  listSubscriptions,
  upgradeOptions,
  upgradeSubscription,
} from './billing.service'

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
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary: 'Assinaturas do usuário com o plano, das mais novas às mais antigas',
        response: { 200: z.array(subscriptionSchema), ...readErrors },
      },
    },
    async (request) => listSubscriptions(deps(request), userOf(request)),
  )

  app.get(
    '/api/payments',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['billing'],
        summary: 'Pagamentos (faturas) do usuário com o plano da assinatura, dos mais novos aos mais antigos',
        response: { 200: z.array(paymentSchema), ...readErrors },
      },
    },
    async (request) => withRefunds(app.ctx, await listPayments(deps(request), userOf(request))),
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
    async (request) =>
      withPspCharge(deps(request), await getPixCharge(deps(request), userOf(request), request.params.id)),
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
