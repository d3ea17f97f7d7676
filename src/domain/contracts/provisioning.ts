import { z } from 'zod'
import { pageOf, pageParams } from './paging'

/** Delivery states of a provisioning event; 'failed' (a filter only) is a pending one whose last attempt failed. */
export const platformEventStatuses = ['pending', 'delivered', 'skipped'] as const
export const platformEventTypes = ['subscription.activated', 'subscription.plan_changed', 'subscription.ended'] as const

/** GET /api/admin/platform-events?status=pending|delivered|skipped|failed&page=&pageSize= (newest first). */
export const platformEventsQuerySchema = z.object({
  ...pageParams,
  status: z
    .enum([...platformEventStatuses, 'failed'], {
      error: 'Status inválido: use pending, delivered, skipped ou failed.',
    })
    .optional(),
})

export const platformEventSchema = z
  .object({
    id: z.string(),
    seq: z.number().int(),
    subscriptionId: z.string(),
    customerEmail: z.string(),
    type: z.enum(platformEventTypes),
    status: z.enum(platformEventStatuses),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    nextAttemptAt: z.string(),
    deliveredAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'PlatformEvent' })
export type PlatformEvent = z.infer<typeof platformEventSchema>

export const platformEventPageSchema = pageOf(platformEventSchema).extend({ totalExact: z.boolean() })

/** POST /api/admin/platform-events/:id/retry: the event, due now; `requeued` false when it was already due or not pending. */
export const platformEventRetrySchema = z.object({ event: platformEventSchema, requeued: z.boolean() })
