// Provisioning webhook to the chat platform: transitions detected by comparing each subscription with what the
// platform was last told (subscriptions_provisioned_state), recorded as platform_events, delivered in order per
// subscription, signed, at least once. Rules: lifecycle.service.ts.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto'
import { and, asc, eq, gte, inArray, isNull, lte, ne, notInArray, or, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import { addDays } from '../../../domain/billing-period'
import { type PlatformEventType, platformTransition } from '../../../domain/provisioning'
import { provisionedStatuses } from '../../../domain/subscription-status'
import { subscriptions } from '../../db/schema/billing'
import { platformEvents, subscriptionsProvisionedState } from '../../db/schema/lifecycle'
import { plans } from '../../db/schema/plans'
import { audit, systemActor } from '../audit/audit'
import { detectionWindowDays } from './notifications.service'
import { eachRow, forEachClaimed, type LifecycleDeps, type PassResult, retryDelayMs, sweep } from './pass-runner'
import type { PlatformEventRow } from '../../db/schema/lifecycle'
import { loadSubscriptionWithPlanAndProfile } from '../../db/subscription-rows'

export type { PlatformEventType }
export type PlatformEventStatus = 'pending' | 'delivered' | 'skipped'

/** The JSON the platform receives (snake_case, like the rest of the webhook world). */
export type PlatformEventBody = {
  id: string
  type: PlatformEventType
  occurred_at: string
  subscription_id: string
  customer: { email: string; company: string }
  plan_id: string
  box_quantity: number
  agent_quantity: number
  current_period_end: string
}

/** How long the platform has to answer one delivery. */
export const platformRequestTimeoutMs = 10_000

const actor = systemActor('billing')
const state = alias(subscriptionsProvisionedState, 'provisioned')

/** Receivers refuse a signature whose timestamp is further than this from their clock (README, provisioning). */
export const signatureToleranceS = 300

function hmacHex(secret: string, t: number, body: string): string {
  return createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')
}

/**
 * The X-Signature header, as Stripe signs its webhooks: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
 * The timestamp is signed with the body, so a captured request cannot be replayed after the tolerance window.
 */
export function signBody(body: string, secret: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000)
  return `t=${t},v1=${hmacHex(secret, t, body)}`
}

/** What a receiver does (the README shows the same steps): parse, recompute, compare in constant time, check age. */
export function verifySignature(
  header: string | undefined,
  body: string,
  secret: string,
  now: Date,
  toleranceS = signatureToleranceS,
): boolean {
  const parts = new Map((header ?? '').split(',').map((p) => p.trim().split('=', 2) as [string, string]))
  const t = Number(parts.get('t'))
  const v1 = parts.get('v1') ?? ''
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return false
  if (Math.abs(now.getTime() / 1000 - t) > toleranceS) return false
  return timingSafeEqual(Buffer.from(hmacHex(secret, t, body), 'hex'), Buffer.from(v1, 'hex'))
}

/**
 * Compares every recently changed subscription (or one whose plan changed) with its provisioned state and records
 * an event for each transition: activated (now provisioned, was not), plan_changed (plan or quantities differ),
 * ended (no longer provisioned). The event and the new state are written in one transaction with the subscription
 * locked, so a transition is recorded once. Without PLATFORM_WEBHOOK_URL the event is recorded as 'skipped'.
 */
export async function detectPlatformEvents(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const since = addDays(now, -detectionWindowDays)
  // The SQL twin of domain/provisioning.ts platformTransition: every row it would answer an event for.
  const provisioned = inArray(subscriptions.status, provisionedStatuses)
  const differs = or(
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
  const processed = await forEachClaimed(
    deps,
    'platform_events',
    async (tx, seen, limit) =>
      tx
        .select({ id: subscriptions.id })
        .from(subscriptions)
        .innerJoin(plans, eq(plans.id, subscriptions.planId))
        .leftJoin(state, eq(state.subscriptionId, subscriptions.id))
        .where(
          and(
            or(gte(subscriptions.updatedAt, since), gte(plans.updatedAt, since)),
            differs,
            notInArray(subscriptions.id, seen),
          ),
        )
        .orderBy(asc(subscriptions.updatedAt), asc(subscriptions.id))
        .limit(limit)
        .for('update', { of: subscriptions, skipLocked: true }),
    eachRow(async (tx, { id }) => {
      const row = await loadSubscriptionWithPlanAndProfile(tx, id)
      if (!row) return false
      const { subscription, plan, profile } = row
      const [last] = await tx
        .select()
        .from(subscriptionsProvisionedState)
        .where(eq(subscriptionsProvisionedState.subscriptionId, id))
        .for('update')
      const type = platformTransition(subscription.status, last ?? null, {
        planId: plan.id,
        boxQuantity: plan.boxQuantity,
        agentQuantity: plan.agentQuantity,
      })
      if (!type) return false

      const eventId = randomUUID()
      const body: PlatformEventBody = {
        id: eventId,
        type,
        occurred_at: subscription.updatedAt.toISOString(),
        subscription_id: subscription.id,
        customer: { email: profile.email, company: profile.companyName },
        plan_id: plan.id,
        box_quantity: plan.boxQuantity,
        agent_quantity: plan.agentQuantity,
        current_period_end: subscription.currentPeriodEnd.toISOString(),
      }
      const status: PlatformEventStatus = deps.config.PLATFORM_WEBHOOK_URL ? 'pending' : 'skipped'
      await tx.insert(platformEvents).values({
        id: eventId,
        subscriptionId: subscription.id,
        type,
        body: JSON.stringify(body),
        status,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      })
      const next = {
        state: type === 'subscription.ended' ? ('ended' as const) : ('active' as const),
        planId: plan.id,
        boxQuantity: plan.boxQuantity,
        agentQuantity: plan.agentQuantity,
        lastEventId: eventId,
        updatedAt: now,
      }
      await tx
        .insert(subscriptionsProvisionedState)
        .values({ subscriptionId: subscription.id, ...next })
        .onConflictDoUpdate({ target: subscriptionsProvisionedState.subscriptionId, set: next })
      await audit(tx, actor, 'platform.event', 'subscription', subscription.id, {
        before: last ? { state: last.state, planId: last.planId } : null,
        after: { eventId, type, status, planId: plan.id, by: 'billing' },
      })
      return true
    }),
  )
  return { processed }
}

/**
 * Delivers pending events, each subscription's oldest first: an event is only claimed when no older event of the
 * same subscription is still pending, and the claim holds it locked, so event n+1 never leaves before n has been
 * accepted (2xx). Failures are retried with exponential back-off (capped at an hour), without a limit: the
 * platform must eventually hear every transition.
 */
export function deliverPlatformEvents(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const url = deps.config.PLATFORM_WEBHOOK_URL
  const secret = deps.config.PLATFORM_WEBHOOK_SECRET
  if (!url || !secret) return Promise.resolve({ processed: 0 })
  return sweep<PlatformEventRow>(
    deps,
    'deliver_platform_events',
    async (tx, seen) => {
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
    },
    async (row) => {
      let response: Response
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-signature': signBody(row.body, secret, deps.now()),
            'x-event-id': row.id,
            'x-event-type': row.type,
          },
          body: row.body,
          // A redirect would re-send the signed body elsewhere: it is a failed delivery instead.
          redirect: 'error',
          signal: AbortSignal.timeout(platformRequestTimeoutMs),
        })
      } catch (error) {
        throw new Error(`plataforma inacessível: ${error instanceof Error ? error.message : String(error)}`)
      }
      const text = await response.text().catch(() => '')
      if (!response.ok) throw new Error(`plataforma respondeu ${response.status}: ${text.slice(0, 200)}`)
    },
    async (tx, row, attempt) => {
      const attempts = row.attempts + 1
      if (attempt.ok) {
        await tx
          .update(platformEvents)
          .set({ status: 'delivered', attempts, deliveredAt: now, lastError: null, updatedAt: now })
          .where(eq(platformEvents.id, row.id))
        return
      }
      await tx
        .update(platformEvents)
        .set({
          attempts,
          lastError: attempt.error,
          nextAttemptAt: new Date(now.getTime() + retryDelayMs(attempts)),
          updatedAt: now,
        })
        .where(eq(platformEvents.id, row.id))
      deps.log.warn(
        { eventId: row.id, type: row.type, subscriptionId: row.subscriptionId, attempts, error: attempt.error },
        'platform webhook failed; retrying later',
      )
    },
  )
}
