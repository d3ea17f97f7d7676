// The queries of the provisioning webhook (platform_events, subscriptions_provisioned_state): detection, delivery
// and the admins' view. The rules are in provisioning.service.ts and platform-events-admin.ts.
import { and, asc, eq, gte, inArray, isNull, lte, ne, notInArray, or, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import { provisionedStatuses } from '../../../domain/subscription-status'
import type { Executor } from '../../db/client'
import { profiles } from '../../db/schema/auth'
import { subscriptions } from '../../db/schema/billing'
import { type PlatformEventRow, platformEvents, subscriptionsProvisionedState } from '../../db/schema/lifecycle'
import { plans } from '../../db/schema/plans'

const state = alias(subscriptionsProvisionedState, 'provisioned')

/** The SQL twin of domain/provisioning.ts platformTransition: every row it would answer an event for. */
function differsFromProvisioned() {
  const provisioned = inArray(subscriptions.status, provisionedStatuses)
  return or(
    and(isNull(state.subscriptionId), provisioned),
    and(eq(state.state, 'ended'), provisioned),
    and(eq(state.state, 'active'), sql`not ${provisioned}`),
    and(
      eq(state.state, 'active'),
      provisioned,
      or(
        ne(state.planId, subscriptions.planId),
        ne(state.boxQuantity, plans.boxQuantity),
        ne(state.agentQuantity, plans.agentQuantity),
      ),
    ),
  )
}

/**
 * Claims (locks, skipping locked ones) up to `limit` subscriptions changed since `since` (or whose plan changed)
 * that differ from what the platform was last told, oldest change first, leaving out `seen`.
 */
export function claimUnprovisionedChanges(tx: Executor, since: Date, seen: string[], limit: number) {
  return tx
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .leftJoin(state, eq(state.subscriptionId, subscriptions.id))
    .where(
      and(
        or(gte(subscriptions.updatedAt, since), gte(plans.updatedAt, since)),
        differsFromProvisioned(),
        notInArray(subscriptions.id, seen),
      ),
    )
    .orderBy(asc(subscriptions.updatedAt), asc(subscriptions.id))
    .limit(limit)
    .for('update', { of: subscriptions, skipLocked: true })
}

/** What the platform was last told about the subscription, locked; null before its first event. */
export async function lockProvisionedState(tx: Executor, subscriptionId: string) {
  const [row] = await tx
    .select()
    .from(subscriptionsProvisionedState)
    .where(eq(subscriptionsProvisionedState.subscriptionId, subscriptionId))
    .for('update')
  return row ?? null
}

export async function insertPlatformEvent(tx: Executor, values: typeof platformEvents.$inferInsert): Promise<void> {
  await tx.insert(platformEvents).values(values)
}

export async function saveProvisionedState(
  tx: Executor,
  subscriptionId: string,
  next: Omit<typeof subscriptionsProvisionedState.$inferInsert, 'subscriptionId'>,
): Promise<void> {
  await tx
    .insert(subscriptionsProvisionedState)
    .values({ subscriptionId, ...next })
    .onConflictDoUpdate({ target: subscriptionsProvisionedState.subscriptionId, set: next })
}

/**
 * Claims the next due pending event whose subscription has no older pending one (deliveries in order per
 * subscription), leaving out `seen`; undefined when none is left.
 */
export async function claimNextDelivery(
  tx: Executor,
  now: Date,
  seen: string[],
): Promise<PlatformEventRow | undefined> {
  const [row] = await tx
    .select()
    .from(platformEvents)
    .where(
      and(
        eq(platformEvents.status, 'pending'),
        lte(platformEvents.nextAttemptAt, now),
        sql`not exists (select 1 from ${platformEvents} as older
              where older.subscription_id = ${platformEvents.subscriptionId}
                and older.status = 'pending' and older.seq < ${platformEvents.seq})`,
        notInArray(platformEvents.id, seen),
      ),
    )
    .orderBy(asc(platformEvents.seq))
    .limit(1)
    .for('update', { of: platformEvents, skipLocked: true })
  return row
}

export async function updatePlatformEvent(
  db: Executor,
  id: string,
  values: Partial<typeof platformEvents.$inferInsert>,
): Promise<void> {
  await db.update(platformEvents).set(values).where(eq(platformEvents.id, id))
}

/** One event, locked; null when the id is unknown. */
export async function lockPlatformEvent(tx: Executor, id: string): Promise<PlatformEventRow | null> {
  const [row] = await tx.select().from(platformEvents).where(eq(platformEvents.id, id)).for('update')
  return row ?? null
}

/** A still pending event becomes due at `now`. */
export async function makePendingEventDue(tx: Executor, id: string, now: Date): Promise<void> {
  await tx
    .update(platformEvents)
    .set({ nextAttemptAt: now, updatedAt: now })
    .where(and(eq(platformEvents.id, id), eq(platformEvents.status, 'pending')))
}

/** Events with their customer's e-mail (the admin list's rows). */
export function selectEventsWithEmail(db: Executor) {
  return db
    .select({ event: platformEvents, email: profiles.email })
    .from(platformEvents)
    .innerJoin(subscriptions, eq(subscriptions.id, platformEvents.subscriptionId))
    .innerJoin(profiles, eq(profiles.id, subscriptions.userId))
}
