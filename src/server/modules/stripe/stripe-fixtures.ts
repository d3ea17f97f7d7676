// What the card tests share: the app's Stripe settings pointed at the fake Stripe, and Stripe events signed as
// Stripe signs them, sent to our webhook.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import Stripe from 'stripe'
import { afterAll, beforeAll, beforeEach } from 'vitest'
import { lateHandle } from '../../test/http'
import { createTestApp, type TestApp } from '../../test/test-app'
import { type FakeStripe, startFakeStripe } from './fake-stripe-server'

export const webhookSecret = 'whsec_test'

/** The environment that points the app's real Stripe client at the fake and verifies with `webhookSecret`. */
export function stripeEnv(fake: FakeStripe): Record<string, string> {
  return { STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_API_URL: fake.url }
}

/** A Stripe event of `type` created at `created` (Stripe's seconds) carrying `object`. */
export function stripeEvent(type: string, created: number, object: unknown, id = `evt_${randomUUID()}`) {
  return { id, object: 'event', type, created, livemode: false, api_version: '2026-10-28.endive', data: { object } }
}

/** POST /api/webhooks/stripe with `body`, signed with `webhookSecret` unless another signature is given. */
export function sendStripeEvent(app: FastifyInstance, body: unknown, signature?: string) {
  const payload = JSON.stringify(body)
  return app.inject({
    method: 'POST',
    url: '/api/webhooks/stripe',
    payload,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'stripe-signature': signature ?? Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret }),
    },
  })
}

/**
 * The file's fake Stripe and the test app pointed at it (`stripeEnv`): started in beforeAll, closed in afterAll, the
 * fake's request log emptied before each test. The handles can be used in hooks and helpers declared after this.
 */
export function fileStripeApp(): { t: TestApp; fake: FakeStripe } {
  let fake: FakeStripe | undefined
  let t: TestApp | undefined
  beforeAll(async () => {
    fake = await startFakeStripe()
    t = await createTestApp({ env: stripeEnv(fake) })
  })
  afterAll(async () => {
    await t?.close()
    await fake?.close()
  })
  beforeEach(() => {
    if (fake) fake.requests.length = 0
  })
  return { t: lateHandle(() => t, 'the test app'), fake: lateHandle(() => fake, 'the fake Stripe') }
}
