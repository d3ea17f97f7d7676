// TOTP two-factor (better-auth's twoFactor plugin, its HTTP handler not mounted: these routes call auth.api) and the
// step-up re-authentication that sensitive admin changes ask for.
import { APIError } from 'better-auth/api'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import {
  backupCodesSchema,
  okSchema,
  passwordOnlyInputSchema,
  reauthenticateInputSchema,
  sessionSchema,
  twoFactorEnrolmentSchema,
  twoFactorSignInInputSchema,
} from '../../../domain/contracts/auth'
import { DomainError, type DomainErrorCode } from '../../../domain/errors'
import { problemSchema } from '../../http/problem'
import { toSessionUser } from '../../http/session'
import { forwardSetCookie, toWebHeaders } from '../../http/web-headers'
import { clientKey, hitRateLimit, rateRules } from '../rate-limit/rate-limit'
import { stampReauthentication } from './step-up'

const errors = {
  400: problemSchema,
  401: problemSchema,
  403: problemSchema,
  409: problemSchema,
  429: problemSchema,
}

/** The plugin's error codes in our words. */
const twoFactorErrorCodes: Record<string, DomainErrorCode> = {
  INVALID_CODE: 'two_factor_invalid',
  INVALID_BACKUP_CODE: 'two_factor_invalid',
  INVALID_TWO_FACTOR_COOKIE: 'two_factor_expired',
  TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE: 'two_factor_expired',
  ACCOUNT_TEMPORARILY_LOCKED: 'two_factor_locked',
  TOTP_ALREADY_ENABLED: 'two_factor_already_enabled',
  TOTP_NOT_ENABLED: 'two_factor_not_enabled',
  TWO_FACTOR_NOT_ENABLED: 'two_factor_not_enabled',
  BACKUP_CODES_NOT_ENABLED: 'two_factor_not_enabled',
  INVALID_PASSWORD: 'password_incorrect',
  UNAUTHORIZED: 'unauthenticated',
}

/** Runs a better-auth call, its errors in our words. */
async function viaAuth<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof APIError) {
      const code = typeof error.body?.code === 'string' ? twoFactorErrorCodes[error.body.code] : undefined
      if (code) throw new DomainError(code)
    }
    throw error
  }
}

/** A recovery code as printed is `xxxxx-xxxxx`; people drop the dash or add spaces. */
function normalizeCode(raw: string): string {
  const code = raw.replace(/\s+/g, '')
  if (/^[A-Za-z0-9]{10}$/.test(code) && !/^\d+$/.test(code)) return `${code.slice(0, 5)}-${code.slice(5)}`
  return code
}

function userOf(request: FastifyRequest) {
  if (!request.user || !request.sessionId) throw new DomainError('unauthenticated')
  return { user: request.user, sessionId: request.sessionId }
}

export const twoFactorRoutes: FastifyPluginAsyncZod = async (app) => {
  const { auth, now } = app.ctx
  const guard = { onRequest: app.requireUser }
  /** Password and code checks of a signed-in account share the sign-in limit per account. */
  const limitChecks = (userId: string) =>
    hitRateLimit(app.ctx.db, `password-check:account:${userId}`, rateRules.signInFailuresPerAccountAndIp, now())

  app.post(
    '/api/auth/two-factor/verify',
    {
      schema: {
        tags: ['auth'],
        summary: "Segunda etapa do login: 'Código de verificação' (TOTP) ou um código de recuperação",
        description:
          'Usa o cookie de desafio que POST /api/auth/sign-in deixou (10 minutos, 5 tentativas). Cada código de ' +
          'recuperação vale uma vez. 10 erros seguidos bloqueiam a conta por 15 minutos.',
        body: twoFactorSignInInputSchema,
        response: { 200: sessionSchema, ...errors },
      },
    },
    async (request, reply) => {
      await hitRateLimit(app.ctx.db, `two-factor:ip:${clientKey(request.ip)}`, rateRules.signInPerIp, now())
      const code = normalizeCode(request.body.code)
      const headers = toWebHeaders(request.headers)
      return await viaAuth(async () => {
        const result = /^\d{6}$/.test(code)
          ? await auth.api.verifyTOTP({ body: { code }, headers, returnHeaders: true })
          : await auth.api.verifyBackupCode({ body: { code }, headers, returnHeaders: true })
        forwardSetCookie(result.headers, reply)
        return { user: toSessionUser(result.response.user, app.ctx.config.adminMfa) }
      })
    },
  )

  app.post(
    '/api/auth/two-factor/enable',
    {
      ...guard,
      schema: {
        tags: ['auth'],
        summary: 'Inicia a verificação em duas etapas (senha): devolve o endereço TOTP, o segredo e os códigos',
        description:
          'Nada muda no login até POST /api/auth/two-factor/confirm com o primeiro código do aplicativo. Os códigos ' +
          'de recuperação só aparecem nesta resposta.',
        body: passwordOnlyInputSchema,
        response: { 200: twoFactorEnrolmentSchema, ...errors },
      },
    },
    async (request) => {
      const { user } = userOf(request)
      await limitChecks(user.id)
      return await viaAuth(async () => {
        const result = await auth.api.enableTwoFactor({
          body: { password: request.body.password },
          headers: toWebHeaders(request.headers),
        })
        if (!('totpURI' in result) || !result.totpURI) throw new DomainError('unknown')
        const secret = new URL(result.totpURI).searchParams.get('secret') ?? ''
        return { totpUri: result.totpURI, secret, backupCodes: result.backupCodes ?? [] }
      })
    },
  )

  app.post(
    '/api/auth/two-factor/confirm',
    {
      ...guard,
      schema: {
        tags: ['auth'],
        summary: 'Confirma a ativação com o primeiro código do aplicativo; a sessão é renovada',
        body: twoFactorSignInInputSchema,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { user } = userOf(request)
      await limitChecks(user.id)
      const code = request.body.code.replace(/\s+/g, '')
      if (!/^\d{6}$/.test(code)) throw new DomainError('two_factor_invalid')
      await viaAuth(async () => {
        const result = await auth.api.verifyTOTP({
          body: { code },
          headers: toWebHeaders(request.headers),
          returnHeaders: true,
        })
        forwardSetCookie(result.headers, reply)
      })
      return { ok: true as const }
    },
  )

  app.post(
    '/api/auth/two-factor/disable',
    {
      ...guard,
      schema: {
        tags: ['auth'],
        summary: 'Desativa a verificação em duas etapas (senha); a sessão é renovada',
        body: passwordOnlyInputSchema,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { user } = userOf(request)
      await limitChecks(user.id)
      if (!user.twoFactorEnabled) throw new DomainError('two_factor_not_enabled')
      await viaAuth(async () => {
        const result = await auth.api.disableTwoFactor({
          body: { password: request.body.password },
          headers: toWebHeaders(request.headers),
          returnHeaders: true,
        })
        forwardSetCookie(result.headers, reply)
      })
      return { ok: true as const }
    },
  )

  app.post(
    '/api/auth/two-factor/backup-codes',
    {
      ...guard,
      schema: {
        tags: ['auth'],
        summary: 'Gera novos códigos de recuperação (senha); os anteriores deixam de valer',
        body: passwordOnlyInputSchema,
        response: { 200: backupCodesSchema, ...errors },
      },
    },
    async (request) => {
      const { user } = userOf(request)
      await limitChecks(user.id)
      return await viaAuth(async () => {
        const result = await auth.api.generateBackupCodes({
          body: { password: request.body.password },
          headers: toWebHeaders(request.headers),
        })
        return { backupCodes: result.backupCodes }
      })
    },
  )

  app.post(
    '/api/auth/reauthenticate',
    {
      ...guard,
      schema: {
        tags: ['auth'],
        summary:
          'Confirma a identidade de novo (senha ou código TOTP) para alterações sensíveis nos próximos 5 minutos',
        description:
          'Mudar o papel de um usuário e a chave PIX ou o beneficiário respondem 403 reauthentication_required ' +
          'sem uma confirmação nos últimos 5 minutos nesta sessão.',
        body: reauthenticateInputSchema,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) => {
      const { user, sessionId } = userOf(request)
      await limitChecks(user.id)
      const input = request.body
      if ('password' in input) {
        const context = await auth.$context
        const account = await context.internalAdapter.findCredentialAccount(user.id)
        const valid = account?.password
          ? await context.password.verify({ hash: account.password, password: input.password })
          : false
        if (!valid) throw new DomainError('password_incorrect')
      } else {
        // Only an enabled two-factor: a pending enrolment's code would otherwise switch it on from here.
        if (!user.twoFactorEnabled) throw new DomainError('two_factor_not_enabled')
        await viaAuth(async () => {
          await auth.api.verifyTOTP({ body: { code: input.code }, headers: toWebHeaders(request.headers) })
        })
      }
      await stampReauthentication(app.ctx, sessionId)
      return { ok: true as const }
    },
  )
}
