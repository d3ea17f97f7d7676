import { existsSync } from 'node:fs'
import path from 'node:path'
import compress from '@fastify/compress'
import cookie from '@fastify/cookie'
import helmet from '@fastify/helmet'
import fastifyStatic from '@fastify/static'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import Fastify, { type FastifyInstance } from 'fastify'
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod'
import { z } from 'zod'
import { DomainError } from '../domain/errors'
import type { Config } from './config'
import type { AppContext } from './context'
import type { Database } from './db/client'
import { problem, registerProblemHandler } from './http/problem'
import { sessionPlugin } from './http/session'
import { createAuth } from './modules/auth/auth'
import type { CardGateway } from './modules/billing/card-gateway'
import { adminRoutes } from './modules/admin/admin.routes'
import { authRoutes } from './modules/auth/auth.routes'
import { billingRoutes } from './modules/billing/billing.routes'
import { lifecycleRoutes } from './modules/lifecycle/lifecycle.routes'
import { createMailSender, type MailSender } from './modules/messaging/email'
import { createWhatsAppSender, type WhatsAppSender } from './modules/messaging/whatsapp'
import { plansRoutes } from './modules/plans/plans.routes'
import { profileRoutes } from './modules/profile/profile.routes'
import { publicConfigRoutes } from './modules/site/site.routes'
import { cardSimulatorRoutes } from './modules/stripe/card-simulator.routes'
import { createSimulatorGateway } from './modules/stripe/card-simulator.service'
import { createStripeGateway } from './modules/stripe/stripe-gateway'
import { stripeRoutes } from './modules/stripe/stripe.routes'
import { apiPixClientFromConfig } from './modules/pix/api-pix-check'
import { pixRoutes } from './modules/pix/pix.routes'

export type AppOptions = {
  config: Config
  database: Database
  now?: () => Date
  mail?: MailSender
  whatsapp?: WhatsAppSender
  card?: CardGateway
  logger?: boolean
  /** Where the built SPA is; unset or missing means API only. */
  webRoot?: string
}

export const defaultWebRoot = path.resolve('dist/web')

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database } = options
  const app = Fastify({
    logger: options.logger === false ? false : { level: config.LOG_LEVEL },
    trustProxy: config.TRUST_PROXY,
  }).withTypeProvider<ZodTypeProvider>()

  const log = { info: (obj: object, msg: string) => app.log.info(obj, msg) }
  const production = config.NODE_ENV === 'production'
  const mail =
    options.mail ??
    createMailSender({
      smtpUrl: config.SMTP_URL,
      from: config.MAIL_FROM,
      outboxPath: config.outboxPath,
      production,
      log,
    })
  const whatsapp =
    options.whatsapp ??
    createWhatsAppSender({
      token: config.WHATSAPP_TOKEN,
      phoneNumberId: config.WHATSAPP_PHONE_NUMBER_ID,
      apiUrl: config.WHATSAPP_API_URL,
      outboxPath: config.outboxPath,
      production,
      log,
    })
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    mail,
    whatsapp,
    card:
      options.card ??
      (config.STRIPE_SECRET_KEY
        ? createStripeGateway(config, app.log)
        : createSimulatorGateway({ config, db: database.db, now: () => app.ctx.now(), log: app.log })),
    now: options.now ?? (() => new Date()),
    pix: apiPixClientFromConfig(config),
    auth: createAuth({ db: database.db, config, mail }),
  }
  app.decorate('ctx', ctx)
  app.addHook('onClose', async () => ctx.pix?.close())

  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  registerProblemHandler(app)

  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        scriptSrc: ["'self'"],
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
  await app.register(compress, { global: true, threshold: 1024 })
  await app.register(cookie)
  await app.register(sessionPlugin)

  // Cookie-authenticated writes must come from our own pages (SameSite=Lax covers most, this covers the rest).
  app.addHook('onRequest', async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return
    if (!request.url.startsWith('/api/') || request.url.startsWith('/api/webhooks/')) return
    const origin = request.headers.origin
    if (origin && !config.trustedOrigins.includes(origin)) throw new DomainError('origin_forbidden')
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
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true })
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger())

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
  await app.register(pixRoutes)

  const webRoot = options.webRoot ?? defaultWebRoot
  const hasWeb = existsSync(path.join(webRoot, 'index.html'))
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webRoot,
      wildcard: false,
      index: false,
      setHeaders: (reply, filePath) => {
        // Hashed file names never change: cache them for a year; anything else revalidates.
        if (filePath.includes(`${path.sep}assets${path.sep}`))
          reply.header('cache-control', 'public, max-age=31536000, immutable')
        else reply.header('cache-control', 'no-cache')
      },
    })
  }

  app.setNotFoundHandler({}, async (request, reply) => {
    const url = request.url.split('?')[0] ?? '/'
    if (
      url.startsWith('/api/') ||
      url === '/api' ||
      !hasWeb ||
      (request.method !== 'GET' && request.method !== 'HEAD')
    ) {
      return reply.status(404).type('application/problem+json').send(problem('not_found'))
    }
    // Every other path is a page of the SPA; the router shows the 404 page itself.
    reply.header('cache-control', 'no-cache')
    return reply.sendFile('index.html')
  })

  return app
}
