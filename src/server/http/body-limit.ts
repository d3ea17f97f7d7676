/** Largest request body the API reads: beyond it, 413 problem+json 'payload_too_large' (Fastify's bodyLimit). */
export const apiBodyLimit = 64 * 1024

/** Signed provider webhooks (Stripe, Meta) may batch more: their routes read up to 1 MiB, after which 413 too. */
export const providerWebhookBodyLimit = 1024 * 1024
