// The signed-in user of a request in one SQL query, for the common case (session.ts calls it first). better-auth's
// getSession does the same work through its endpoint machinery (Web Headers, two lookups, cookie bookkeeping); here
// a valid session that needs nothing written is answered by one indexed join, still on every request (no cache: a
// revoked session, a role change or a deleted account applies to the very next request, on every instance). Every
// other case — no row, expired, due for its daily extension, past the 30-day limit, a stale `session_data` or a
// `dont_remember` cookie — returns 'delegate', and better-auth handles it exactly as before.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import type { AppContext } from '../context'
import { hotRows, timestampOf } from '../db/hot-rows'
import { sessionRules } from '../modules/auth/auth'

export type SessionRow = {
  sessionId: string
  expiresAt: Date
  sessionCreatedAt: Date
  user: {
    id: string
    name: string
    email: string
    createdAt: Date
    companyName: string
    whatsappNumber: string
    roleId: number
    twoFactorEnabled: boolean
  }
}

/** The cookie names better-auth uses (auth.ts: `__Host-` prefixed on https). */
function cookieNames(secure: boolean) {
  const name = (n: string) => (secure ? `__Host-billing.${n}` : `billing.${n}`)
  return { token: name('session_token'), data: name('session_data'), dontRemember: name('dont_remember') }
}

/**
 * Cookies whose signature was checked, per secret: the same cookie comes back on every request of a session, and its
 * HMAC was about a twentieth of the customer's list call. Only good signatures are kept (a forged cookie is checked each
 * time), and at most `verifiedLimit` per secret: the map is emptied when full.
 */
const verifiedBySecret = new Map<string, Map<string, string>>()
const verifiedLimit = 4096

/** better-call's signed cookie: `value.base64(HMAC-SHA256(secret, value))`; the value, or null when forged. */
export function verifiedCookieValue(raw: string, secret: string): string | null {
  let verified = verifiedBySecret.get(secret)
  const known = verified?.get(raw)
  if (known !== undefined) return known
  const value = signedValue(raw, secret)
  if (value === null) return null
  if (!verified) {
    verified = new Map()
    verifiedBySecret.set(secret, verified)
  }
  if (verified.size >= verifiedLimit) verified.clear()
  verified.set(raw, value)
  return value
}

function signedValue(raw: string, secret: string): string | null {
  const dot = raw.lastIndexOf('.')
  if (dot < 1) return null
  const value = raw.slice(0, dot)
  const signature = raw.slice(dot + 1)
  if (signature.length !== 44 || !signature.endsWith('=')) return null
  const given = Buffer.from(signature, 'base64')
  const expected = createHmac('sha256', secret).update(value).digest()
  return given.length === expected.length && timingSafeEqual(given, expected) ? value : null
}

/**
 * The session and user columns, 0–10, as every hot statement starts (the role is read on every request). The lists
 * (billing/customer-lists.repo.ts) join their page to these.
 */
export const sessionColumns = `s.id, s.expires_at, s.created_at, u.id, u.name, u.email, u.created_at, u.company_name,
  u.whatsapp_number, u.role_id, u.two_factor_enabled`
export const sessionFrom = 'from sessions s join profiles u on u.id = s.user_id'

/** The session of a hot row (its columns 0–10). */
export function toSessionRow(r: unknown[]): SessionRow {
  return {
    sessionId: String(r[0]),
    expiresAt: timestampOf(r[1]),
    sessionCreatedAt: timestampOf(r[2]),
    user: {
      id: String(r[3]),
      name: String(r[4]),
      email: String(r[5]),
      createdAt: timestampOf(r[6]),
      companyName: String(r[7]),
      whatsappNumber: String(r[8]),
      roleId: Number(r[9]),
      twoFactorEnabled: r[10] === true,
    },
  }
}

const sessionSql = `select ${sessionColumns} ${sessionFrom} where s.token = $1`

async function findSession(ctx: AppContext, token: string): Promise<SessionRow | null> {
  const first = (await hotRows(ctx.database, 'session_lookup', sessionSql, [token]))[0]
  return first ? toSessionRow(first) : null
}

/** The verified session token of the request: null without a session cookie, 'delegate' when better-auth must decide. */
export function sessionToken(ctx: AppContext, request: FastifyRequest): string | null | 'delegate' {
  const names = cookieNames(ctx.config.secureCookies)
  const cookies = request.cookies ?? {}
  if (cookies[names.data] !== undefined || cookies[names.dontRemember] !== undefined) return 'delegate'
  const raw = cookies[names.token]
  if (raw === undefined) return null
  return verifiedCookieValue(raw, ctx.config.authSecret) ?? 'delegate'
}

/** The session row found for the token, when it is valid and needs nothing written; 'delegate' otherwise. */
export function validSession(ctx: AppContext, found: SessionRow): SessionRow | 'delegate' {
  // better-auth's own clock for expiry and the daily extension; ours (ctx.now) for the 30-day limit (session.ts).
  const now = Date.now()
  if (found.expiresAt.getTime() < now) return 'delegate'
  if (found.expiresAt.getTime() - sessionRules.expiresInS * 1000 + sessionRules.updateAgeS * 1000 <= now)
    return 'delegate'
  if (ctx.now().getTime() - found.sessionCreatedAt.getTime() >= sessionRules.absoluteLifetimeMs) return 'delegate'
  return found
}

/** null: nobody is signed in (no cookie at all); a row: the valid session; 'delegate': let better-auth decide. */
export async function lookupSession(ctx: AppContext, request: FastifyRequest): Promise<SessionRow | null | 'delegate'> {
  const token = sessionToken(ctx, request)
  if (token === null || token === 'delegate') return token
  const found = await findSession(ctx, token)
  if (!found) return 'delegate'
  return validSession(ctx, found)
}
