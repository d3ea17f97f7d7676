// A WhatsApp verification belongs to the browser that asked for it. send-code gives the browser a random token in
// an httpOnly cookie (kept if it already has one) and the code row stores only the token's SHA-256; verify-code
// checks the newest code of that number *for that browser*, and sign-up / the profile's number change consume a
// verification only with the same cookie. Someone polling with the number alone, or sending codes to it from
// elsewhere, neither claims nor disturbs another browser's verification.
import { randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { codeRules } from './verification.service'

/** Long enough for a code (10 min) and then the verified number (30 min); every send or verify renews it. */
export const browserCookieMaxAgeSeconds = (codeRules.validForMs + codeRules.verifiedValidForMs) / 1000

/** `__Host-` on https: only this origin, over TLS, at Path=/, can set it (a sibling subdomain cannot plant one). */
export function browserCookieName(secure: boolean): string {
  return secure ? '__Host-billing.wa_browser' : 'billing.wa_browser'
}

/** The browser's token, if it sent a well-formed one. */
export function readBrowserToken(request: FastifyRequest, secure: boolean): string | undefined {
  const value = request.cookies[browserCookieName(secure)]
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined
}

/** The browser's token, minted if it has none, and (re)sent with a fresh lifetime. */
export function issueBrowserToken(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const token = readBrowserToken(request, secure) ?? randomBytes(32).toString('base64url')
  reply.setCookie(browserCookieName(secure), token, {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: '/',
    maxAge: browserCookieMaxAgeSeconds,
  })
  return token
}
