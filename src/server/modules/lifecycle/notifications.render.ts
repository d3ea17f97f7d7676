// Customer notifications, rendering: the message of each event, read from the rows (one event, or a batch of them
// for the passes that handle a batch at once). Enqueueing, detection and delivery: notifications.service.ts.
import type { Executor, Tx } from '../../db/client'
import type { PaymentRow } from '../../db/schema/billing'
import type { ProfileRow } from '../../db/schema/auth'
import { loadPaymentWithPlansAndProfile, loadSubscriptionWithPlanAndProfile } from '../../db/subscription-rows'
import { getPixSettings, type PixConfig, pixChargeFor, requirePixConfig } from '../pix/pix.service'
import {
  type CancelReason,
  cancelScheduledMessage,
  canceledMessage,
  dueTomorrowMessage,
  invoiceCreatedMessage,
  type NotificationKind,
  type NotificationMessage,
  graceEndsAt,
  overdueMessage,
  paymentConfirmedMessage,
} from './notification-templates'
import {
  oldestPendingPixInvoices,
  paymentsWithPlansAndProfile,
  subscriptionsWithPlanAndProfile,
} from './lifecycle.repo'
import type { LifecycleDeps } from './pass-runner'

export type Rendered = {
  kind: NotificationKind
  /** What makes the event unique, e.g. the payment id; the dedupe key is `<kind>:<ref>:<channel>`. */
  ref: string
  user: Pick<ProfileRow, 'id' | 'email' | 'whatsappNumber'>
  subscriptionId: string | null
  paymentId: string | null
  message: NotificationMessage
}

/** The day of an instant (UTC), used in refs of events that can repeat once per period. */
export function dayRef(date: Date): string {
  return date.toISOString().slice(0, 10)
}

function urls(deps: Pick<LifecycleDeps, 'config'>) {
  return { paymentsUrl: `${deps.config.appUrl}/dashboard/payments`, plansUrl: `${deps.config.appUrl}/plans` }
}

/** The charge settings a static BR Code is built from; null when they cannot build one. */
type PixSettings = PixConfig | null

/** The BR Code of an open invoice, or null when the PIX settings cannot build one (the message links the panel). */
function brCodeWith(settings: PixSettings, payment: PaymentRow, planName: string): string | null {
  // API Pix: the PSP charge's code while it is payable.
  if (payment.pixChargeStatus === 'active' && payment.pixCopiaECola) return payment.pixCopiaECola
  if (!settings) return null
  try {
    return pixChargeFor(settings, payment, planName).brCode
  } catch {
    return null
  }
}

/**
 * The PIX settings, read and checked only when some invoice needs the static code: a batch reads and checks them once
 * (checking builds a trial BR Code, and an unconfigured one threw an error per message).
 */
async function settingsFor(tx: Executor, payments: PaymentRow[]): Promise<PixSettings> {
  const needed = payments.some((p) => !(p.pixChargeStatus === 'active' && p.pixCopiaECola))
  if (!needed) return null
  const settings = await getPixSettings(tx)
  try {
    return requirePixConfig(settings)
  } catch {
    return null
  }
}

type PaymentWithPlans = NonNullable<Awaited<ReturnType<typeof loadPaymentWithPlansAndProfile>>>
type SubscriptionWithPlan = NonNullable<Awaited<ReturnType<typeof loadSubscriptionWithPlanAndProfile>>>

function invoiceCreatedOf(row: PaymentWithPlans, deps: Pick<LifecycleDeps, 'config'>, settings: PixSettings): Rendered {
  const planName = (row.targetPlan ?? row.plan).name
  const previous = row.payment.metadata.previousAmountCents
  return {
    kind: 'invoice_created',
    ref: row.payment.id,
    user: row.profile,
    subscriptionId: row.subscription.id,
    paymentId: row.payment.id,
    message: invoiceCreatedMessage({
      name: row.profile.name,
      planName,
      ...urls(deps),
      type: row.payment.type,
      amountCents: row.payment.amountCents,
      dueDate: row.payment.dueDate,
      brCode: brCodeWith(settings, row.payment, planName),
      replaced:
        row.payment.metadata.replacesPaymentId && typeof previous === 'number' ? { amountCents: previous } : null,
    }),
  }
}

/**
 * The 'invoice_created' message of an open invoice. A renewal re-issued at a new price (metadata
 * `replacesPaymentId`, `previousAmountCents`: billing/upgrade.service.ts) says so; whether it was enqueued in the
 * re-issuing transaction or found by detection, its dedupe key (the new payment's id) makes it one message.
 */
export async function renderInvoiceCreated(
  tx: Tx,
  deps: Pick<LifecycleDeps, 'config'>,
  paymentId: string,
): Promise<Rendered | null> {
  const row = await loadPaymentWithPlansAndProfile(tx, paymentId)
  if (!row) return null
  return invoiceCreatedOf(row, deps, await settingsFor(tx, [row.payment]))
}

/** renderInvoiceCreated for a batch of invoices: three queries whatever their number (unknown ids are left out). */
export async function renderInvoicesCreated(
  tx: Tx,
  deps: Pick<LifecycleDeps, 'config'>,
  paymentIds: string[],
): Promise<Rendered[]> {
  if (paymentIds.length === 0) return []
  const rows = await paymentsWithPlansAndProfile(tx, paymentIds)
  const settings = await settingsFor(
    tx,
    rows.map((r) => r.payment),
  )
  return rows.map((row) => invoiceCreatedOf(row, deps, settings))
}

export async function renderDueTomorrow(tx: Tx, deps: LifecycleDeps, paymentId: string): Promise<Rendered | null> {
  const row = await loadPaymentWithPlansAndProfile(tx, paymentId)
  if (!row) return null
  const planName = (row.targetPlan ?? row.plan).name
  return {
    kind: 'due_tomorrow',
    ref: row.payment.id,
    user: row.profile,
    subscriptionId: row.subscription.id,
    paymentId: row.payment.id,
    message: dueTomorrowMessage({
      name: row.profile.name,
      planName,
      ...urls(deps),
      amountCents: row.payment.amountCents,
      dueDate: row.payment.dueDate,
      brCode: brCodeWith(await settingsFor(tx, [row.payment]), row.payment, planName),
    }),
  }
}

export async function renderPaymentConfirmed(tx: Tx, deps: LifecycleDeps, paymentId: string): Promise<Rendered | null> {
  const row = await loadPaymentWithPlansAndProfile(tx, paymentId)
  if (!row?.payment.paidAt) return null
  return {
    kind: 'payment_confirmed',
    ref: row.payment.id,
    user: row.profile,
    subscriptionId: row.subscription.id,
    paymentId: row.payment.id,
    message: paymentConfirmedMessage({
      name: row.profile.name,
      planName: row.plan.name,
      ...urls(deps),
      amountCents: row.payment.amountReceivedCents ?? row.payment.amountCents,
      paidAt: row.payment.paidAt,
      periodEnd: row.subscription.currentPeriodEnd,
    }),
  }
}

export async function renderCancelScheduled(
  tx: Tx,
  deps: LifecycleDeps,
  subscriptionId: string,
): Promise<Rendered | null> {
  const row = await loadSubscriptionWithPlanAndProfile(tx, subscriptionId)
  if (!row) return null
  return {
    kind: 'cancel_scheduled',
    ref: `${row.subscription.id}:${dayRef(row.subscription.currentPeriodEnd)}`,
    user: row.profile,
    subscriptionId: row.subscription.id,
    paymentId: null,
    message: cancelScheduledMessage({
      name: row.profile.name,
      planName: row.plan.name,
      ...urls(deps),
      periodEnd: row.subscription.currentPeriodEnd,
    }),
  }
}

function canceledOf(row: SubscriptionWithPlan, deps: Pick<LifecycleDeps, 'config'>, reason: CancelReason): Rendered {
  return {
    kind: 'canceled',
    ref: row.subscription.id,
    user: row.profile,
    subscriptionId: row.subscription.id,
    paymentId: null,
    message: canceledMessage({ name: row.profile.name, planName: row.plan.name, ...urls(deps), reason }),
  }
}

export async function renderCanceled(
  tx: Tx,
  deps: Pick<LifecycleDeps, 'config'>,
  subscriptionId: string,
  reason: CancelReason,
): Promise<Rendered | null> {
  const row = await loadSubscriptionWithPlanAndProfile(tx, subscriptionId)
  return row ? canceledOf(row, deps, reason) : null
}

/** renderCanceled for a batch of subscriptions canceled for the same reason: one query. */
export async function renderCanceledMany(
  tx: Tx,
  deps: Pick<LifecycleDeps, 'config'>,
  subscriptionIds: string[],
  reason: CancelReason,
): Promise<Rendered[]> {
  if (subscriptionIds.length === 0) return []
  const rows = await subscriptionsWithPlanAndProfile(tx, subscriptionIds)
  return rows.map((row) => canceledOf(row, deps, reason))
}

function overdueOf(
  row: SubscriptionWithPlan,
  deps: Pick<LifecycleDeps, 'config'>,
  invoice: PaymentRow | undefined,
  settings: PixSettings,
): Rendered {
  const { subscription } = row
  const pix = subscription.billingMethod === 'pix'
  return {
    kind: 'overdue',
    ref: `${subscription.id}:${dayRef(subscription.currentPeriodEnd)}`,
    user: row.profile,
    subscriptionId: subscription.id,
    paymentId: invoice?.id ?? null,
    message: overdueMessage({
      name: row.profile.name,
      planName: row.plan.name,
      ...urls(deps),
      periodEnd: subscription.currentPeriodEnd,
      // The invoice of this period's renewal, when it is the one shown, says when the grace started.
      cancelOn: pix
        ? graceEndsAt(
            subscription.currentPeriodEnd,
            invoice?.type === 'renewal' && invoice.dueDate.getTime() === subscription.currentPeriodEnd.getTime()
              ? invoice.createdAt
              : null,
          )
        : null,
      invoice: invoice
        ? { amountCents: invoice.amountCents, brCode: brCodeWith(settings, invoice, row.plan.name) }
        : null,
    }),
  }
}

export async function renderOverdue(
  tx: Tx,
  deps: Pick<LifecycleDeps, 'config'>,
  subscriptionId: string,
): Promise<Rendered | null> {
  const [rendered] = await renderOverdueMany(tx, deps, [subscriptionId])
  return rendered ?? null
}

/** The 'overdue' message of each subscription, with its oldest pending_pix invoice: three queries for the batch. */
export async function renderOverdueMany(
  tx: Tx,
  deps: Pick<LifecycleDeps, 'config'>,
  subscriptionIds: string[],
): Promise<Rendered[]> {
  if (subscriptionIds.length === 0) return []
  const rows = await subscriptionsWithPlanAndProfile(tx, subscriptionIds)
  const invoices = await oldestPendingPixInvoices(tx, subscriptionIds)
  const settings = await settingsFor(tx, [...invoices.values()])
  return rows.map((row) => overdueOf(row, deps, invoices.get(row.subscription.id), settings))
}
