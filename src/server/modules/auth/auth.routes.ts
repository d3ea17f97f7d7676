import { APIError } from 'better-auth/api'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  emailOnlyInputSchema,
  okSchema,
  resetPasswordInputSchema,
  sendCodeInputSchema,
  sessionSchema,
  signInInputSchema,
  signInResultSchema,
  signUpInputSchema,
  verifyCodeInputSchema,
} from '../../../domain/contracts/auth'
import { DomainError, type DomainErrorCode } from '../../../domain/errors'
import { problemSchema } from '../../http/problem'
import { hotSerializer } from '../../http/hot-serializer'
import { toSessionUser } from '../../http/session'
import { forwardSetCookie, toWebHeaders } from '../../http/web-headers'
import { clientKey, hitRateLimit, rateRules } from '../rate-limit/rate-limit'
import { issueBrowserToken, readBrowserToken } from '../whatsapp/browser-token'
import { emailTaken } from './auth.repo'
import { assertSignInAllowed, recordSignInFailure } from './sign-in-guard'
import {
  consumeVerification,
  releaseVerification,
  sendVerificationCode,
  verifyCode,
} from '../whatsapp/verification.service'
import { twoFactorRoutes } from './two-factor.routes'

const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 422: problemSchema, 429: problemSchema }

/** better-auth's error codes in our words. */
const authErrorCodes: Record<string, DomainErrorCode> = {
  INVALID_EMAIL_OR_PASSWORD: 'invalid_credentials',
  INVALID_EMAIL: 'email_invalid',
  INVALID_PASSWORD: 'invalid_credentials',
  EMAIL_NOT_VERIFIED: 'email_not_verified',
  USER_ALREADY_EXISTS: 'email_taken',
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: 'email_taken',
  PASSWORD_TOO_SHORT: 'password_too_short',
  PASSWORD_TOO_LONG: 'password_too_long',
  INVALID_TOKEN: 'invalid_token',
  TOKEN_EXPIRED: 'invalid_token',
  USER_NOT_FOUND: 'invalid_token',
}

export function translate(error: unknown): unknown {
  if (error instanceof APIError) {
    const code = typeof error.body?.code === 'string' ? authErrorCodes[error.body.code] : undefined
    if (code) return new DomainError(code)
  }
  return error
}

export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { auth, now } = app.ctx
  await app.register(twoFactorRoutes)
  const verificationDeps = () => ({
    db: app.ctx.db,
    whatsapp: app.ctx.whatsapp,
    secret: app.ctx.config.authSecret,
    now,
  })

  app.post(
    '/api/whatsapp/send-code',
    {
      schema: {
        tags: ['auth'],
        summary: 'Envia um código de 6 dígitos pelo WhatsApp (send-whatsapp-verification)',
        body: sendCodeInputSchema,
        response: { 200: okSchema, ...errors, 502: problemSchema },
      },
    },
    async (request, reply) => {
      const browserToken = issueBrowserToken(request, reply, app.ctx.config.secureCookies)
      await sendVerificationCode(verificationDeps(), request.body.phone_number, request.ip, browserToken)
      return { ok: true as const }
    },
  )

  app.post(
    '/api/whatsapp/verify-code',
    {
      schema: {
        tags: ['auth'],
        summary: 'Confere o código enviado pelo WhatsApp (verify-whatsapp-code)',
        body: verifyCodeInputSchema,
        response: { 200: z.object({ success: z.literal(true) }), ...errors },
      },
    },
    async (request, reply) => {
      const browserToken = readBrowserToken(request, app.ctx.config.secureCookies)
      await verifyCode(verificationDeps(), request.body.phone_number, request.body.code, request.ip, browserToken)
      // The verified number now waits 30 minutes for this browser: the cookie lives that long from here.
      issueBrowserToken(request, reply, app.ctx.config.secureCookies)
      return { success: true as const }
    },
  )

  app.post(
    '/api/auth/sign-up',
    {
      schema: {
        tags: ['auth'],
        summary: 'Cria a conta; exige o WhatsApp verificado nos últimos 30 minutos e envia o e-mail de confirmação',
        body: signUpInputSchema,
        response: { 201: okSchema, ...errors },
      },
    },
    async (request, reply) => {
      const input = request.body
      await hitRateLimit(app.ctx.db, `sign-up:ip:${clientKey(request.ip)}`, rateRules.signUpPerIp, now())
      // The number's verification first (made by this browser): without one, nobody learns whether an e-mail is
      // registered.
      const browserToken = readBrowserToken(request, app.ctx.config.secureCookies)
      const verificationId = await consumeVerification(app.ctx.db, input.whatsappNumber, browserToken, now())
      if (await emailTaken(app.ctx.db, input.email)) {
        // Given back, so the common mistake (an e-mail already registered) costs no new code.
        await releaseVerification(app.ctx.db, verificationId)
        throw new DomainError('email_taken')
      }
      try {
        await auth.api.signUpEmail({
          body: {
            name: input.name,
            email: input.email,
            password: input.password,
            companyName: input.companyName,
            whatsappNumber: input.whatsappNumber,
            callbackURL: '/login?verified=1',
          },
          headers: toWebHeaders(request.headers),
        })
      } catch (error) {
        await releaseVerification(app.ctx.db, verificationId)
        throw translate(error)
      }
      return reply.status(201).send({ ok: true as const })
    },
  )

  app.post(
    '/api/auth/sign-in',
    {
      schema: {
        tags: ['auth'],
        summary: 'Entra com e-mail e senha; a sessão vai num cookie httpOnly',
        description:
          'Com a verificação em duas etapas ativa, responde `{ user: null, twoFactorRequired: true }` sem sessão: ' +
          'o código vai em POST /api/auth/two-factor/verify.',
        body: signInInputSchema,
        response: { 200: signInResultSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body
      const guard = { ...app.ctx, log: request.log }
      await assertSignInAllowed(guard, email, request.ip)
      try {
        const result = await auth.api.signInEmail({
          body: { email, password },
          headers: toWebHeaders(request.headers),
          returnHeaders: true,
        })
        forwardSetCookie(result.headers, reply)
        // Two-factor on: no session yet, only the short-lived challenge cookie; the code comes next.
        if ('twoFactorRedirect' in result.response) return { user: null, twoFactorRequired: true as const }
        return { user: toSessionUser(result.response.user, app.ctx.config.adminMfa) }
      } catch (error) {
        const translated = translate(error)
        if (translated instanceof DomainError && translated.code === 'invalid_credentials')
          await recordSignInFailure(guard, email, request.ip)
        throw translated
      }
    },
  )

  app.post(
    '/api/auth/sign-out',
    { schema: { tags: ['auth'], summary: 'Encerra a sessão e a revoga no servidor', response: { 200: okSchema } } },
    async (request, reply) => {
      try {
        const result = await auth.api.signOut({ headers: toWebHeaders(request.headers), returnHeaders: true })
        forwardSetCookie(result.headers, reply)
      } catch (error) {
        // Signing out without a session is already done.
        if (!(error instanceof APIError)) throw error
      }
      return { ok: true as const }
    },
  )

  app.get(
    '/api/auth/session',
    {
      serializerCompiler: hotSerializer(app.ctx.config.NODE_ENV === 'production'),
      // One user, a few hundred bytes (the sign-up form's length limits keep it near compression's 1 KB
      // threshold at most): not worth compressing, so the route skips the plugin's two hooks on every call.
      compress: false,
      schema: { tags: ['auth'], summary: 'A sessão atual (user null quando não há)', response: { 200: sessionSchema } },
    },
    // `cache-control: no-store` comes with every API answer (http/security-headers.ts).
    async (request, reply) => ({ user: await app.loadUser(request, reply) }),
  )

  app.get(
    '/api/auth/verify-email',
    {
      schema: {
        tags: ['auth'],
        summary: 'Link do e-mail de confirmação; redireciona para /login',
        querystring: z.object({ token: z.string().min(1).max(4000) }),
        response: { 302: z.null() },
      },
    },
    async (request, reply) => {
      try {
        await auth.api.verifyEmail({ query: { token: request.query.token } })
        return reply.redirect('/login?verified=1')
      } catch {
        return reply.redirect('/login?verifyError=1')
      }
    },
  )

  app.post(
    '/api/auth/resend-verification',
    {
      schema: {
        tags: ['auth'],
        summary: 'Reenvia o e-mail de confirmação (responde ok mesmo se o e-mail não existir)',
        body: emailOnlyInputSchema,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) => {
      await hitRateLimit(app.ctx.db, `resend:ip:${clientKey(request.ip)}`, rateRules.resendVerificationPerIp, now())
      await hitRateLimit(app.ctx.db, `resend:account:${request.body.email}`, rateRules.passwordResetPerAccount, now())
      try {
        await auth.api.sendVerificationEmail({ body: { email: request.body.email, callbackURL: '/login?verified=1' } })
      } catch (error) {
        if (!(error instanceof APIError)) throw error
      }
      return { ok: true as const }
    },
  )

  app.post(
    '/api/auth/forgot-password',
    {
      schema: {
        tags: ['auth'],
        summary: 'Envia o link de redefinição de senha (responde ok mesmo se o e-mail não existir)',
        body: emailOnlyInputSchema,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) => {
      await hitRateLimit(app.ctx.db, `reset:ip:${clientKey(request.ip)}`, rateRules.passwordResetPerIp, now())
      await hitRateLimit(app.ctx.db, `reset:account:${request.body.email}`, rateRules.passwordResetPerAccount, now())
      await auth.api.requestPasswordReset({ body: { email: request.body.email, redirectTo: '/reset-password' } })
      return { ok: true as const }
    },
  )

  app.post(
    '/api/auth/reset-password',
    {
      schema: {
        tags: ['auth'],
        summary: 'Define a nova senha com o token do e-mail; encerra as outras sessões',
        body: resetPasswordInputSchema,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) => {
      try {
        await auth.api.resetPassword({ body: request.body })
      } catch (error) {
        throw translate(error)
      }
      return { ok: true as const }
    },
  )
}
