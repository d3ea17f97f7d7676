// Readers for the few Stripe object fields we use. Webhook payloads are parsed here instead of trusting the SDK
// types: the same code reads real Stripe events (any API version), fake-server objects and simulator events.

type Obj = Record<string, unknown>

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined
}
function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}
/** Stripe expands references on request: a field is either an id or the object itself. */
function idOf(value: unknown): string | undefined {
  return str(value) ?? (isObj(value) ? str(value.id) : undefined)
}
function obj(value: unknown): Obj {
  return isObj(value) ? value : {}
}
function listData(value: unknown): Obj[] {
  const data = obj(value).data
  return Array.isArray(data) ? data.filter(isObj) : []
}
function seconds(value: unknown): Date | undefined {
  const n = num(value)
  return n === undefined ? undefined : new Date(n * 1000)
}

export type Period = { start: Date; end: Date }

function period(start: unknown, end: unknown): Period | undefined {
  const s = seconds(start)
  const e = seconds(end)
  return s && e && e.getTime() > s.getTime() ? { start: s, end: e } : undefined
}

/**
 * Our ids, written by us into the session's and the subscription's metadata. `subscriptionId` is our pending_pix
 * subscription that a card checkout moves to card; `paymentId` is the invoice a card checkout pays.
 */
export type OurMetadata = {
  userId?: string | undefined
  planId?: string | undefined
  subscriptionId?: string | undefined
  paymentId?: string | undefined
}

function readMetadata(value: unknown): OurMetadata {
  const m = obj(value)
  return {
    userId: str(m.userId),
    planId: str(m.planId),
    subscriptionId: str(m.subscriptionId),
    paymentId: str(m.paymentId),
  }
}

/** The first value of each key wins: callers list sources from the most to the least trusted. */
export function mergeMetadata(...sources: Array<OurMetadata | undefined>): OurMetadata {
  return {
    userId: sources.find((s) => s?.userId)?.userId,
    planId: sources.find((s) => s?.planId)?.planId,
    subscriptionId: sources.find((s) => s?.subscriptionId)?.subscriptionId,
    paymentId: sources.find((s) => s?.paymentId)?.paymentId,
  }
}

export type StripeEventInput = { id: string; type: string; created: number; data: { object: unknown } }

export function readEvent(value: unknown): StripeEventInput | null {
  if (!isObj(value)) return null
  const id = str(value.id)
  const type = str(value.type)
  const created = num(value.created)
  const data = obj(value.data)
  if (!id || !type || created === undefined || !isObj(data.object)) return null
  return { id, type, created, data: { object: data.object } }
}

export type SubscriptionSnapshot = {
  id: string
  customerId?: string | undefined
  status?: string | undefined
  cancelAtPeriodEnd?: boolean | undefined
  period?: Period | undefined
  metadata: OurMetadata
  itemId?: string | undefined
  productId?: string | undefined
  unitAmount?: number | undefined
  endedAt?: Date | undefined
  /** A pending update (payment_behavior pending_if_incomplete) waits for its invoice to be paid. */
  hasPendingUpdate: boolean
}

export function readSubscription(value: unknown): SubscriptionSnapshot | null {
  if (!isObj(value)) return null
  const id = str(value.id)
  if (!id) return null
  const item = listData(value.items)[0] ?? {}
  const price = obj(item.price)
  return {
    id,
    customerId: idOf(value.customer),
    status: str(value.status),
    cancelAtPeriodEnd: typeof value.cancel_at_period_end === 'boolean' ? value.cancel_at_period_end : undefined,
    // Since API 2025-03-31 the period lives on each item; older versions keep it on the subscription.
    period:
      period(item.current_period_start, item.current_period_end) ??
      period(value.current_period_start, value.current_period_end),
    metadata: readMetadata(value.metadata),
    itemId: str(item.id),
    productId: idOf(price.product),
    unitAmount: num(price.unit_amount),
    endedAt: seconds(value.ended_at),
    hasPendingUpdate: isObj(value.pending_update),
  }
}

export type InvoiceSnapshot = {
  id: string
  subscriptionId?: string | undefined
  customerId?: string | undefined
  amountPaid: number
  /** Lower-case ISO code as Stripe sends it ('brl'). */
  currency?: string | undefined
  billingReason?: string | undefined
  receiptUrl?: string | undefined
  period?: Period | undefined
  metadata: OurMetadata
  createdAt?: Date | undefined
  dueDate?: Date | undefined
  paidAt?: Date | undefined
}

export function readInvoice(value: unknown): InvoiceSnapshot | null {
  if (!isObj(value)) return null
  const id = str(value.id)
  if (!id) return null
  const parentDetails = obj(obj(value.parent).subscription_details)
  const legacyDetails = obj(value.subscription_details)
  const lines = listData(value.lines)
  // The subscription line's period is the service period; proration lines end on the same day, so the latest
  // end is the period the invoice pays for (invoice.period_* is the *previous* period on renewals).
  let servicePeriod: Period | undefined
  for (const line of lines) {
    const p = obj(line.period)
    const candidate = period(p.start, p.end)
    if (candidate && (!servicePeriod || candidate.end > servicePeriod.end)) servicePeriod = candidate
  }
  return {
    id,
    subscriptionId: idOf(parentDetails.subscription) ?? idOf(value.subscription),
    customerId: idOf(value.customer),
    amountPaid: num(value.amount_paid) ?? 0,
    currency: str(value.currency)?.toLowerCase(),
    billingReason: str(value.billing_reason),
    receiptUrl: str(value.hosted_invoice_url),
    period: servicePeriod,
    metadata: mergeMetadata(
      readMetadata(parentDetails.metadata),
      readMetadata(legacyDetails.metadata),
      ...lines.map((l) => readMetadata(l.metadata)),
    ),
    createdAt: seconds(value.created),
    dueDate: seconds(value.due_date),
    paidAt: seconds(obj(value.status_transitions).paid_at),
  }
}

export type CheckoutSessionSnapshot = {
  id: string
  mode?: string | undefined
  subscriptionId?: string | undefined
  customerId?: string | undefined
  paymentStatus?: string | undefined
  /** Payment mode: the payment intent, what was charged and in which currency. */
  paymentIntentId?: string | undefined
  amountTotal?: number | undefined
  currency?: string | undefined
  metadata: OurMetadata
}

export function readCheckoutSession(value: unknown): CheckoutSessionSnapshot | null {
  if (!isObj(value)) return null
  const id = str(value.id)
  if (!id) return null
  return {
    id,
    mode: str(value.mode),
    subscriptionId: idOf(value.subscription),
    customerId: idOf(value.customer),
    paymentStatus: str(value.payment_status),
    paymentIntentId: idOf(value.payment_intent),
    amountTotal: num(value.amount_total),
    currency: str(value.currency)?.toLowerCase(),
    metadata: mergeMetadata(readMetadata(value.metadata), { userId: str(value.client_reference_id) }),
  }
}

/** The subscription an event is about, wherever its type keeps it. */
export function subscriptionIdOf(event: StripeEventInput): string | undefined {
  const o = obj(event.data.object)
  if (event.type.startsWith('customer.subscription.')) return str(o.id)
  if (event.type.startsWith('invoice.')) return readInvoice(o)?.subscriptionId
  if (event.type.startsWith('checkout.session.')) return idOf(o.subscription)
  return undefined
}
