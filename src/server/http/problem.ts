import type { FastifyError, FastifyInstance } from 'fastify'
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { DomainError, type DomainErrorCode, errorText } from '../../domain/errors'

/** Every code has a status, or the build breaks. */
export const problemStatus: Record<DomainErrorCode, number> = {
  validation_failed: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  rate_limited: 429,
  unknown: 500,
  origin_forbidden: 403,
  origin_required: 403,
  service_unavailable: 503,
  whatsapp_invalid: 400,
  code_invalid: 400,
  code_attempts_exceeded: 429,
  code_resend_too_soon: 429,
  code_hourly_limit: 429,
  code_daily_limit: 429,
  whatsapp_not_verified: 400,
  whatsapp_send_failed: 502,
  email_taken: 422,
  password_too_short: 400,
  password_too_long: 400,
  invalid_credentials: 401,
  email_not_verified: 403,
  invalid_token: 400,
  email_invalid: 400,
  password_incorrect: 400,
  account_has_live_subscription: 409,
  account_has_open_invoice: 409,
  last_admin_delete: 409,
  account_locked: 429,
  // 400, not 401: a wrong code or password in a dialog must not look like a lost session to the dashboard.
  two_factor_invalid: 400,
  two_factor_expired: 400,
  two_factor_locked: 429,
  two_factor_already_enabled: 409,
  two_factor_not_enabled: 409,
  two_factor_setup_required: 403,
  reauthentication_required: 403,
  plan_not_found: 404,
  plan_in_use: 409,
  plan_exists: 409,
  subscription_not_found: 404,
  payment_not_found: 404,
  payment_not_pending: 409,
  payment_not_paid: 409,
  pix_not_configured: 503,
  pix_key_invalid: 400,
  cannot_cancel: 409,
  cannot_upgrade: 409,
  no_higher_plan: 409,
  plan_not_higher: 400,
  card_unavailable: 503,
  card_provider_error: 502,
  invoice_not_open: 409,
  card_declined: 402,
  webhook_signature_invalid: 400,
  whatsapp_signature_invalid: 401,
  simulator_disabled: 404,
  last_admin: 409,
  e2e_id_taken: 409,
  card_subscription_managed: 409,
  pix_api_disabled: 409,
  pix_refund_not_allowed: 409,
  pix_refund_too_much: 409,
  pix_provider_error: 502,
  pix_automatico_disabled: 409,
  tax_id_required: 400,
  tax_id_invalid: 400,
  pix_automatico_not_found: 404,
  pix_automatico_not_allowed: 409,
  user_not_found: 404,
  payload_too_large: 413,
}

export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.string(),
    message: z.string(),
    detail: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem' })

export type Problem = z.infer<typeof problemSchema>

export function problem(code: DomainErrorCode, message?: string, extra: Partial<Problem> = {}): Problem {
  const text = message ?? errorText[code]
  return {
    type: `urn:problem:${code}`,
    title: code,
    status: problemStatus[code],
    code,
    message: text,
    detail: text,
    ...extra,
  }
}

/** Seconds a client is asked to wait when the database is unavailable. */
export const retryAfterSeconds = 5

// SQLSTATE classes and codes that mean "the server is not there", not "the query was wrong": 08 connection
// exception, 57P01-57P03 shutdown / cannot connect now, 53300 too many connections, 57014 a statement cancelled
// (DATABASE_STATEMENT_TIMEOUT_MS: it ran, or waited for a lock, too long; its transaction was rolled back).
const unavailableSqlStates = /^(08|57P0[123]$|53300$|57014$)/
const unavailableNodeCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE'])
const unavailableMessages = [
  'Connection terminated', // node-postgres: the server went away mid-query
  'connection timeout', // node-postgres: connectionTimeoutMillis
  'timeout exceeded when trying to connect', // pg-pool: no connection free or made within connectionTimeoutMillis
  'Cannot use a pool after calling end', // node-postgres: pool closed
  'PGlite is closed', // embedded database closed
  'is not currently accepting connections', // PostgreSQL: the database is closed to connections (55000)
]

/** True when an error (or one of its causes: drizzle and better-auth wrap them) says the database is unreachable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 6; depth += 1) {
    if (typeof e !== 'object') return false
    const { code, message } = e as { code?: unknown; message?: unknown }
    if (typeof code === 'string' && (unavailableSqlStates.test(code) || unavailableNodeCodes.has(code))) return true
    if (typeof message === 'string' && unavailableMessages.some((m) => message.includes(m))) return true
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}

// SQLSTATEs of values the database cannot take as given (a NUL byte in a text, a number or date out of range, a
// malformed value): the input is at fault, so 400, not 500 (found by the hostile-input test).
const inputDataSqlStates = new Set(['22021', '22P05', '22P02', '22003', '22007', '22008', '22001'])

/** True when an error (or one of its causes) is the database refusing a value it was given. */
export function isInputDataError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 6; depth += 1) {
    const { code } = e as { code?: unknown }
    if (typeof code === 'string' && inputDataSqlStates.has(code)) return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}

/** One error handler: DomainError → its status; schema failures → 400; anything else → logged, 500 'unknown'. */
export function registerProblemHandler(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError | DomainError | Error, request, reply) => {
    let body: Problem
    if (error instanceof DomainError) {
      body = problem(error.code, error.message)
      // Overload (e.g. too many password checks waiting, auth/password-hash.ts): nothing was done, come back soon.
      if (error.code === 'service_unavailable') reply.header('retry-after', String(retryAfterSeconds))
    } else if (hasZodFastifySchemaValidationErrors(error)) {
      const errors = error.validation.map((v) => ({
        path: (v.instancePath || '/').replace(/^\//, '').replaceAll('/', '.'),
        message: v.message ?? 'inválido',
      }))
      const first = errors[0]
      body = problem(
        'validation_failed',
        first?.message && first.message !== 'Invalid input' ? first.message : undefined,
        {
          errors,
        },
      )
    } else if ('statusCode' in error && error.statusCode === 413) {
      body = problem('payload_too_large')
    } else if ('statusCode' in error && error.statusCode === 429) {
      body = problem('rate_limited')
    } else if ('statusCode' in error && typeof error.statusCode === 'number' && error.statusCode < 500) {
      body = problem('validation_failed', undefined, { status: error.statusCode })
    } else if (isInputDataError(error)) {
      request.log.warn({ err: error, reqId: request.id }, 'value refused by the database')
      body = problem('validation_failed')
    } else if (isDatabaseUnavailable(error)) {
      // The database is down or unreachable: nothing was done; the pool reconnects by itself when it is back.
      request.log.error({ err: error, reqId: request.id }, 'database unavailable')
      reply.header('retry-after', String(retryAfterSeconds))
      body = problem('service_unavailable')
    } else {
      request.log.error({ err: error, reqId: request.id }, 'unhandled error')
      body = problem('unknown')
    }
    return reply.status(body.status).type('application/problem+json').send(body)
  })
}
