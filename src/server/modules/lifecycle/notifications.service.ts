// Customer notifications: rendering from the rows, enqueueing (transactional outbox), detection of the events
// other modules cause, and the delivery sweep. Rules: lifecycle.service.ts.
import { randomUUID } from 'node:crypto'
import { and, asc, eq, gt, gte, inArray, lte, notInArray, sql } from 'drizzle-orm'
import { addDays } from '../../../domain/billing-period'
import { isErasedEmail } from '../../../domain/personal-data'
import type { Executor, Tx } from '../../db/client'
import { profiles } from '../../db/schema/auth'
import { payments, subscriptions } from '../../db/schema/billing'
import { notifications } from '../../db/schema/lifecycle'
import { isTemplateError, sendTemplateWith, sendTextWith, utilityTemplate } from '../messaging/whatsapp'
import { getPixSettings, pixChargeFor } from '../pix/pix.service'
import { recordOutbound } from '../whatsapp/messages.service'
import {
  type CancelReason,
  cancelScheduledMessage,
  canceledMessage,
  dueTomorrowMessage,
  invoiceCreatedMessage,
  type NotificationKind,
  type NotificationMessage,
  overdueGraceDays,
  overdueMessage,
  paymentConfirmedMessage,
} from './notification-templates'
import { forEachClaimed, type LifecycleDeps, type PassResult, retryDelayMs, sweep } from './pass-runner'
import type { ProfileRow } from '../../db/schema/auth'
import type { PaymentRow } from '../../db/schema/billing'
import type { NotificationRow } from '../../db/schema/lifecycle'
import { loadPaymentWithPlansAndProfile, loadSubscriptionWithPlanAndProfile } from '../../db/subscription-rows'

/** After this many failed attempts a notification is marked 'failed' and left for people to look at. */
export const maxNotificationAttempts = 6
/** Detection looks this far back, so that a database full of old rows does not flood customers on first run. */
export const detectionWindowDays = 7

export type Rendered = {
  kind: NotificationKind
  /** What makes the event unique, e.g. the payment id; the dedupe key is `<kind>:<ref>:<channel>`. */
  ref: string
  user: Pick<ProfileRow, 'id' | 'email' | 'whatsappNumber'>
  subscriptionId: string | null
  paymentId: string | null
  message: NotificationMessage
}

export function dedupeKey(kind: NotificationKind, ref: string, channel: 'email' | 'whatsapp'): string {
  return `${kind}:${ref}:${channel}`
}

/** The day of an instant (UTC), used in refs of events that can repeat once per period. */
export function dayRef(date: Date): string {
  return date.toISOString().slice(0, 10)
}

/** SQL twin of dayRef, for the detection queries. */
const sqlDay = (column: unknown) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`

function urls(deps: Pick<LifecycleDeps, 'config'>) {
  return { paymentsUrl: `${deps.config.appUrl}/dashboard/payments`, plansUrl: `${deps.config.appUrl}/plans` }
}

/**
 * Inserts the e-mail (and, when the customer has a number, the WhatsApp) notification in the caller's transaction.
 * The unique dedupe key makes a second enqueue of the same event a no-op. Returns how many rows were new.
 */
export async function enqueue(tx: Tx, now: Date, rendered: Rendered): Promise<number> {
  if (isErasedEmail(rendered.user.email)) return 0 // an erased account (LGPD) is never written to again
  const channels: ('email' | 'whatsapp')[] = rendered.user.whatsappNumber ? ['email', 'whatsapp'] : ['email']
  let inserted = 0
  for (const channel of channels) {
    const rows = await tx
      .insert(notifications)
      .values({
        id: randomUUID(),
        dedupeKey: dedupeKey(rendered.kind, rendered.ref, channel),
        kind: rendered.kind,
        channel,
        userId: rendered.user.id,
        subscriptionId: rendered.subscriptionId,
        paymentId: rendered.paymentId,
        recipient: channel === 'email' ? rendered.user.email : rendered.user.whatsappNumber,
        subject: channel === 'email' ? rendered.message.subject : null,
        body: channel === 'email' ? rendered.message.text : rendered.message.whatsapp,
        html: channel === 'email' ? rendered.message.html : null,
        template: channel === 'whatsapp' ? rendered.message.template : null,
        status: 'pending',
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing({ target: notifications.dedupeKey })
      .returning({ id: notifications.id })
    inserted += rows.length
  }
  return inserted
}

// ---- rendering from the rows ----

const loadPayment = (tx: Tx, paymentId: string) => loadPaymentWithPlansAndProfile(tx, paymentId)
const loadSubscription = loadSubscriptionWithPlanAndProfile

/** The BR Code of an open invoice, or null when the PIX settings cannot build one (the message links the panel). */
async function brCodeOf(tx: Tx, payment: PaymentRow, planName: string): Promise<string | null> {
  // API Pix: the PSP charge's code while it is payable.
  if (payment.pixChargeStatus === 'active' && payment.pixCopiaECola) return payment.pixCopiaECola
  const settings = await getPixSettings(tx)
  if (!settings) return null
  try {
    return pixChargeFor(settings, payment, planName).brCode
  } catch {
    return null
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
  const row = await loadPayment(tx, paymentId)
  if (!row) return null
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
      brCode: await brCodeOf(tx, row.payment, planName),
      replaced:
        row.payment.metadata.replacesPaymentId && typeof previous === 'number' ? { amountCents: previous } : null,
    }),
  }
}

async function renderDueTomorrow(tx: Tx, deps: LifecycleDeps, paymentId: string): Promise<Rendered | null> {
  const row = await loadPayment(tx, paymentId)
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
      brCode: await brCodeOf(tx, row.payment, planName),
    }),
  }
}

async function renderPaymentConfirmed(tx: Tx, deps: LifecycleDeps, paymentId: string): Promise<Rendered | null> {
  const row = await loadPayment(tx, paymentId)
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

async function renderCancelScheduled(tx: Tx, deps: LifecycleDeps, subscriptionId: string): Promise<Rendered | null> {
  const row = await loadSubscription(tx, subscriptionId)
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

export async function renderCanceled(
  tx: Tx,
  deps: LifecycleDeps,
  subscriptionId: string,
  reason: CancelReason,
): Promise<Rendered | null> {
  const row = await loadSubscription(tx, subscriptionId)
  if (!row) return null
  return {
    kind: 'canceled',
    ref: row.subscription.id,
    user: row.profile,
    subscriptionId: row.subscription.id,
    paymentId: null,
    message: canceledMessage({ name: row.profile.name, planName: row.plan.name, ...urls(deps), reason }),
  }
}

export async function renderOverdue(tx: Tx, deps: LifecycleDeps, subscriptionId: string): Promise<Rendered | null> {
  const row = await loadSubscription(tx, subscriptionId)
  if (!row) return null
  const { subscription } = row
  const [invoice] = await tx
    .select()
    .from(payments)
    .where(and(eq(payments.subscriptionId, subscription.id), eq(payments.status, 'pending_pix')))
    .orderBy(asc(payments.dueDate))
    .limit(1)
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
      cancelOn: pix ? addDays(subscription.currentPeriodEnd, overdueGraceDays) : null,
      invoice: invoice
        ? { amountCents: invoice.amountCents, brCode: await brCodeOf(tx, invoice, row.plan.name) }
        : null,
    }),
  }
}

// ---- detection of events other modules cause ----

/** `not exists` a notification with this key (the e-mail row stands for the event: every event has one). */
const notNotified = (key: ReturnType<typeof sql>) =>
  sql`not exists (select 1 from ${notifications} where ${notifications.dedupeKey} = ${key})`

const emailKey = (kind: NotificationKind, ref: ReturnType<typeof sql>) => sql`${kind} || ':' || ${ref} || ':email'`

async function detect(
  deps: LifecycleDeps,
  pass: string,
  claim: (tx: Executor, seen: string[]) => Promise<{ id: string } | undefined>,
  render: (tx: Tx, id: string) => Promise<Rendered | null>,
  now: Date,
): Promise<number> {
  return forEachClaimed(deps, pass, claim, async (tx, row) => {
    const rendered = await render(tx, row.id)
    if (!rendered) return false
    return (await enqueue(tx, now, rendered)) > 0
  })
}

/** Open PIX invoices due within 24 hours get one reminder. */
export async function detectDueTomorrow(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const processed = await detect(
    deps,
    'due_tomorrow',
    async (tx, seen) => {
      const [row] = await tx
        .select({ id: payments.id })
        .from(payments)
        .where(
          and(
            eq(payments.status, 'pending_pix'),
            gt(payments.dueDate, now),
            lte(payments.dueDate, addDays(now, 1)),
            notNotified(emailKey('due_tomorrow', sql`${payments.id}`)),
            notInArray(payments.id, seen),
          ),
        )
        .orderBy(asc(payments.dueDate), asc(payments.id))
        .limit(1)
        .for('update', { skipLocked: true })
      return row
    },
    (tx, id) => renderDueTomorrow(tx, deps, id),
    now,
  )
  return { processed }
}

/**
 * The notifications of changes made elsewhere (checkout, admin confirmation and cancel, customer cancel, Stripe
 * webhooks), found from the data: a recent row in a state whose notification does not exist yet.
 */
export async function detectNotifications(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const since = addDays(now, -detectionWindowDays)
  let processed = 0

  /** Claims the oldest payment (by `at`) in a state whose notification `kind` does not exist yet. */
  const paymentClaim =
    (kind: NotificationKind, status: 'pending_pix' | 'paid', at: typeof payments.createdAt | typeof payments.paidAt) =>
    async (tx: Executor, seen: string[]): Promise<{ id: string } | undefined> => {
      const [row] = await tx
        .select({ id: payments.id })
        .from(payments)
        .where(
          and(
            eq(payments.status, status),
            gte(at, since),
            notNotified(emailKey(kind, sql`${payments.id}`)),
            notInArray(payments.id, seen),
          ),
        )
        .orderBy(asc(at), asc(payments.id))
        .limit(1)
        .for('update', { skipLocked: true })
      return row
    }

  processed += await detect(
    deps,
    'invoice_created',
    paymentClaim('invoice_created', 'pending_pix', payments.createdAt),
    (tx, id) => renderInvoiceCreated(tx, deps, id),
    now,
  )

  processed += await detect(
    deps,
    'payment_confirmed',
    paymentClaim('payment_confirmed', 'paid', payments.paidAt),
    (tx, id) => renderPaymentConfirmed(tx, deps, id),
    now,
  )

  const subscriptionClaim =
    (where: (seen: string[]) => ReturnType<typeof and>) =>
    async (tx: Executor, seen: string[]): Promise<{ id: string } | undefined> => {
      const [row] = await tx
        .select({ id: subscriptions.id })
        .from(subscriptions)
        .where(where(seen))
        .orderBy(asc(subscriptions.updatedAt), asc(subscriptions.id))
        .limit(1)
        .for('update', { skipLocked: true })
      return row
    }

  processed += await detect(
    deps,
    'cancel_scheduled',
    subscriptionClaim((seen) =>
      and(
        eq(subscriptions.cancelAtPeriodEnd, true),
        inArray(subscriptions.status, ['active', 'trialing', 'past_due']),
        gte(subscriptions.updatedAt, since),
        notNotified(
          emailKey('cancel_scheduled', sql`${subscriptions.id} || ':' || ${sqlDay(subscriptions.currentPeriodEnd)}`),
        ),
        notInArray(subscriptions.id, seen),
      ),
    ),
    (tx, id) => renderCancelScheduled(tx, deps, id),
    now,
  )

  processed += await detect(
    deps,
    'canceled',
    subscriptionClaim((seen) =>
      and(
        eq(subscriptions.status, 'canceled'),
        gte(subscriptions.updatedAt, since),
        notNotified(emailKey('canceled', sql`${subscriptions.id}`)),
        notInArray(subscriptions.id, seen),
      ),
    ),
    (tx, id) => renderCanceled(tx, deps, id, 'other'),
    now,
  )

  processed += await detect(
    deps,
    'overdue',
    subscriptionClaim((seen) =>
      and(
        eq(subscriptions.status, 'past_due'),
        gte(subscriptions.updatedAt, since),
        notNotified(emailKey('overdue', sql`${subscriptions.id} || ':' || ${sqlDay(subscriptions.currentPeriodEnd)}`)),
        notInArray(subscriptions.id, seen),
      ),
    ),
    (tx, id) => renderOverdue(tx, deps, id),
    now,
  )

  return { processed }
}

// ---- delivery ----

/** What the WhatsApp provider answered for one row of a sweep (kept between the send and the settle steps). */
type WhatsAppOutcome = { id?: string | undefined; templateRejected?: { code: number | undefined; message: string } }

/**
 * Sends the pending notifications that are due, oldest first: one row per transaction, marked 'sent' only after
 * the provider accepted it; a failure is retried with exponential back-off, and after maxNotificationAttempts it
 * becomes 'failed'. WhatsApp rows go as their approved utility template (business-initiated messages must); a
 * template Meta refuses (Graph codes 132000–132016) is not retried: the row is marked 'fallback_email', failed,
 * and the e-mail of the same event stands in for it (enqueued now if it did not exist).
 */
export function deliverNotifications(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const outcomes = new Map<string, WhatsAppOutcome>()
  return sweep<NotificationRow>(
    deps,
    'deliver_notifications',
    async (tx, seen) => {
      const [row] = await tx
        .select()
        .from(notifications)
        .where(
          and(
            eq(notifications.status, 'pending'),
            lte(notifications.nextAttemptAt, now),
            notInArray(notifications.id, seen),
          ),
        )
        .orderBy(asc(notifications.nextAttemptAt), asc(notifications.createdAt), asc(notifications.dedupeKey))
        .limit(1)
        .for('update', { skipLocked: true })
      return row
    },
    async (row) => {
      if (row.channel === 'email') {
        await deps.mail.send({
          to: row.recipient,
          subject: row.subject ?? '',
          text: row.body,
          ...(row.html ? { html: row.html } : {}),
        })
        return
      }
      try {
        const sent = row.template
          ? await sendTemplateWith(
              deps.whatsapp,
              row.recipient,
              utilityTemplate(row.template.name, deps.config.WHATSAPP_TEMPLATE_LANG, row.template.params),
              row.body,
            )
          : await sendTextWith(deps.whatsapp, row.recipient, row.body)
        outcomes.set(row.id, { id: sent.id })
      } catch (error) {
        if (!isTemplateError(error)) throw error
        outcomes.set(row.id, { templateRejected: { code: error.graphCode, message: error.message } })
      }
    },
    async (tx, row, attempt) => {
      const attempts = row.attempts + 1
      const outcome = outcomes.get(row.id)
      outcomes.delete(row.id)
      if (attempt.ok && outcome?.templateRejected) {
        await tx
          .update(notifications)
          .set({
            status: 'failed',
            attempts,
            deliveryStatus: 'fallback_email',
            deliveryError: outcome.templateRejected.message.slice(0, 500),
            lastError: outcome.templateRejected.message.slice(0, 500),
            updatedAt: now,
          })
          .where(eq(notifications.id, row.id))
        await ensureEmailFallback(tx, row, now)
        await recordOutbound(tx, {
          userId: row.userId,
          phone: row.recipient,
          kind: 'notification',
          body: row.body,
          template: row.template?.name ?? null,
          notificationId: row.id,
          status: 'failed',
          errorCode: outcome.templateRejected.code,
          errorTitle: outcome.templateRejected.message.slice(0, 300),
          now,
        })
        deps.log.warn(
          { notificationId: row.id, kind: row.kind, error: outcome.templateRejected.message },
          'whatsapp template refused; the e-mail stands in for it',
        )
        return
      }
      if (attempt.ok) {
        await tx
          .update(notifications)
          .set({
            status: 'sent',
            attempts,
            sentAt: now,
            lastError: null,
            updatedAt: now,
            ...(row.channel === 'whatsapp'
              ? { providerMessageId: outcome?.id ?? null, deliveryStatus: 'accepted' }
              : {}),
          })
          .where(eq(notifications.id, row.id))
        if (row.channel === 'whatsapp')
          await recordOutbound(tx, {
            userId: row.userId,
            phone: row.recipient,
            kind: 'notification',
            body: row.body,
            template: row.template?.name ?? null,
            providerMessageId: outcome?.id,
            notificationId: row.id,
            status: 'accepted',
            now,
          })
        return
      }
      const failed = attempts >= maxNotificationAttempts
      await tx
        .update(notifications)
        .set({
          status: failed ? 'failed' : 'pending',
          attempts,
          lastError: attempt.error,
          nextAttemptAt: new Date(now.getTime() + retryDelayMs(attempts)),
          updatedAt: now,
        })
        .where(eq(notifications.id, row.id))
      deps.log.warn(
        { notificationId: row.id, kind: row.kind, channel: row.channel, attempts, error: attempt.error },
        failed ? 'notification failed for good' : 'notification failed; retrying later',
      )
    },
  )
}

/** The e-mail of the same event (dedupe key `<kind>:<ref>:email`); a no-op when it exists, as it usually does. */
async function ensureEmailFallback(tx: Tx, row: NotificationRow, now: Date): Promise<void> {
  const [profile] = await tx
    .select({ email: profiles.email })
    .from(profiles)
    .where(eq(profiles.id, row.userId))
    .limit(1)
  if (!profile || isErasedEmail(profile.email)) return
  await tx
    .insert(notifications)
    .values({
      id: randomUUID(),
      dedupeKey: row.dedupeKey.replace(/:whatsapp$/, ':email'),
      kind: row.kind,
      channel: 'email',
      userId: row.userId,
      subscriptionId: row.subscriptionId,
      paymentId: row.paymentId,
      recipient: profile.email,
      subject: row.body.split('\n')[0]?.replaceAll('*', '').trim() || 'Aviso da sua assinatura',
      body: row.body,
      html: null,
      status: 'pending',
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing({ target: notifications.dedupeKey })
}
