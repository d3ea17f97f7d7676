import type Stripe from 'stripe'
import type { Plan } from '../../../domain/contracts/plans'
import { DomainError } from '../../../domain/errors'
import type { Config } from '../../config'
import type { CardGateway } from '../billing/card-gateway'
import { readSubscription } from './stripe-objects'

export type GatewayLog = { warn: (obj: object, msg: string) => void }

type StripeConfigInput = Pick<Config, 'STRIPE_SECRET_KEY' | 'STRIPE_API_URL'>

/**
 * The SDK client; STRIPE_API_URL points it at another host (a local fake in tests). The SDK is loaded by the first
 * card operation, not with the server: about 6 MB of heap in each thread that would otherwise hold it unused (the API
 * and its jobs thread) on a day without card payments.
 */
export async function createStripeClient(config: StripeConfigInput): Promise<Stripe> {
  if (!config.STRIPE_SECRET_KEY) throw new Error('STRIPE_SECRET_KEY is not set')
  const api = config.STRIPE_API_URL ? new URL(config.STRIPE_API_URL) : null
  const { default: StripeSdk } = await import('stripe')
  // One retry (same idempotency key) and 4 s a try: a hung Stripe answers the customer within 10 s (two tries
  // of 10 s took 20.5 s in test/faults/providers.ts); Stripe's own answers take well under a second.
  return new StripeSdk(config.STRIPE_SECRET_KEY, {
    maxNetworkRetries: 1,
    timeout: 4_000,
    telemetry: false,
    ...(api
      ? {
          host: api.hostname,
          port: api.port || (api.protocol === 'http:' ? 80 : 443),
          protocol: api.protocol === 'http:' ? ('http' as const) : ('https' as const),
        }
      : {}),
  })
}

/** createStripeClient on first use; the same client after. */
export function lazyStripeClient(config: StripeConfigInput): () => Promise<Stripe> {
  let client: Promise<Stripe> | undefined
  return () => {
    client ??= createStripeClient(config)
    return client
  }
}

/** An error of the SDK (its classes are not loaded until the first call: told by the `type` each one carries). */
function stripeError(
  error: unknown,
): (Error & { type: string; code?: string; statusCode?: number; requestId?: string }) | null {
  if (!(error instanceof Error)) return null
  const type = (error as { type?: unknown }).type
  return typeof type === 'string' && type.startsWith('Stripe') ? (error as Error & { type: string }) : null
}

export function checkoutUrls(appUrl: string) {
  return {
    success: `${appUrl}/dashboard/my-subscriptions?checkout=success`,
    cancel: `${appUrl}/plans?checkout=canceled`,
    /** Paying an open invoice by card starts and ends on the payments page. */
    invoiceSuccess: `${appUrl}/dashboard/payments?checkout=success`,
    invoiceCancel: `${appUrl}/dashboard/payments?checkout=canceled`,
  }
}

/** Our monthly BRL price for a plan, as Stripe's inline price_data. */
function recurringPrice(plan: Plan) {
  return { currency: 'brl', unit_amount: plan.priceCents, recurring: { interval: 'month' as const } }
}

const providerMessage = {
  checkout: 'Não foi possível criar a sessão de pagamento com o provedor de cartão. Tente novamente em instantes.',
  subscription: 'Não foi possível atualizar a assinatura no provedor de cartão. Tente novamente em instantes.',
}

/**
 * Stripe's own message is English and may name internals: log it, and answer the customer in Portuguese.
 * A DomainError thrown by our own code passes through untouched.
 */
function providerFailure(error: unknown, message: string, log: GatewayLog | undefined, op: string): DomainError {
  if (error instanceof DomainError) return error
  const e = stripeError(error)
  log?.warn(
    {
      op,
      type: e?.type,
      code: e?.code,
      statusCode: e?.statusCode,
      requestId: e?.requestId,
      err: e ? undefined : error,
    },
    'card provider request failed',
  )
  return new DomainError('card_provider_error', message, { cause: error })
}

/** Card payments through Stripe Checkout (subscription mode) and the Subscriptions API. */
export function createStripeGateway(
  config: StripeConfigInput & Pick<Config, 'appUrl'>,
  log?: GatewayLog,
  given?: Stripe,
): CardGateway {
  const stripe = given ? async () => given : lazyStripeClient(config)
  const urls = checkoutUrls(config.appUrl)
  return {
    mode: 'stripe',

    async createCheckoutSession({ userId, email, plan, idempotencyKey, switch: switching }) {
      // Moving our pending_pix subscription to card: our ids ride along, so the webhook updates that row.
      const metadata = { userId, planId: plan.id, ...(switching ?? {}) }
      try {
        const session = await (await stripe()).checkout.sessions.create(
          {
            mode: 'subscription',
            line_items: [{ quantity: 1, price_data: { ...recurringPrice(plan), product_data: { name: plan.name } } }],
            customer_email: email,
            client_reference_id: userId,
            metadata,
            subscription_data: { metadata },
            success_url: switching ? urls.invoiceSuccess : urls.success,
            cancel_url: switching ? urls.invoiceCancel : urls.cancel,
            locale: 'pt-BR',
          },
          { idempotencyKey },
        )
        if (!session.url) throw new Error('Stripe returned a checkout session without url')
        return { url: session.url, sessionId: session.id }
      } catch (error) {
        throw providerFailure(error, providerMessage.checkout, log, 'checkout.sessions.create')
      }
    },

    async createInvoicePaymentSession({
      userId,
      email,
      subscriptionId,
      paymentId,
      amountCents,
      description,
      idempotencyKey,
    }) {
      const metadata = { userId, subscriptionId, paymentId }
      try {
        const session = await (await stripe()).checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [
              {
                quantity: 1,
                price_data: { currency: 'brl', unit_amount: amountCents, product_data: { name: description } },
              },
            ],
            customer_email: email,
            client_reference_id: userId,
            metadata,
            payment_intent_data: { metadata, description },
            success_url: urls.invoiceSuccess,
            cancel_url: urls.invoiceCancel,
            locale: 'pt-BR',
          },
          { idempotencyKey },
        )
        if (!session.url) throw new Error('Stripe returned a checkout session without url')
        return { url: session.url, sessionId: session.id }
      } catch (error) {
        throw providerFailure(error, providerMessage.checkout, log, 'checkout.sessions.create')
      }
    },

    async cancelAtPeriodEnd(stripeSubscriptionId) {
      try {
        await (await stripe()).subscriptions.update(stripeSubscriptionId, { cancel_at_period_end: true })
      } catch (error) {
        throw providerFailure(error, providerMessage.subscription, log, 'subscriptions.update')
      }
    },

    async resumeRenewal(stripeSubscriptionId) {
      try {
        await (await stripe()).subscriptions.update(stripeSubscriptionId, { cancel_at_period_end: false })
      } catch (error) {
        throw providerFailure(error, providerMessage.subscription, log, 'subscriptions.update')
      }
    },

    async cancelNow(stripeSubscriptionId) {
      try {
        await (await stripe()).subscriptions.cancel(stripeSubscriptionId)
      } catch (error) {
        throw providerFailure(error, providerMessage.subscription, log, 'subscriptions.cancel')
      }
    },

    async changePlan(stripeSubscriptionId, plan) {
      try {
        const subscription = await (await stripe()).subscriptions.retrieve(stripeSubscriptionId)
        const item = subscription.items.data[0]
        if (!item) throw new Error(`Stripe subscription ${stripeSubscriptionId} has no items`)
        const product = typeof item.price.product === 'string' ? item.price.product : item.price.product.id
        // A pending update: the customer pays the prorated difference now, on its own invoice, and Stripe switches
        // the price only once that invoice is paid. Such an update accepts no metadata: our side keeps the target.
        const updated = await (await stripe()).subscriptions.update(stripeSubscriptionId, {
          items: [{ id: item.id, price_data: { ...recurringPrice(plan), product } }],
          proration_behavior: 'always_invoice',
          payment_behavior: 'pending_if_incomplete',
        })
        const invoice = updated.latest_invoice
        const invoiceId = typeof invoice === 'string' ? invoice : (invoice?.id ?? undefined)
        return { status: updated.pending_update ? 'pending' : 'applied', invoiceId }
      } catch (error) {
        throw providerFailure(error, providerMessage.subscription, log, 'subscriptions.update')
      }
    },

    async retrieveSubscription(stripeSubscriptionId) {
      try {
        const subscription = readSubscription(await (await stripe()).subscriptions.retrieve(stripeSubscriptionId))
        if (!subscription?.status || !subscription.period)
          throw new Error(`Stripe subscription ${stripeSubscriptionId} has no status or period`)
        return {
          status: subscription.status,
          cancelAtPeriodEnd: subscription.cancelAtPeriodEnd ?? false,
          currentPeriodEnd: subscription.period.end,
        }
      } catch (error) {
        const e = stripeError(error)
        if (e?.type === 'StripeInvalidRequestError' && e.code === 'resource_missing') return null
        throw providerFailure(error, providerMessage.subscription, log, 'subscriptions.retrieve')
      }
    },
  }
}
