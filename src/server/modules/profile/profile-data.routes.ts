import { APIError } from 'better-auth/api'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { okSchema } from '../../../domain/contracts/auth'
import { deleteAccountInputSchema, personalDataExportSchema } from '../../../domain/contracts/personal-data'
import { DomainError } from '../../../domain/errors'
import { problemSchema } from '../../http/problem'
import { forwardSetCookie, toWebHeaders } from '../../http/web-headers'
import { deleteAccount, exportPersonalData } from './profile-data.service'

/** The calendar day in Brazil (the file name the customer sees), e.g. 2026-03-10. */
function brazilDay(date: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(date)
}

export const profileDataRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/profile/export',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['profile'],
        summary: 'Baixar meus dados: tudo o que guardamos sobre o usuário conectado, em JSON (LGPD, art. 18)',
        response: { 200: personalDataExportSchema, 401: problemSchema },
      },
    },
    async (request, reply) => {
      if (!request.user) throw new DomainError('unauthenticated')
      const data = await exportPersonalData(app.ctx, request.user)
      reply
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="meus-dados-${brazilDay(app.ctx.now())}.json"`)
        .type('application/json; charset=utf-8')
      // Indented for people; the schema above documents the shape.
      return reply.serializer((payload: unknown) => JSON.stringify(payload, null, 2)).send(data)
    },
  )

  app.post(
    '/api/profile/delete',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['profile'],
        summary:
          'Excluir minha conta: exige a senha; recusado com assinatura em andamento ou fatura em aberto; anonimiza e encerra as sessões',
        body: deleteAccountInputSchema,
        response: { 200: okSchema, 400: problemSchema, 401: problemSchema, 409: problemSchema, 429: problemSchema },
      },
    },
    async (request, reply) => {
      if (!request.user) throw new DomainError('unauthenticated')
      await deleteAccount(app.ctx, request.user, request.body.password)
      reply.header('cache-control', 'no-store')
      // The sessions are gone from the database; this clears this browser's cookie.
      try {
        const result = await app.ctx.auth.api.signOut({ headers: toWebHeaders(request.headers), returnHeaders: true })
        forwardSetCookie(result.headers, reply)
      } catch (error) {
        if (!(error instanceof APIError)) throw error
      }
      return { ok: true as const }
    },
  )
}
