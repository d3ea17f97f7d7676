// The admins' view of the provisioning deliveries (platform_events): the paged list (db/paging.ts) behind the admin
// home's 'Entregas de provisionamento com falha', and the retry that makes a failed delivery due now.
import { eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { z } from 'zod'
import type {
  PlatformEvent,
  platformEventRetrySchema,
  platformEventsQuerySchema,
} from '../../../domain/contracts/provisioning'
import { DomainError } from '../../../domain/errors'
import type { Executor } from '../../db/client'
import { type ListOptions, type Page, runList } from '../../db/paging'
import { type PlatformEventRow, platformEvents } from '../../db/schema/lifecycle'
import { type Actor, audit } from '../audit/audit'
import { lockPlatformEvent, makePendingEventDue, selectEventsWithEmail } from './platform-events.repo'

export type PlatformEventsQuery = z.infer<typeof platformEventsQuerySchema>

/**
 * A failed delivery: still pending after at least one attempt (the platform refused it or could not be reached).
 * The admin home counts exactly these (insights.repo.ts readNeedsYou uses this condition).
 */
export const failedDeliverySql = sql`${platformEvents.status} = 'pending' and ${platformEvents.attempts} > 0`

function statusFilter(status: PlatformEventsQuery['status']): SQL | undefined {
  if (status === 'failed') return failedDeliverySql
  return status ? sql`${platformEvents.status} = ${status}` : undefined
}

function toPlatformEvent(event: PlatformEventRow, customerEmail: string): PlatformEvent {
  return {
    id: event.id,
    seq: event.seq,
    subscriptionId: event.subscriptionId,
    customerEmail,
    type: event.type,
    status: event.status,
    attempts: event.attempts,
    lastError: event.lastError,
    nextAttemptAt: event.nextAttemptAt.toISOString(),
    deliveredAt: event.deliveredAt?.toISOString() ?? null,
    createdAt: event.createdAt.toISOString(),
  }
}

/** GET /api/admin/platform-events: newest first (seq), optionally one status or the failed ones. */
export function listPlatformEvents(
  db: Executor,
  query: PlatformEventsQuery,
  options: ListOptions = {},
): Promise<Page<PlatformEvent>> {
  return runList(
    db,
    {
      id: sql`${platformEvents.id}`,
      sortKeys: [sql`${platformEvents.seq}`],
      arms: [{ from: sql`${platformEvents}`, where: [statusFilter(query.status)] }],
      dir: 'desc',
      page: query.page,
      pageSize: query.pageSize,
    },
    options,
    async (pageIds, order) => {
      const found = await selectEventsWithEmail(db)
        .where(inArray(platformEvents.id, sql`(${pageIds})`))
        .orderBy(...order)
      return found.map((r) => toPlatformEvent(r.event, r.email))
    },
  )
}

/**
 * POST /api/admin/platform-events/:id/retry: a pending event whose next attempt is later becomes due now (the next
 * delivery pass sends it; deliveries stay in order per subscription). Idempotent: an event already due, delivered or
 * skipped is answered unchanged with `requeued: false`, and nothing is audited.
 */
export async function retryPlatformEvent(
  deps: { db: Executor; now: () => Date },
  actor: Actor,
  id: string,
): Promise<z.infer<typeof platformEventRetrySchema>> {
  const now = deps.now()
  const requeued = await deps.db.transaction(async (tx) => {
    const event = await lockPlatformEvent(tx, id)
    if (!event) throw new DomainError('not_found')
    if (event.status !== 'pending' || event.nextAttemptAt <= now) return false
    await makePendingEventDue(tx, id, now)
    await audit(tx, actor, 'platform_event.retry', 'platform_event', id, {
      before: { nextAttemptAt: event.nextAttemptAt.toISOString(), attempts: event.attempts },
      after: { nextAttemptAt: now.toISOString() },
    })
    return true
  })
  const [row] = await selectEventsWithEmail(deps.db).where(eq(platformEvents.id, id))
  if (!row) throw new DomainError('not_found')
  return { event: toPlatformEvent(row.event, row.email), requeued }
}
