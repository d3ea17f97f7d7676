// Provisioning webhook to the chat platform: transitions detected by comparing each subscription with what the
// platform was last told (subscriptions_provisioned_state), recorded as platform_events, delivered in order per
// subscription, signed, at least once. Rules: lifecycle.service.ts.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto'
import { addDays } from '../../../domain/billing-period'
import { type PlatformEventType, platformTransition } from '../../../domain/provisioning'
import { audit, systemActor } from '../audit/audit'
import { detectionWindowDays } from './notifications.service'
import { eachRow, forEachClaimed, type LifecycleDeps, type PassResult, retryDelayMs, sweep } from './pass-runner'
import type { PlatformEventRow } from '../../db/schema/lifecycle'
import { loadSubscriptionWithPlanAndProfile } from '../../db/subscription-rows'
import {
  claimNextDelivery,
  claimUnprovisionedChanges,
  insertPlatformEvent,
  lockProvisionedState,
  saveProvisionedState,
  updatePlatformEvent,
} from './platform-events.repo'

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
  const processed = await forEachClaimed(
    deps,
    'platform_events',
    (tx, seen, limit) => claimUnprovisionedChanges(tx, since, seen, limit),
    eachRow(async (tx, { id }) => {
      const row = await loadSubscriptionWithPlanAndProfile(tx, id)
      if (!row) return false
      const { subscription, plan, profile } = row
      const last = await lockProvisionedState(tx, id)
      const type = platformTransition(subscription.status, last, {
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
      await insertPlatformEvent(tx, {
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
      await saveProvisionedState(tx, subscription.id, next)
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
    (tx, seen) => claimNextDelivery(tx, now, seen),
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
        await updatePlatformEvent(tx, row.id, {
          status: 'delivered',
          attempts,
          deliveredAt: now,
          lastError: null,
          updatedAt: now,
        })
        return
      }
      await updatePlatformEvent(tx, row.id, {
        attempts,
        lastError: attempt.error,
        nextAttemptAt: new Date(now.getTime() + retryDelayMs(attempts)),
        updatedAt: now,
      })
      deps.log.warn(
        { eventId: row.id, type: row.type, subscriptionId: row.subscriptionId, attempts, error: attempt.error },
        'platform webhook failed; retrying later',
      )
    },
  )
}
