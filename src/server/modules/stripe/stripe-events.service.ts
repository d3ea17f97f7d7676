/*
 * Stripe events -> our subscriptions and payments. The webhook and the local card simulator both call
 * handleStripeEvent, so the simulator exercises exactly the code that real Stripe events run.
 *
 * Rules:
 * 1. Idempotent by event id. The event is recorded in webhook_events (insert ... on conflict do nothing) in the
 *    same transaction that applies it: a replay finds its row and changes nothing (answered 200), and a failure
 *    rolls the record back so that Stripe's retry applies the event again. Card payments are also unique by
 *    Stripe invoice id, so invoice.paid + invoice.payment_succeeded for one invoice make one payment.
 * 2. One transaction per event, with the subscription row locked (select ... for update) throughout.
 *    Provider calls (retrieving the subscription) happen before the transaction, never while holding a lock.
 * 3. Ordering: Stripe delivers out of order and retries late.
 *    - Whichever event comes first creates the missing row from its own data (checkout session, invoice or
 *      subscription), provided it carries our user and plan ids (metadata) and a definite status; otherwise it
 *      is recorded and ignored.
 *    - The period only moves forward: a period is applied only when it ends after the stored one.
 *    - Status, cancel_at_period_end and plan follow the newest event: an event whose `created` is older than the
 *      newest one applied (stripe_subscription_sync.state_at) leaves them as they are. Equal seconds apply, in
 *      delivery order.
 *    - customer.subscription.deleted is final: it applies whatever its age, and nothing revives the row after it.
 * 4. Unknown event types are recorded and answered 200.
 * 5. Paying our open invoices by card (card-invoice-events.ts): metadata naming our pending_pix subscription binds
 *    the Stripe subscription to that row (never a second row); a payment-mode checkout pays the invoice it names.
 * 6. The plan: a row is created with the metadata's plan; afterwards only a paid `subscription_update` invoice of a
 *    card upgrade we recorded switches it (billing/card-upgrade.service.ts). Subscription events follow the
 *    metadata's plan only when the price charged is that plan's price; invoice.payment_failed of an upgrade leaves
 *    the subscription as it is (pending update). Card invoices must be BRL and of the amount we priced.
 */
import { randomUUID } from 'node:crypto'
import { nextPeriod } from '../../../domain/billing-period'
import type { SubscriptionStatus } from '../../../domain/subscription-status'
import type { Db, Tx } from '../../db/client'
import { type Actor, audit, systemActor } from '../audit/audit'
import {
  type InvoiceSnapshot,
  mergeMetadata,
  type OurMetadata,
  type Period,
  readCheckoutSession,
  readInvoice,
  readSubscription,
  type StripeEventInput,
  type SubscriptionSnapshot,
  subscriptionIdOf,
} from './stripe-objects'
import { findPlan } from '../plans/plans.service'
import * as repo from './stripe.repo'
import { isProvisioned } from '../../../domain/subscription-status'
import type { NewSubscriptionRow, SubscriptionRow } from '../../db/schema/billing'
import { bindSwitchedSubscription, payInvoiceFromCheckout, switchedInvoiceAmount } from './card-invoice-events'
import { applyPaidCardPlanChange, declineCardPlanChange, expireCardPlanChange } from '../billing/card-upgrade.service'
import type { NotifyDeps } from '../billing/upgrade.service'

export type StripeEventSource = 'stripe' | 'card-simulator'

export type StripeEventDeps = {
  db: Db
  now: () => Date
  /** Who the audit rows name: real Stripe or the local simulator. */
  source: StripeEventSource
  /** Reads the subscription as the provider has it now (Stripe API, or the simulator's own object). */
  retrieveSubscription?: ((stripeSubscriptionId: string) => Promise<unknown>) | undefined
  /** Public base URL, for the links in customer notifications (a declined card upgrade). */
  appUrl?: string | undefined
  /** What the customer's messages are rendered with (a renewal re-priced by a card-paid upgrade). */
  notify?: NotifyDeps | undefined
}

export type StripeEventResult = 'processed' | 'duplicate' | 'ignored'

/** Stripe's statuses in ours; `undefined` keeps what we have (incomplete, paused: nothing definite yet). */
const statusFromStripe: Record<string, SubscriptionStatus | undefined> = {
  active: 'active',
  trialing: 'trialing',
  past_due: 'past_due',
  canceled: 'canceled',
  unpaid: 'canceled',
  incomplete_expired: 'canceled',
  incomplete: undefined,
  paused: undefined,
}

function mapStatus(status: string | undefined): SubscriptionStatus | undefined {
  return status === undefined ? undefined : statusFromStripe[status]
}

function paymentType(billingReason: string | undefined): 'new' | 'upgrade' | 'renewal' {
  if (billingReason === 'subscription_create') return 'new'
  if (billingReason === 'subscription_update') return 'upgrade'
  return 'renewal'
}

export type HandlerContext = {
  tx: Tx
  now: Date
  actor: Actor
  source: StripeEventSource
  event: StripeEventInput
  appUrl: string
  notify: NotifyDeps | undefined
}

export async function handleStripeEvent(deps: StripeEventDeps, event: StripeEventInput): Promise<StripeEventResult> {
  // Cheap early exit for replays; the insert inside the transaction is what actually guarantees once-only.
  if (await repo.eventSeen(deps.db, event.id)) return 'duplicate'
  const fetched = await prefetchSubscription(deps, event)
  return deps.db.transaction(async (tx) => {
    const now = deps.now()
    const recorded = await repo.recordEvent(tx, {
      id: event.id,
      type: event.type,
      payload: event,
      provider: deps.source,
      at: now,
    })
    if (!recorded) return 'duplicate'
    const c: HandlerContext = {
      tx,
      now,
      actor: systemActor(deps.source),
      source: deps.source,
      event,
      appUrl: deps.appUrl ?? '',
      notify: deps.notify,
    }
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
        // Payment mode: one of our open invoices paid by card (card-invoice-events.ts).
        if (readCheckoutSession(event.data.object)?.mode === 'payment') return payInvoiceFromCheckout(c)
        return event.type === 'checkout.session.completed' ? onCheckoutCompleted(c, fetched) : 'ignored'
      case 'invoice.paid':
      case 'invoice.payment_succeeded':
        return onInvoicePaid(c, fetched)
      case 'invoice.payment_failed':
        return onInvoiceFailed(c)
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
        return onSubscriptionChanged(c)
      case 'customer.subscription.pending_update_expired':
        return onPendingUpdateExpired(c)
      default:
        return 'ignored'
    }
  })
}

/**
 * The completed checkout needs the subscription's period, which only the subscription has; an invoice arriving
 * before anything else, without our metadata (invoices finalized before Stripe copied it), needs the
 * subscription's. Both read the subscription from the provider first.
 */
async function prefetchSubscription(deps: StripeEventDeps, event: StripeEventInput) {
  if (!deps.retrieveSubscription) return null
  const id = subscriptionIdOf(event)
  if (!id) return null
  if (event.type === 'checkout.session.completed') {
    if (readCheckoutSession(event.data.object)?.mode !== 'subscription') return null
  } else if (event.type === 'invoice.paid' || event.type === 'invoice.payment_succeeded') {
    const metadata = readInvoice(event.data.object)?.metadata
    if ((metadata?.userId && metadata.planId) || (await repo.findByStripeId(deps.db, id))) return null
  } else {
    return null
  }
  return readSubscription(await deps.retrieveSubscription(id))
}

async function onCheckoutCompleted(c: HandlerContext, fetched: SubscriptionSnapshot | null) {
  const session = readCheckoutSession(c.event.data.object)
  if (session?.mode !== 'subscription' || !session.subscriptionId) return 'ignored'
  const paid = session.paymentStatus !== 'unpaid'
  // A subscription still 'incomplete' when we read it is active once Checkout reports the payment done.
  const status = mapStatus(fetched?.status) ?? (paid ? 'active' : undefined)
  const metadata = mergeMetadata(fetched?.metadata, session.metadata)
  const customerId = fetched?.customerId ?? session.customerId
  const row = await ensureRow(
    c,
    session.subscriptionId,
    status ? { metadata, status, period: fetched?.period, customerId } : null,
  )
  if (!row) return 'ignored'
  await applyChange(
    c,
    row,
    {
      status,
      period: fetched?.period,
      cancelAtPeriodEnd: fetched?.cancelAtPeriodEnd,
      planId: metadata.planId,
      customerId,
    },
    'subscription.checkout_completed',
  )
  return 'processed'
}

async function onInvoicePaid(c: HandlerContext, fetched: SubscriptionSnapshot | null) {
  const invoice = readInvoice(c.event.data.object)
  if (!invoice?.subscriptionId) return 'ignored' // a one-off invoice: not ours to track
  if (invoice.currency && invoice.currency !== 'brl') {
    // Our prices are BRL only: an invoice in another currency is not recorded as BRL, people look at it.
    await audit(c.tx, c.actor, 'payment.card_currency_mismatch', 'stripe_invoice', invoice.id, {
      after: { currency: invoice.currency, amountPaid: invoice.amountPaid, source: c.source, eventId: c.event.id },
    })
    return 'ignored'
  }
  const metadata = mergeMetadata(invoice.metadata, fetched?.metadata)
  const customerId = invoice.customerId ?? fetched?.customerId
  const row = await ensureRow(c, invoice.subscriptionId, {
    metadata,
    status: 'active',
    period: invoice.period ?? fetched?.period,
    customerId,
  })
  if (!row) return 'ignored'
  // A paid upgrade invoice switches to the target we recorded (Stripe's pending update carries no metadata). Other
  // invoices never move the plan: their metadata may still name the plan of before an upgrade.
  let current = row
  let targetPlanId: string | null = null
  if (invoice.billingReason === 'subscription_update') {
    const applied = await applyPaidCardPlanChange(c.tx, row, {
      actor: c.actor,
      now: c.now,
      stripeInvoiceId: invoice.id,
      eventId: c.event.id,
    })
    if (applied) current = applied.subscription
    targetPlanId = applied?.change.targetPlanId ?? (await repo.findCardPlanChangeByInvoice(c.tx, invoice.id))
  }
  if (invoice.amountPaid > 0) await recordCardPayment(c, current, invoice, metadata, targetPlanId)
  await applyChange(c, current, { status: 'active', period: invoice.period, customerId }, 'subscription.invoice_paid')
  return 'processed'
}

/**
 * What a card invoice should have charged: a first invoice, the plan's price (or the PIX invoice it replaced); a
 * renewal, the plan's price; an upgrade, at most the new plan's price. null: nothing to compare with.
 */
async function expectedAmount(
  c: HandlerContext,
  row: SubscriptionRow,
  type: 'new' | 'upgrade' | 'renewal',
  metadata: OurMetadata,
  targetPlanId: string | null,
): Promise<{ exact?: number; max?: number } | null> {
  if (type === 'upgrade') {
    const target = targetPlanId ? await findPlan(c.tx, targetPlanId) : null
    return target ? { max: target.priceCents } : null
  }
  const switched = type === 'new' ? await switchedInvoiceAmount(c.tx, metadata) : null
  if (switched !== null) return { exact: switched }
  const plan = await findPlan(c.tx, row.planId)
  return plan ? { exact: plan.priceCents } : null
}

async function recordCardPayment(
  c: HandlerContext,
  row: SubscriptionRow,
  invoice: InvoiceSnapshot,
  metadata: OurMetadata,
  upgradeTargetPlanId: string | null,
) {
  const eventAt = new Date(c.event.created * 1000)
  const type = paymentType(invoice.billingReason)
  const targetPlanId = type === 'upgrade' ? upgradeTargetPlanId : null
  const expected = await expectedAmount(c, row, type, metadata, targetPlanId)
  // An amount we did not price is recorded for people to look at ('review'), not as a normal payment.
  const mismatch =
    expected !== null &&
    ((expected.exact !== undefined && invoice.amountPaid !== expected.exact) ||
      (expected.max !== undefined && invoice.amountPaid > expected.max))
  const id = randomUUID()
  const inserted = await repo.insertCardPaymentIfMissing(c.tx, {
    id,
    subscriptionId: row.id,
    amountCents: invoice.amountPaid,
    status: mismatch ? 'review' : 'paid',
    type,
    targetPlanId,
    dueDate: invoice.dueDate ?? invoice.createdAt ?? eventAt,
    paidAt: invoice.paidAt ?? eventAt,
    receiptUrl: invoice.receiptUrl ?? null,
    stripeInvoiceId: invoice.id,
    metadata: {
      type,
      ...(targetPlanId ? { targetPlanId } : {}),
      stripeInvoiceId: invoice.id,
      billingReason: invoice.billingReason ?? null,
    },
    at: c.now,
  })
  if (inserted) {
    await audit(c.tx, c.actor, mismatch ? 'payment.flagged' : 'payment.paid', 'payment', id, {
      after: {
        ...(mismatch ? { status: 'review', reason: 'amount_mismatch', expected } : {}),
        amountCents: invoice.amountPaid,
        type,
        stripeInvoiceId: invoice.id,
        subscriptionId: row.id,
        source: c.source,
        eventId: c.event.id,
      },
    })
  }
}

async function onInvoiceFailed(c: HandlerContext) {
  const invoice = readInvoice(c.event.data.object)
  if (!invoice?.subscriptionId) return 'ignored'
  // A first payment declined inside Checkout leaves an incomplete subscription we never created: nothing to do.
  const row = await ensureRow(c, invoice.subscriptionId, null)
  if (!row) return 'ignored'
  if (invoice.billingReason === 'subscription_update') {
    // A declined upgrade (pending update): the subscription goes on as it was, the customer is told.
    await declineCardPlanChange(c.tx, row, {
      actor: c.actor,
      now: c.now,
      appUrl: c.appUrl,
      stripeInvoiceId: invoice.id,
    })
    return 'processed'
  }
  await applyChange(c, row, { status: 'past_due' }, 'subscription.payment_failed')
  return 'processed'
}

async function onSubscriptionChanged(c: HandlerContext) {
  const sub = readSubscription(c.event.data.object)
  if (!sub) return 'ignored'
  const deleted = c.event.type === 'customer.subscription.deleted'
  const status = deleted ? 'canceled' : mapStatus(sub.status)
  // A row is created only for a subscription that gives the service (a late 'deleted' or 'incomplete' creates none).
  const creatable = !deleted && status !== undefined && isProvisioned(status)
  const row = await ensureRow(
    c,
    sub.id,
    creatable ? { metadata: sub.metadata, status, period: sub.period, customerId: sub.customerId } : null,
  )
  if (!row) return 'ignored'
  await applyChange(
    c,
    row,
    {
      status,
      cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
      period: sub.period,
      planId: await planOfSubscription(c, sub),
      customerId: sub.customerId,
      endedAt: deleted ? (sub.endedAt ?? new Date(c.event.created * 1000)) : undefined,
    },
    deleted ? 'subscription.deleted' : 'subscription.updated',
  )
  return 'processed'
}

/**
 * The plan a subscription event names, only when the price Stripe charges is that plan's price and no pending update
 * waits: after a card upgrade the subscription's metadata still names the old plan (pending updates take no
 * metadata), and an event must never switch the plan back. Plan switches come from paid upgrade invoices.
 */
async function planOfSubscription(c: HandlerContext, sub: SubscriptionSnapshot): Promise<string | undefined> {
  if (!sub.metadata.planId || sub.hasPendingUpdate) return undefined
  const plan = await findPlan(c.tx, sub.metadata.planId)
  if (!plan) return undefined
  return sub.unitAmount === undefined || sub.unitAmount === plan.priceCents ? plan.id : undefined
}

async function onPendingUpdateExpired(c: HandlerContext) {
  const sub = readSubscription(c.event.data.object)
  if (!sub) return 'ignored'
  const row = await repo.lockByStripeId(c.tx, sub.id)
  if (!row) return 'ignored'
  await expireCardPlanChange(c.tx, row, { actor: c.actor, now: c.now })
  return 'processed'
}

type CreateInput = {
  metadata: OurMetadata
  status: SubscriptionStatus
  period?: Period | undefined
  customerId?: string | undefined
}

/** The locked row for this Stripe subscription, created from the event's data when it is missing and `create` allows. */
async function ensureRow(
  c: HandlerContext,
  stripeSubscriptionId: string,
  create: CreateInput | null,
): Promise<SubscriptionRow | null> {
  const existing = await repo.lockByStripeId(c.tx, stripeSubscriptionId)
  if (existing || !create) return existing
  // Paid from one of our open first invoices: that subscription moves to card, never a second row.
  if (create.metadata.subscriptionId) return bindSwitchedSubscription(c, stripeSubscriptionId, create)
  const { userId, planId } = create.metadata
  if (!userId || !planId) return null
  if (!(await repo.userExists(c.tx, userId)) || !(await findPlan(c.tx, planId))) return null
  const period = create.period ?? nextPeriod(new Date(c.event.created * 1000))
  const inserted = await repo.insertSubscriptionIfMissing(c.tx, {
    id: randomUUID(),
    userId,
    planId,
    status: create.status,
    billingMethod: 'card',
    currentPeriodStart: period.start,
    currentPeriodEnd: period.end,
    anchorDay: period.start.getUTCDate(),
    cancelAtPeriodEnd: false,
    canceledAt: create.status === 'canceled' ? c.now : null,
    stripeSubscriptionId,
    stripeCustomerId: create.customerId ?? null,
    createdAt: c.now,
    updatedAt: c.now,
  })
  const row = await repo.lockByStripeId(c.tx, stripeSubscriptionId)
  if (inserted && row) {
    await audit(c.tx, c.actor, 'subscription.created', 'subscription', row.id, {
      after: { ...auditView(row), source: c.source, eventId: c.event.id },
    })
  }
  return row
}

type Change = {
  status?: SubscriptionStatus | undefined
  cancelAtPeriodEnd?: boolean | undefined
  planId?: string | undefined
  period?: Period | undefined
  customerId?: string | undefined
  /** Set by customer.subscription.deleted only: the subscription is over for good. */
  endedAt?: Date | undefined
}

async function applyChange(c: HandlerContext, row: SubscriptionRow, change: Change, action: string) {
  const stripeSubscriptionId = row.stripeSubscriptionId
  if (!stripeSubscriptionId) throw new Error('a card subscription without its Stripe id')
  const sync = await repo.getSync(c.tx, stripeSubscriptionId)
  const eventAt = new Date(c.event.created * 1000)
  const final = change.endedAt !== undefined
  const newest = !sync?.endedAt && (!sync || eventAt.getTime() >= sync.stateAt.getTime())
  const next: Partial<NewSubscriptionRow> = {}

  if (change.customerId && !row.stripeCustomerId) next.stripeCustomerId = change.customerId
  if (change.period && change.period.end.getTime() > row.currentPeriodEnd.getTime()) {
    next.currentPeriodStart = change.period.start
    next.currentPeriodEnd = change.period.end
  }
  if (newest || final) {
    if (change.status && change.status !== row.status) {
      next.status = change.status
      next.canceledAt = change.status === 'canceled' ? (change.endedAt ?? eventAt) : null
    }
    if (change.cancelAtPeriodEnd !== undefined && change.cancelAtPeriodEnd !== row.cancelAtPeriodEnd)
      next.cancelAtPeriodEnd = change.cancelAtPeriodEnd
    if (change.planId && change.planId !== row.planId && (await findPlan(c.tx, change.planId)))
      next.planId = change.planId
    await repo.saveSync(c.tx, {
      stripeSubscriptionId,
      subscriptionId: row.id,
      stateAt: sync && sync.stateAt.getTime() > eventAt.getTime() ? sync.stateAt : eventAt,
      lastEventId: c.event.id,
      endedAt: final ? change.endedAt : (sync?.endedAt ?? null),
      updatedAt: c.now,
    })
  }
  if (Object.keys(next).length === 0) return row
  const updated = await repo.updateSubscription(c.tx, row.id, { ...next, updatedAt: c.now })
  await audit(c.tx, c.actor, action, 'subscription', row.id, {
    before: auditView(row),
    after: { ...auditView(updated), source: c.source, eventId: c.event.id },
  })
  return updated
}

function auditView(row: SubscriptionRow) {
  return {
    status: row.status,
    planId: row.planId,
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    currentPeriodStart: row.currentPeriodStart.toISOString(),
    currentPeriodEnd: row.currentPeriodEnd.toISOString(),
    stripeSubscriptionId: row.stripeSubscriptionId,
  }
}
