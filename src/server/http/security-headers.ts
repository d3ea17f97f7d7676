// Security headers, computed once, in two sets.
// - A document (a page, its assets, an error page, Swagger UI, the development card simulator) gets helmet's set.
//   @fastify/helmet builds a new helmet middleware for every request (it parses the CSP directives again each time,
//   in two onRequest hooks); our options are static (no nonces, no per-route settings), so helmet runs once at
//   start-up against a recording response and each request gets the recorded list.
// - An API answer (JSON read by our own scripts, never rendered) gets the set OWASP's REST Security Cheat Sheet gives
//   for APIs: no caching, nothing may load or frame it if it is ever opened as a page, no sniffing, no cross-origin
//   reads, HSTS on https. Helmet's other headers only mean something to a document (COOP, Origin-Agent-Cluster,
//   X-DNS-Prefetch-Control, X-Download-Options, X-Permitted-Cross-Domain-Policies, X-XSS-Protection); sending them on
//   every API answer cost about 8 % of the session call's throughput (seven more header lines to write and parse).
// Both are set in one synchronous hook on Fastify's reply headers, so a route's own `reply.header(…)` (the plans'
// `cache-control: no-cache` with an ETag) replaces ours. Not on the raw response (as helmet does): one `setHeader`
// there makes Node validate and store every header of the answer again when Fastify writes its head.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import helmet, { type HelmetOptions } from 'helmet'

/** The headers helmet sets with these options, in its order. */
export function securityHeaders(options: HelmetOptions): [string, string][] {
  const headers = new Map<string, string>()
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers.set(name.toLowerCase(), String(value))
      return recorder
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase())
    },
  }
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error
  })
  return [...headers]
}

/** An API answer's headers; HSTS exactly as the documents get it (present only when helmet's options set it). */
export function apiSecurityHeaders(documentHeaders: [string, string][]): [string, string][] {
  const hsts = documentHeaders.filter(([name]) => name === 'strict-transport-security')
  return [
    ['cache-control', 'no-store'],
    ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
    ['cross-origin-resource-policy', 'same-origin'],
    ['x-content-type-options', 'nosniff'],
    ['x-frame-options', 'DENY'],
    ...hsts,
  ]
}

/**
 * Routes under /api/ that answer HTML: their own documents (Swagger UI sets its own CSP on top; the card simulator
 * exists outside production only). Any other route under /api/ is an API answer. A new HTML route under /api/ that
 * is not listed here would get `default-src 'none'` and show unstyled: the mistake is visible, never a weaker policy.
 */
const documentsUnderApi = ['/api/docs', '/api/dev/']

/**
 * Every answer (API, pages, assets, errors) carries one of the sets, chosen by the route that matched. Whatever a
 * route under /api/ answers is someone's data unless the route says otherwise (the plans: `no-cache` with an ETag):
 * nothing between the browser and us may keep it, nor the browser itself (`no-store`, in both of its sets).
 */
export function registerSecurityHeaders(app: FastifyInstance, options: HelmetOptions): void {
  const document = securityHeaders(options)
  const api = apiSecurityHeaders(document)
  const documentUnderApi: [string, string][] = [['cache-control', 'no-store'], ...document]
  const headersFor = (routeUrl: string | undefined) => {
    if (!routeUrl?.startsWith('/api/')) return document
    return documentsUnderApi.some((prefix) => routeUrl.startsWith(prefix)) ? documentUnderApi : api
  }
  app.addHook('onRequest', (request, reply, done) => {
    for (const [name, value] of headersFor(request.routeOptions.url)) reply.header(name, value)
    done()
  })
}
