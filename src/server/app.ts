import { existsSync } from 'node:fs'
import path from 'node:path'
import compress from '@fastify/compress'
import cookie from '@fastify/cookie'
import fastifyStatic from '@fastify/static'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify'
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod'
import pino from 'pino'
import { z } from 'zod'
import { DomainError } from '../domain/errors'
import type { Config } from './config'
import type { AppContext } from './context'
import type { Database } from './db/client'
import { problem, registerProblemHandler } from './http/problem'
import { registerSecurityHeaders } from './http/security-headers'
import { sessionPlugin } from './http/session'
import { createAuth } from './modules/auth/auth'
import type { CardGateway } from './modules/billing/card-gateway'
import type { MailSender } from './modules/messaging/email'
import type { WhatsAppSender } from './modules/messaging/whatsapp'
import { createProviders } from './providers'
import { adminRoutes } from './modules/admin/admin.routes'
import { insightsRoutes } from './modules/insights/insights.routes'
import { authRoutes } from './modules/auth/auth.routes'
import { billingRoutes } from './modules/billing/billing.routes'
import { lifecycleRoutes } from './modules/lifecycle/lifecycle.routes'
import { sendAccountEmail } from './modules/lifecycle/notifications.service'
import { afterPaintLoaderHash } from './modules/site/after-paint'
import { plansRoutes } from './modules/plans/plans.routes'
import { profileRoutes } from './modules/profile/profile.routes'
import { publicConfigRoutes, publicSiteConfig } from './modules/site/site.routes'
import { listPlans } from './modules/plans/plans.service'
import { cardSimulatorRoutes } from './modules/stripe/card-simulator.routes'
import { stripeRoutes } from './modules/stripe/stripe.routes'
import { whatsappRoutes } from './modules/whatsapp/whatsapp.routes'
import { pixRoutes } from './modules/pix/pix.routes'
import { apiBodyLimit } from './http/body-limit'
import { automaticoRoutes } from './modules/pix-automatico/automatico.routes'
import { createPrerenderer } from './modules/site/prerender'

export type AppOptions = {
  config: Config
  database: Database
  now?: () => Date
  mail?: MailSender
  whatsapp?: WhatsAppSender
  card?: CardGateway
  logger?: boolean
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void }
  /** Where the built SPA is; unset or missing means API only. */
  webRoot?: string
}

export const defaultWebRoot = path.resolve('dist/web')

const unsafeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * TRUST_PROXY as Fastify takes it. A hop count becomes "trust the first n hops from the socket" (proxy-addr's
 * hop-count trust, which this Fastify version no longer builds from a bare number): the client is the n-th address
 * from the right of X-Forwarded-For, whatever the client wrote further left.
 */
export function trustProxyOption(
  value: Config['TRUST_PROXY'],
): string | false | ((addr: string, i: number) => boolean) {
  if (typeof value === 'number') return (_addr, hop) => hop < value
  return value
}

/** The matched route's path, or (no route matched) the request path decoded as the router would. */
function routedPath(routeUrl: string | undefined, rawUrl: string): string {
  if (routeUrl) return routeUrl
  const pathname = rawUrl.split('?')[0] ?? '/'
  try {
    return decodeURIComponent(pathname)
  } catch {
    return pathname
  }
}

/**
 * Why a write must be refused as cross-site, or null when it may go on. The path checked is the one the router
 * matched (`/%61pi/...` routes to /api/...), never the raw URL.
 */
function crossSiteWriteRefusal(
  request: FastifyRequest,
  trustedOrigins: readonly string[],
): 'origin_forbidden' | 'origin_required' | null {
  const routed = routedPath(request.routeOptions.url, request.url)
  if (!(routed === '/api' || routed.startsWith('/api/'))) return null
  // Provider webhooks carry no cookie and prove themselves with a signature.
  if (routed.startsWith('/api/webhooks/')) return null
  const origin = request.headers.origin
  if (origin) return trustedOrigins.includes(origin) ? null : 'origin_forbidden'
  if (request.headers['sec-fetch-site'] === 'same-origin') return null
  // No Origin and no same-origin fetch metadata: only a request without cookies (a script, curl) may pass.
  return request.headers.cookie ? 'origin_required' : null
}

/** The request as logged: the path without its query string, which may carry reset or verification tokens. */
function serializeRequest(request: { method: string; url: string; host?: string; ip?: string }) {
  return { method: request.method, url: request.url.split('?')[0], host: request.host, remoteAddress: request.ip }
}

/** A read slower than this is logged at info even when it succeeded. */
const slowReadMs = 500

/**
 * One log line per request, when it completes (method and path included), instead of Fastify's two. A successful,
 * fast read (GET or HEAD answered below 400 within `slowReadMs`) is logged at debug: the log keeps every write,
 * every refusal or failure and every slow read, and LOG_LEVEL=debug gives the full access log.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime }
    if (error) reply.log.error({ ...line, err: error }, 'request errored')
    else if (quietRead(request.method, reply.statusCode, reply.elapsedTime)) reply.log.debug(line, 'request completed')
    else reply.log.info(line, 'request completed')
  }
}

function quietRead(method: string, status: number, elapsedMs: number): boolean {
  return (method === 'GET' || method === 'HEAD') && status < 400 && elapsedMs < slowReadMs
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database } = options
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.LOG_LEVEL,
            serializers: { req: serializeRequest },
            // stdout written asynchronously (sonic-boom, flushed at exit): a log line never blocks the request.
            stream: options.logStream ?? pino.destination({ dest: 1, sync: false }),
          },
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    // Every request body is small (the largest contract is a plan with its features); signed provider webhooks
    // raise their own limit (providerWebhookBodyLimit).
    bodyLimit: apiBodyLimit,
    logController: new OneLinePerRequest(),
  }).withTypeProvider<ZodTypeProvider>()

  const production = config.NODE_ENV === 'production'
  const now = options.now ?? (() => new Date())
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    ...createProviders({
      config,
      database,
      log: app.log,
      now: () => app.ctx.now(),
      given: { mail: options.mail, whatsapp: options.whatsapp, card: options.card },
    }),
    now,
    // Account e-mails go through the notifications outbox (sent at once, retried by the delivery sweep).
    auth: createAuth({
      db: database.db,
      config,
      sendAccountEmail: (email) => sendAccountEmail({ ...app.ctx, log: app.log }, email),
    }),
  }
  app.decorate('ctx', ctx)
  app.addHook('onClose', async () => ctx.pix?.close())

  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  registerProblemHandler(app)

  registerSecurityHeaders(app, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        // The prerendered pages' one inline script, by its hash (modules/site/after-paint.ts).
        scriptSrc: ["'self'", afterPaintLoaderHash],
        styleSrc: ["'self'", "'unsafe-inline'"],
        connectSrc: ["'self'"],
        formAction: ["'self'", 'https://checkout.stripe.com'],
        upgradeInsecureRequests: null,
      },
    },
    // The SPA is served over plain HTTP on localhost in development.
    strictTransportSecurity: config.secureCookies,
    // 'no-referrer' would make browsers send `Origin: null` on our own HTML form posts (the card simulator),
    // which the origin check then refuses; 'same-origin' still sends nothing to other sites.
    referrerPolicy: { policy: 'same-origin' },
  })
  // A GET or HEAD carries no body: @fastify/compress's request decompression (a preParsing hook it adds to every
  // route) is left off them. This hook runs before the plugin's own onRoute, which reads the option.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (route.decompress === undefined && methods.every((m) => m === 'GET' || m === 'HEAD')) route.decompress = false
  })
  await app.register(compress, { global: true, threshold: 1024 })
  await app.register(cookie)
  await app.register(sessionPlugin)

  // Cookie-authenticated writes must come from our own pages (SameSite=Lax covers most, this covers the rest).
  // Synchronous: an async hook costs every request (reads included) a promise and a turn of the microtask queue.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!unsafeMethods.has(request.method)) return done()
    const refused = crossSiteWriteRefusal(request, config.trustedOrigins)
    done(refused ? new DomainError(refused) : undefined)
  })

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Atendimento Multicanal — API de assinaturas',
        description: 'JSON sob /api. Erros em application/problem+json com `code` estável e `message` em português.',
        version: '1.0.0',
      },
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'billing.session_token' } } },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  })
  // In production the API description is for admins only (an inventory of every route helps attackers).
  const docsGuard = production ? { preHandler: app.requireAdmin } : {}
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true, uiHooks: docsGuard })
  app.get('/api/openapi.json', { schema: { hide: true }, ...docsGuard }, async () => app.swagger())

  app.get(
    '/api/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Estado do servidor e do banco de dados',
        response: {
          200: z.object({ status: z.literal('ok'), database: z.literal('up'), kind: z.string() }),
          503: z.object({ status: z.literal('degraded'), database: z.literal('down'), kind: z.string() }),
        },
      },
    },
    async (_request, reply) => {
      const up = await database.ping()
      reply.header('cache-control', 'no-store')
      if (up) return { status: 'ok' as const, database: 'up' as const, kind: database.kind }
      return reply.status(503).send({ status: 'degraded' as const, database: 'down' as const, kind: database.kind })
    },
  )

  await app.register(authRoutes)
  await app.register(plansRoutes)
  await app.register(adminRoutes)
  await app.register(billingRoutes)
  await app.register(profileRoutes)
  await app.register(publicConfigRoutes)
  await app.register(stripeRoutes)
  await app.register(cardSimulatorRoutes)
  await app.register(lifecycleRoutes)
  await app.register(whatsappRoutes)
  await app.register(pixRoutes)
  await app.register(automaticoRoutes)
  await app.register(insightsRoutes)

  const webRoot = options.webRoot ?? defaultWebRoot
  const hasWeb = existsSync(path.join(webRoot, 'index.html'))
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webRoot,
      wildcard: false,
      index: false,
      // Source maps are built 'hidden' (vite.config.ts); in production they are not served either.
      allowedPath: (pathName) => !(production && pathName.endsWith('.map')),
      setHeaders: (reply, filePath) => {
        // Hashed file names never change: cache them for a year; anything else revalidates.
        if (filePath.includes(`${path.sep}assets${path.sep}`))
          reply.header('cache-control', 'public, max-age=31536000, immutable')
        else reply.header('cache-control', 'no-cache')
      },
    })
  }

  const pages = hasWeb
    ? createPrerenderer({
        webRoot,
        siteConfig: publicSiteConfig(config),
        plans: () => listPlans(app.ctx.db),
        session: (request, reply) => app.loadUser(request, reply),
        // In-process, through the route itself (its guard, its contract), with the page request's cookie only.
        apiGet: async (request, url) => {
          const answer = await app.inject({ method: 'GET', url, headers: { cookie: request.headers.cookie ?? '' } })
          return answer.statusCode === 200 ? answer.json() : undefined
        },
        log: app.log,
      })
    : null
  void pages?.load()

  // Every GET of a path no route serves is a page of the SPA, prerendered when public (its router shows the 404 page
  // itself). A route, not the not-found handler, so the pages are compressed like every answer (@fastify/compress
  // hooks routes only: the 48 KB of `/` went out uncompressed).
  const isPage = (url: string) => !(url.endsWith('.map') || url.startsWith('/api/') || url === '/api')
  if (pages)
    app.get('/*', { schema: { hide: true } }, async (request, reply) => {
      const url = request.url.split('?')[0] ?? '/'
      if (!isPage(url)) return reply.status(404).type('application/problem+json').send(problem('not_found'))
      return pages.send(request, reply)
    })
  app.setNotFoundHandler({}, async (_request, reply) =>
    reply.status(404).type('application/problem+json').send(problem('not_found')),
  )

  return app
}
