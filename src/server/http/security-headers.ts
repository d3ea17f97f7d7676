// Helmet's security headers, computed once. @fastify/helmet builds a new helmet middleware for every request (it
// parses the CSP directives again each time, in two onRequest hooks); our options are static (no nonces, no
// per-route settings), so the headers are the same for every answer: helmet runs once at start-up against a
// recording response and each request gets the recorded list in one synchronous hook, set on the raw response as
// helmet itself does.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import helmet, { type HelmetOptions } from 'helmet'

/** The headers helmet sets with these options, in its order. */
export function securityHeaders(options: HelmetOptions): [string, string][] {
  const headers = new Map<string, string>()
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers.set(name, String(value))
      return recorder
    },
    removeHeader(name: string) {
      headers.delete(name)
    },
  }
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error
  })
  return [...headers]
}

/** Every answer (API, pages, assets, errors) carries the headers, as with @fastify/helmet's global mode. */
export function registerSecurityHeaders(app: FastifyInstance, options: HelmetOptions): void {
  const headers = securityHeaders(options)
  app.addHook('onRequest', (_request, reply, done) => {
    const raw = reply.raw
    for (const [name, value] of headers) raw.setHeader(name, value)
    done()
  })
}
