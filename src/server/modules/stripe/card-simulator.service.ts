// The card test-mode simulator: without STRIPE_SECRET_KEY, checkout goes to a local page instead of Stripe, and
// approving it builds the same Stripe-shaped events a real payment produces and feeds them to the webhook's
// handler. Development and tests only: refused when NODE_ENV=production.
import { randomBytes } from 'node:crypto'
import { addDays, addMonthsAnchored, prorateUpgradeCents } from '../../../domain/billing-period'
import type { Plan } from '../../../domain/contracts/plans'
import { DomainError } from '../../../domain/errors'
import type { Config } from '../../config'
import type { Db } from '../../db/client'
import type { CardGateway } from '../billing/card-gateway'
import { checkoutUrls, type GatewayLog } from './stripe-gateway'
import { handleStripeEvent, type StripeEventDeps } from './stripe-events.service'
import type { StripeEventInput } from './stripe-objects'
import { findPlan } from '../plans/plans.service'
import * as repo from './stripe.repo'
import type { SimulatorSessionRow } from '../../db/schema/stripe'

export type SimulatorDeps = { config: Config; db: Db; now: () => Date }

const sessionLifetimeDays = 1 // as Stripe's Checkout Sessions

/** Unguessable: the session id is the capability in the page's URL. */
function token(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString('base64url')}`
}

function assertEnabled(config: SimulatorDeps['config']) {
  if (config.NODE_ENV === 'production') throw new DomainError('simulator_disabled')
}

const toSeconds = (d: Date) => Math.floor(d.getTime() / 1000)

export function simulatorPaths(appUrl: string) {
  return {
    page: (sessionId: string) => `${appUrl}/api/dev/card-simulator/${sessionId}`,
    receipt: (invoiceId: string) => `${appUrl}/api/dev/card-simulator/receipts/${invoiceId}`,
  }
}

type SimSubscription = {
  id: string
  customerId: string
  status: 'active' | 'canceled'
  cancelAtPeriodEnd: boolean
  periodStart: Date
  periodEnd: Date
  userId: string
  planId: string
  unitAmount: number
  created: Date
  endedAt?: Date
  /** Our pending_pix subscription and its first invoice, when this card subscription replaces them. */
  ours?: { subscriptionId: string; paymentId: string } | undefined
}

/** A subscription object in Stripe's current shape (period on the item). */
function subscriptionObject(s: SimSubscription) {
  return {
    id: s.id,
    object: 'subscription',
    customer: s.customerId,
    status: s.status,
    cancel_at_period_end: s.cancelAtPeriodEnd,
    created: toSeconds(s.created),
    ended_at: s.endedAt ? toSeconds(s.endedAt) : null,
    livemode: false,
    metadata: { userId: s.userId, planId: s.planId, ...(s.ours ?? {}) },
    pending_update: null,
    items: {
      object: 'list',
      data: [
        {
          id: `si_${s.id}`,
          object: 'subscription_item',
          current_period_start: toSeconds(s.periodStart),
          current_period_end: toSeconds(s.periodEnd),
          price: {
            id: `price_sim_${s.planId}_${s.unitAmount}`,
            object: 'price',
            currency: 'brl',
            unit_amount: s.unitAmount,
            product: `prod_sim_${s.planId}`,
            recurring: { interval: 'month', interval_count: 1 },
          },
        },
      ],
    },
  }
}

function invoiceObject(input: {
  id: string
  subscription: SimSubscription
  amount: number
  billingReason: 'subscription_create' | 'subscription_update'
  periodStart: Date
  at: Date
  receiptUrl: string
}) {
  const s = input.subscription
  const metadata = { userId: s.userId, planId: s.planId, ...(s.ours ?? {}) }
  return {
    id: input.id,
    object: 'invoice',
    customer: s.customerId,
    currency: 'brl',
    status: 'paid',
    billing_reason: input.billingReason,
    amount_due: input.amount,
    amount_paid: input.amount,
    created: toSeconds(input.at),
    due_date: null,
    hosted_invoice_url: input.receiptUrl,
    livemode: false,
    status_transitions: { paid_at: toSeconds(input.at) },
    parent: { type: 'subscription_details', subscription_details: { subscription: s.id, metadata } },
    lines: {
      object: 'list',
      data: [
        {
          id: `il_${input.id}`,
          object: 'line_item',
          amount: input.amount,
          currency: 'brl',
          metadata,
          period: { start: toSeconds(input.periodStart), end: toSeconds(s.periodEnd) },
        },
      ],
    },
  }
}

function event(id: string, type: string, at: Date, object: unknown): StripeEventInput {
  return { id, type, created: toSeconds(at), data: { object } }
}

function eventDeps(deps: SimulatorDeps, retrieve?: (id: string) => Promise<unknown>): StripeEventDeps {
  return {
    db: deps.db,
    now: deps.now,
    source: 'card-simulator',
    retrieveSubscription: retrieve,
    appUrl: deps.config.appUrl,
    notify: { config: deps.config },
  }
}

/** The simulated provider's view of a subscription we created: our row is its only record. */
async function loadSimSubscription(deps: SimulatorDeps, stripeSubscriptionId: string): Promise<SimSubscription> {
  if (!stripeSubscriptionId.startsWith('sub_sim_')) throw new DomainError('card_unavailable')
  const row = await repo.findByStripeId(deps.db, stripeSubscriptionId)
  if (!row) throw new DomainError('subscription_not_found')
  const plan = await findPlan(deps.db, row.planId)
  return {
    id: stripeSubscriptionId,
    customerId: row.stripeCustomerId ?? `cus_sim_${row.userId}`,
    status: 'active',
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    periodStart: row.currentPeriodStart,
    periodEnd: row.currentPeriodEnd,
    userId: row.userId,
    planId: row.planId,
    unitAmount: plan?.priceCents ?? 0,
    created: row.createdAt,
  }
}

export type SimulatorGateway = CardGateway & {
  /** Resolves once every event emitted so far has been delivered (tests wait on it). */
  settled(): Promise<void>
}

/**
 * Like Stripe, subscription changes reach us as webhooks *after* the API call returns: billing changes its row
 * right after calling the provider and must find it untouched, so the simulator delivers these events a moment
 * later (in order), not inside the call.
 */
export function createSimulatorGateway(
  deps: SimulatorDeps & { log?: GatewayLog | undefined; deliveryDelayMs?: number | undefined },
): SimulatorGateway {
  const paths = simulatorPaths(deps.config.appUrl)
  const delayMs = deps.deliveryDelayMs ?? 250
  let delivered: Promise<void> = Promise.resolve()

  function deliverLater(events: StripeEventInput[]) {
    delivered = delivered.then(
      () =>
        new Promise<void>((resolve) => {
          setTimeout(() => {
            const run = async () => {
              for (const e of events) await handleStripeEvent(eventDeps(deps), e)
            }
            run()
              .catch((err: unknown) => deps.log?.warn({ err }, 'card simulator: event delivery failed'))
              .finally(resolve)
          }, delayMs)
        }),
    )
  }

  return {
    mode: 'simulator',
    settled: () => delivered,

    async createCheckoutSession({ userId, email, plan, idempotencyKey, switch: switching }) {
      assertEnabled(deps.config)
      const now = deps.now()
      // The same key (a double click) finds the session the first click created.
      const session = await repo.insertSimulatorSessionIfMissing(deps.db, {
        id: token('cs_sim'),
        userId,
        planId: plan.id,
        planName: plan.name,
        amountCents: plan.priceCents,
        email,
        idempotencyKey,
        mode: 'subscription',
        subscriptionId: switching?.subscriptionId ?? null,
        paymentId: switching?.paymentId ?? null,
        createdAt: now,
        expiresAt: addDays(now, sessionLifetimeDays),
      })
      return { url: paths.page(session.id), sessionId: session.id }
    },

    async createInvoicePaymentSession({
      userId,
      email,
      subscriptionId,
      paymentId,
      planId,
      amountCents,
      description,
      idempotencyKey,
    }) {
      assertEnabled(deps.config)
      const now = deps.now()
      const session = await repo.insertSimulatorSessionIfMissing(deps.db, {
        id: token('cs_sim'),
        userId,
        planId,
        planName: description,
        amountCents,
        email,
        idempotencyKey,
        mode: 'payment',
        subscriptionId,
        paymentId,
        createdAt: now,
        expiresAt: addDays(now, sessionLifetimeDays),
      })
      return { url: paths.page(session.id), sessionId: session.id }
    },

    async cancelAtPeriodEnd(stripeSubscriptionId) {
      assertEnabled(deps.config)
      const sub = await loadSimSubscription(deps, stripeSubscriptionId)
      const updated = { ...sub, cancelAtPeriodEnd: true }
      deliverLater([event(token('evt_sim'), 'customer.subscription.updated', deps.now(), subscriptionObject(updated))])
    },

    async resumeRenewal(stripeSubscriptionId) {
      assertEnabled(deps.config)
      const sub = await loadSimSubscription(deps, stripeSubscriptionId)
      const updated = { ...sub, cancelAtPeriodEnd: false }
      deliverLater([event(token('evt_sim'), 'customer.subscription.updated', deps.now(), subscriptionObject(updated))])
    },

    async cancelNow(stripeSubscriptionId) {
      assertEnabled(deps.config)
      const sub = await loadSimSubscription(deps, stripeSubscriptionId)
      const now = deps.now()
      const ended = { ...sub, status: 'canceled' as const, endedAt: now }
      deliverLater([event(token('evt_sim'), 'customer.subscription.deleted', now, subscriptionObject(ended))])
    },

    async changePlan(stripeSubscriptionId, plan: Plan) {
      assertEnabled(deps.config)
      const sub = await loadSimSubscription(deps, stripeSubscriptionId)
      const now = deps.now()
      const changed = { ...sub, planId: plan.id, unitAmount: plan.priceCents }
      const events = [event(token('evt_sim'), 'customer.subscription.updated', now, subscriptionObject(changed))]
      // proration_behavior 'always_invoice' with payment_behavior 'pending_if_incomplete': the difference for the
      // rest of the period is charged at once, and the simulated card always pays it, so the new price applies.
      const amount = prorateUpgradeCents({
        currentPriceCents: sub.unitAmount,
        newPriceCents: plan.priceCents,
        periodStart: sub.periodStart,
        periodEnd: sub.periodEnd,
        now,
      })
      let invoiceId: string | undefined
      if (amount > 0) {
        invoiceId = token('in_sim')
        const invoice = invoiceObject({
          id: invoiceId,
          subscription: changed,
          amount,
          billingReason: 'subscription_update',
          periodStart: now,
          at: now,
          receiptUrl: paths.receipt(invoiceId),
        })
        events.push(event(`evt_${invoiceId}_paid`, 'invoice.paid', now, invoice))
      }
      deliverLater(events)
      return { status: 'applied' as const, invoiceId }
    },

    // The simulated provider keeps no state of its own: its view of a subscription is our row.
    async retrieveSubscription(stripeSubscriptionId) {
      assertEnabled(deps.config)
      if (!stripeSubscriptionId.startsWith('sub_sim_')) return null
      const row = await repo.findByStripeId(deps.db, stripeSubscriptionId)
      if (!row) return null
      return { status: row.status, cancelAtPeriodEnd: row.cancelAtPeriodEnd, currentPeriodEnd: row.currentPeriodEnd }
    },
  }
}

export type SimulatorSessionView = {
  id: string
  planName: string
  amountCents: number
  email: string
  approved: boolean
  /** Pays one of our open invoices (the payments page is where the customer comes back to). */
  paysInvoice: boolean
}

/** The session, if it exists, is still open or approved, and belongs to this user. */
export async function findOwnSession(
  deps: SimulatorDeps,
  userId: string,
  sessionId: string,
): Promise<SimulatorSessionView | null> {
  assertEnabled(deps.config)
  const session = await repo.findSimulatorSession(deps.db, sessionId)
  if (!session || session.userId !== userId) return null
  if (!session.approvedAt && session.expiresAt.getTime() <= deps.now().getTime()) return null
  return {
    id: session.id,
    planName: session.planName,
    amountCents: session.amountCents,
    email: session.email,
    approved: Boolean(session.approvedAt),
    paysInvoice: Boolean(session.paymentId),
  }
}

/**
 * Approve: the ids of the simulated subscription, customer and invoice are fixed on the session first, so a
 * second approval (double click, reload) replays the very same events, which the handler recognises.
 * Returns where to send the browser, or null when the session is not this user's (or is gone).
 */
export async function approveSession(deps: SimulatorDeps, userId: string, sessionId: string): Promise<string | null> {
  assertEnabled(deps.config)
  const approved = await deps.db.transaction(async (tx) => {
    const session = await repo.lockSimulatorSession(tx, sessionId)
    if (!session || session.userId !== userId) return null
    if (session.approvedAt) return session
    if (session.expiresAt.getTime() <= deps.now().getTime()) return null
    if (session.mode === 'payment') {
      return repo.markSimulatorSessionApproved(tx, session.id, {
        stripeCustomerId: token('cus_sim'),
        stripePaymentIntentId: token('pi_sim'),
        approvedAt: deps.now(),
      })
    }
    return repo.markSimulatorSessionApproved(tx, session.id, {
      stripeSubscriptionId: token('sub_sim'),
      stripeCustomerId: token('cus_sim'),
      stripeInvoiceId: token('in_sim'),
      approvedAt: deps.now(),
    })
  })
  if (approved?.mode === 'payment') return approvePayment(deps, approved)
  if (
    !approved?.approvedAt ||
    !approved.stripeSubscriptionId ||
    !approved.stripeCustomerId ||
    !approved.stripeInvoiceId
  )
    return null

  const at = approved.approvedAt
  const subscription: SimSubscription = {
    id: approved.stripeSubscriptionId,
    customerId: approved.stripeCustomerId,
    status: 'active',
    cancelAtPeriodEnd: false,
    periodStart: at,
    periodEnd: addMonthsAnchored(at, 1),
    userId: approved.userId,
    planId: approved.planId,
    unitAmount: approved.amountCents,
    created: at,
    ours:
      approved.subscriptionId && approved.paymentId
        ? { subscriptionId: approved.subscriptionId, paymentId: approved.paymentId }
        : undefined,
  }
  const urls = checkoutUrls(deps.config.appUrl)
  const checkoutSession = {
    id: approved.id,
    object: 'checkout.session',
    mode: 'subscription',
    status: 'complete',
    payment_status: 'paid',
    customer: subscription.customerId,
    customer_email: approved.email,
    client_reference_id: approved.userId,
    subscription: subscription.id,
    metadata: { userId: approved.userId, planId: approved.planId, ...(subscription.ours ?? {}) },
    success_url: subscription.ours ? urls.invoiceSuccess : urls.success,
    cancel_url: subscription.ours ? urls.invoiceCancel : urls.cancel,
    livemode: false,
  }
  const invoice = invoiceObject({
    id: approved.stripeInvoiceId,
    subscription,
    amount: approved.amountCents,
    billingReason: 'subscription_create',
    periodStart: at,
    at,
    receiptUrl: simulatorPaths(deps.config.appUrl).receipt(approved.stripeInvoiceId),
  })
  const handlerDeps = eventDeps(deps, async () => subscriptionObject(subscription))
  await handleStripeEvent(
    handlerDeps,
    event(`evt_${approved.id}_completed`, 'checkout.session.completed', at, checkoutSession),
  )
  await handleStripeEvent(handlerDeps, event(`evt_${approved.stripeInvoiceId}_paid`, 'invoice.paid', at, invoice))
  return subscription.ours ? urls.invoiceSuccess : urls.success
}

/** A payment-mode session (one renewal or upgrade invoice): the Checkout Session Stripe completes, paid. */
async function approvePayment(deps: SimulatorDeps, approved: SimulatorSessionRow): Promise<string | null> {
  if (!approved.approvedAt || !approved.stripePaymentIntentId || !approved.paymentId) return null
  const urls = checkoutUrls(deps.config.appUrl)
  const metadata = { userId: approved.userId, subscriptionId: approved.subscriptionId, paymentId: approved.paymentId }
  const checkoutSession = {
    id: approved.id,
    object: 'checkout.session',
    mode: 'payment',
    status: 'complete',
    payment_status: 'paid',
    amount_total: approved.amountCents,
    amount_subtotal: approved.amountCents,
    currency: 'brl',
    customer: approved.stripeCustomerId,
    customer_email: approved.email,
    client_reference_id: approved.userId,
    payment_intent: approved.stripePaymentIntentId,
    subscription: null,
    metadata,
    success_url: urls.invoiceSuccess,
    cancel_url: urls.invoiceCancel,
    livemode: false,
  }
  await handleStripeEvent(
    eventDeps(deps),
    event(`evt_${approved.id}_completed`, 'checkout.session.completed', approved.approvedAt, checkoutSession),
  )
  return urls.invoiceSuccess
}

/** Decline: like a refused card at Stripe, nothing is recorded; the session stays open for another try. */
export async function declineSession(deps: SimulatorDeps, userId: string, sessionId: string): Promise<string | null> {
  const session = await findOwnSession(deps, userId, sessionId)
  if (!session) return null
  // Declining after approving (back button) cannot undo the payment: show where it went.
  if (session.approved)
    return session.paysInvoice
      ? checkoutUrls(deps.config.appUrl).invoiceSuccess
      : checkoutUrls(deps.config.appUrl).success
  return session.paysInvoice
    ? `${deps.config.appUrl}/dashboard/payments?checkout=declined`
    : `${deps.config.appUrl}/plans?checkout=declined`
}
