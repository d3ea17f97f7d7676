import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  adminPaymentPageSchema,
  adminPaymentsQuerySchema,
  adminPixSettingsResultSchema,
  adminSubscriptionInputSchema,
  adminSubscriptionPageSchema,
  adminSubscriptionSaveResultSchema,
  adminSubscriptionSchema,
  adminSubscriptionsQuerySchema,
  adminUserPageSchema,
  adminUserSchema,
  adminUsersQuerySchema,
  cardInfoSchema,
  confirmPaymentInputSchema,
  confirmPaymentResultSchema,
  pixSettingsInputSchema,
  roleInputSchema,
  settlementPreviewSchema,
} from '../../../domain/contracts/admin'
import { okSchema } from '../../../domain/contracts/auth'
import { planInputSchema, planSchema } from '../../../domain/contracts/plans'
import { DomainError } from '../../../domain/errors'
import { problemSchema } from '../../http/problem'
import type { Actor } from '../audit/audit'
import { requireRecentReauthentication } from '../auth/step-up'
import { listPlans } from '../plans/plans.service'
import { listAdminPayments, listAdminSubscriptions, listAdminUsers } from './admin-lists.repo'
import { confirmPayment } from './admin-payments.service'
import { createPlan, deletePlan, updatePlan } from './admin-plans.service'
import { cardInfo, getAdminPixSettings, pixDestinationChanges, saveAdminPixSettings } from './admin-settings.service'
import {
  type AdminDeps,
  adminCancelSubscription,
  saveSubscription,
  settlementPreview,
} from './admin-subscriptions.service'
import { setUserRole } from './admin-users.service'

const idParamsSchema = z.object({ id: z.string().min(1).max(100) })
const guardErrors = { 401: problemSchema, 403: problemSchema } as const
const writeErrors = { 400: problemSchema, ...guardErrors } as const
/** Lists add whether `total` was counted (true) or estimated by the planner (false, above 1 000 rows). */
const withTotalExact = { totalExact: z.boolean() }

/** requireAdmin ran before every handler here; this only narrows the type. */
function actorOf(request: FastifyRequest): Actor {
  if (!request.user) throw new DomainError('unauthenticated')
  return { id: request.user.id, roleId: request.user.roleId }
}

/**
 * The admin console API. Every route is guarded by requireAdmin (the role is read from the database on each
 * request); admin-guard.routes.test.ts walks all /api/admin routes so that a new one without the guard fails.
 */
export const adminRoutes: FastifyPluginAsyncZod = async (app) => {
  const deps = (request: FastifyRequest): AdminDeps => ({ ...app.ctx, log: request.log })
  // In onRequest, before the body and query are parsed and validated: anonymous callers get 401 and regular users
  // 403 whatever they send, and learn nothing about the schemas.
  const guard = { onRequest: app.requireAdmin }

  // ---- subscriptions ----
  app.get(
    '/api/admin/subscriptions',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Todas as assinaturas: busca (cliente, e-mail, id, plano), filtros, ordenação e páginas',
        querystring: adminSubscriptionsQuerySchema,
        response: { 200: adminSubscriptionPageSchema.extend(withTotalExact), ...writeErrors },
      },
    },
    async (request) => listAdminSubscriptions(app.ctx.db, request.query),
  )
  app.post(
    '/api/admin/subscriptions',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Cria uma assinatura (pending_pix também emite a fatura PIX; active quita as faturas pendentes)',
        body: adminSubscriptionInputSchema,
        response: { 200: adminSubscriptionSaveResultSchema, ...writeErrors, 404: problemSchema },
      },
    },
    async (request) => saveSubscription(deps(request), actorOf(request), null, request.body),
  )
  app.put(
    '/api/admin/subscriptions/:id',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Edita uma assinatura (salvar como active quita as faturas pending_pix por confirmação manual)',
        description:
          'Assinaturas de cartão: cancelar, trocar o plano e o cancelamento no fim do período passam pelo Stripe ' +
          'antes (se ele falhar, nada muda); cliente, datas e os demais status são recusados (409 ' +
          'card_subscription_managed, com o que fazer).',
        params: idParamsSchema,
        body: adminSubscriptionInputSchema,
        response: {
          200: adminSubscriptionSaveResultSchema,
          ...writeErrors,
          404: problemSchema,
          409: problemSchema,
          502: problemSchema,
        },
      },
    },
    async (request) => saveSubscription(deps(request), actorOf(request), request.params.id, request.body),
  )
  app.get(
    '/api/admin/subscriptions/:id/settlement-preview',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Faturas pending_pix que salvar a assinatura como active marcaria como pagas, e o total',
        params: idParamsSchema,
        response: { 200: settlementPreviewSchema, ...writeErrors, 404: problemSchema },
      },
    },
    async (request) => settlementPreview(deps(request), request.params.id),
  )
  app.post(
    '/api/admin/subscriptions/:id/cancel',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'admin-cancel-subscription: cancela agora e anula as faturas em aberto',
        description: 'Assinaturas de cartão são canceladas no provedor antes; se ele falhar, nada muda. Idempotente.',
        params: idParamsSchema,
        response: { 200: adminSubscriptionSchema, ...writeErrors, 404: problemSchema, 502: problemSchema },
      },
    },
    async (request) => adminCancelSubscription(deps(request), actorOf(request), request.params.id),
  )

  // ---- payments ----
  app.get(
    '/api/admin/payments',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Todos os pagamentos: busca (cliente, e-mail, id, referência PIX, E2E), filtros, ordenação e páginas',
        querystring: adminPaymentsQuerySchema,
        response: { 200: adminPaymentPageSchema.extend(withTotalExact), ...writeErrors },
      },
    },
    async (request) => listAdminPayments(app.ctx.db, request.query, { now: app.ctx.now() }),
  )
  app.post(
    '/api/admin/payments/:id/confirm',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'admin-confirm-payment: confirma um pagamento PIX e ativa, renova ou faz o upgrade da assinatura',
        description:
          'Idempotente: confirmar um pagamento já pago devolve-o sem mudanças. Valor recebido diferente do ' +
          'cobrado: o pagamento vai para análise (review), nada é ativado e flagged = true.',
        params: idParamsSchema,
        body: confirmPaymentInputSchema,
        response: { 200: confirmPaymentResultSchema, ...writeErrors, 404: problemSchema, 409: problemSchema },
      },
    },
    async (request) => confirmPayment(deps(request), actorOf(request), request.params.id, request.body),
  )

  // ---- users and customers ----
  app.get(
    '/api/admin/users',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Usuários: busca (nome, e-mail, empresa, WhatsApp, id), filtro de papel, ordenação e páginas',
        querystring: adminUsersQuerySchema,
        response: { 200: adminUserPageSchema.extend(withTotalExact), ...writeErrors },
      },
    },
    async (request) => listAdminUsers(app.ctx.db, request.query),
  )
  app.get(
    '/api/admin/customers',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Clientes (papel usuário) com o número de assinaturas ativas',
        querystring: adminUsersQuerySchema,
        response: { 200: adminUserPageSchema.extend(withTotalExact), ...writeErrors },
      },
    },
    async (request) => listAdminUsers(app.ctx.db, { ...request.query, role: 'user' }),
  )
  app.put(
    '/api/admin/users/:id/role',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: "'Tornar Admin' / 'Remover Admin' (role_id 1 ou 2); o último administrador não pode ser removido",
        description: 'Exige confirmação da identidade nos últimos 5 minutos (POST /api/auth/reauthenticate).',
        params: idParamsSchema,
        body: roleInputSchema,
        response: { 200: adminUserSchema, ...writeErrors, 404: problemSchema, 409: problemSchema },
      },
    },
    async (request) => {
      await requireRecentReauthentication(app.ctx, request)
      return setUserRole(deps(request), actorOf(request), request.params.id, request.body.role_id)
    },
  )

  // ---- plans ----
  app.get(
    '/api/admin/plans',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Todos os planos, inativos inclusive, do mais barato ao mais caro',
        response: { 200: z.array(planSchema), ...guardErrors },
      },
    },
    async () => listPlans(app.ctx.db, { includeInactive: true }),
  )
  app.post(
    '/api/admin/plans',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Cria um plano (o ID é digitado e não muda depois)',
        body: planInputSchema,
        response: { 200: planSchema, ...writeErrors, 409: problemSchema },
      },
    },
    async (request) => createPlan(deps(request), actorOf(request), request.body),
  )
  app.put(
    '/api/admin/plans/:id',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Edita um plano (o ID do corpo deve ser o do caminho); active false o esconde de /plans',
        params: idParamsSchema,
        body: planInputSchema,
        response: { 200: planSchema, ...writeErrors, 404: problemSchema },
      },
    },
    async (request) => updatePlan(deps(request), actorOf(request), request.params.id, request.body),
  )
  app.delete(
    '/api/admin/plans/:id',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Exclui um plano sem assinaturas nem faturas (senão 409 plan_in_use: desative-o)',
        params: idParamsSchema,
        response: { 200: okSchema, ...writeErrors, 404: problemSchema, 409: problemSchema },
      },
    },
    async (request) => {
      await deletePlan(deps(request), actorOf(request), request.params.id)
      return { ok: true as const }
    },
  )

  // ---- settings ----
  app.get(
    '/api/admin/pix-settings',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Configurações PIX e um código de exemplo de R$ 1,00',
        response: { 200: adminPixSettingsResultSchema, ...guardErrors },
      },
    },
    async (request) => getAdminPixSettings(deps(request)),
  )
  app.put(
    '/api/admin/pix-settings',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Salva as configurações PIX (chave normalizada) e devolve o código de exemplo',
        description:
          'Mudar a chave ou o beneficiário exige confirmação da identidade nos últimos 5 minutos ' +
          '(POST /api/auth/reauthenticate); só a descrição, não.',
        body: pixSettingsInputSchema,
        response: { 200: adminPixSettingsResultSchema, ...writeErrors },
      },
    },
    async (request) => {
      if (await pixDestinationChanges(app.ctx, request.body)) await requireRecentReauthentication(app.ctx, request)
      return saveAdminPixSettings(deps(request), actorOf(request), request.body)
    },
  )
  app.get(
    '/api/admin/card-info',
    {
      ...guard,
      schema: {
        tags: ['admin'],
        summary: 'Função de checkout e webhook do provedor de cartão, para o texto de ajuda do admin',
        response: { 200: cardInfoSchema, ...guardErrors },
      },
    },
    async (request) => cardInfo(deps(request)),
  )
}
