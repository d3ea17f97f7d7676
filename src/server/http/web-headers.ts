import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyReply } from 'fastify'

/** Fastify's raw headers as a Web `Headers`, for better-auth's API. */
export function toWebHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v)
    else if (value !== undefined) headers.set(name, value)
  }
  return headers
}

/** Copies the cookies better-auth set (sign-in, sign-out, session extension) onto the reply. */
export function forwardSetCookie(from: Headers | null | undefined, reply: FastifyReply): void {
  const cookies = from?.getSetCookie() ?? []
  if (cookies.length > 0) reply.header('set-cookie', cookies)
}
