import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { cardCheckoutResultSchema, checkoutInputSchema } from '../../../domain/contracts/billing'
import { DomainError } from '../../../domain/errors'
import { providerWebhookBodyLimit } from '../../http/body-limit'
import { problemSchema } from '../../http/problem'
import { findOpenFirstInvoice, startInvoiceCardCheckout } from '../billing/card-invoice.service'
import { lazyStripeClient } from './stripe-gateway'
import { handleStripeEvent } from './stripe-events.service'
import { readEvent } from './stripe-objects'
import { findPlan } from '../plans/plans.service'

export const checkoutBucketMs = 10 * 60 * 1000

/** POST /api/checkout/card (the spec's create-checkout-session) and the Stripe webhook. */
export const stripeRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/checkout/card',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['checkout'],
        summary: 'Cria a sessão de pagamento com cartão (assinatura mensal) e devolve a URL para redirecionar',
        security: [{ session: [] }],
        body: checkoutInputSchema,
        response: {
          200: cardCheckoutResultSchema,
          400: problemSchema,
          401: problemSchema,
          404: problemSchema,
          502: problemSchema,
          503: problemSchema,
        },
      },
    },
    async (request) => {
      const user = request.user!
      const plan = await findPlan(app.ctx.db, request.body.plan_id)
      if (!plan?.active) throw new DomainError('plan_not_found')
      // One purchase, one subscription: with this plan's first PIX invoice still open, the card pays that invoice
      // and moves that subscription to card instead of starting a second one.
      const openFirstInvoice = await findOpenFirstInvoice(app.ctx.db, user.id, plan.id)
      if (openFirstInvoice) return startInvoiceCardCheckout({ ...app.ctx, log: request.log }, user, openFirstInvoice)
      // Same user, plan and price within a 10-minute window: a double click gets the session of the first click.
      const bucket = Math.floor(app.ctx.now().getTime() / checkoutBucketMs)
      const { url } = await app.ctx.card.createCheckoutSession({
        userId: user.id,
        email: user.email,
        plan,
        idempotencyKey: `card-checkout:${user.id}:${plan.id}:${plan.priceCents}:${bucket}`,
      })
      return { url }
    },
  )

  await app.register(stripeWebhookRoutes)
}

/** Its own plugin: the raw-body parser below must not replace JSON parsing for the rest of the API. */
const stripeWebhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const { STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET } = app.ctx.config
  const stripe = STRIPE_SECRET_KEY ? lazyStripeClient(app.ctx.config) : null

  // The signature covers the exact bytes Stripe sent: keep the Buffer instead of parsing JSON.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  app.post(
    '/api/webhooks/stripe',
    {
      bodyLimit: providerWebhookBodyLimit,
      schema: {
        tags: ['webhooks'],
        summary: 'Eventos da Stripe (assinados). Cada evento é aplicado uma única vez.',
        response: {
          200: z.object({ received: z.literal(true), result: z.enum(['processed', 'duplicate', 'ignored']) }),
          400: problemSchema,
          502: problemSchema,
          503: problemSchema,
        },
      },
    },
    async (request) => {
      if (!stripe || !STRIPE_WEBHOOK_SECRET) throw new DomainError('card_unavailable')
      const signature = request.headers['stripe-signature']
      if (!Buffer.isBuffer(request.body) || typeof signature !== 'string')
        throw new DomainError('webhook_signature_invalid')
      const client = await stripe()
      let verified: unknown
      try {
        // Tolerance (300 s) is checked against the wall clock, as Stripe signs with its own.
        verified = client.webhooks.constructEvent(request.body, signature, STRIPE_WEBHOOK_SECRET)
      } catch {
        throw new DomainError('webhook_signature_invalid')
      }
      const event = readEvent(verified)
      if (!event) throw new DomainError('validation_failed')
      const result = await handleStripeEvent(
        {
          db: app.ctx.db,
          now: () => app.ctx.now(),
          source: 'stripe',
          appUrl: app.ctx.config.appUrl,
          notify: { config: app.ctx.config },
          // A Stripe error carries Stripe's status (e.g. 404): answer 502 instead, and Stripe delivers again later.
          retrieveSubscription: (id) =>
            client.subscriptions.retrieve(id).catch((error: unknown) => {
              request.log.warn({ err: error, eventId: event.id }, 'could not read the subscription from Stripe')
              throw new DomainError('card_provider_error', undefined, { cause: error })
            }),
        },
        event,
      )
      request.log.info({ eventId: event.id, type: event.type, result }, 'stripe event')
      return { received: true as const, result }
    },
  )
}
