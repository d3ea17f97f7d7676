import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { SessionUser } from '../../../domain/contracts/auth'
import { profileSchema, profileUpdateInputSchema, whatsappChangeInputSchema } from '../../../domain/contracts/billing'
import { DomainError } from '../../../domain/errors'
import { problemSchema } from '../../http/problem'
import { profileDataRoutes } from './profile-data.routes'
import { clientKey, hitRateLimit, rateRules } from '../rate-limit/rate-limit'
import { readBrowserToken } from '../whatsapp/browser-token'
import { changeWhatsapp, getProfile, updateProfile } from './profile.service'

const writeErrors = { 400: problemSchema, 401: problemSchema, 403: problemSchema } as const
const whatsappErrors = { ...writeErrors, 429: problemSchema } as const

/** requireUser ran before every handler here; this only narrows the type. */
function userOf(request: FastifyRequest): SessionUser {
  if (!request.user) throw new DomainError('unauthenticated')
  return request.user
}

export const profileRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(profileDataRoutes) // 'Meus dados': export and account deletion (LGPD)

  app.get(
    '/api/profile',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['profile'],
        summary: 'Perfil do usuário conectado',
        response: { 200: profileSchema, 401: problemSchema },
      },
    },
    async (request) => getProfile(app.ctx, userOf(request)),
  )

  app.patch(
    '/api/profile',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['profile'],
        summary: 'Atualiza nome e empresa do próprio perfil (e-mail e papel não são alteráveis)',
        body: profileUpdateInputSchema,
        response: { 200: profileSchema, ...writeErrors },
      },
    },
    async (request) => updateProfile(app.ctx, userOf(request), request.body),
  )

  app.post(
    '/api/profile/whatsapp',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['profile'],
        summary: 'Troca o WhatsApp do perfil; exige o novo número verificado por código nos últimos 30 minutos',
        body: whatsappChangeInputSchema,
        response: { 200: profileSchema, ...whatsappErrors },
      },
    },
    async (request) => {
      const user = userOf(request)
      const now = app.ctx.now()
      // Limited like sign-up: each change costs a verification, and a stolen session must not probe numbers.
      await hitRateLimit(app.ctx.db, `wa-change:ip:${clientKey(request.ip)}`, rateRules.whatsappChangePerIp, now)
      await hitRateLimit(app.ctx.db, `wa-change:user:${user.id}`, rateRules.whatsappChangePerUser, now)
      const browserToken = readBrowserToken(request, app.ctx.config.secureCookies)
      return changeWhatsapp(app.ctx, user, request.body.whatsapp_number, browserToken)
    },
  )
}
