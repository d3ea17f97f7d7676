// Customer notifications: enqueueing (transactional outbox), detection of the events other modules cause, and the
// delivery sweep. Rules: lifecycle.service.ts; messages: notifications.render.ts; queries: notifications.repo.ts.
import { randomUUID } from 'node:crypto'
import { addDays } from '../../../domain/billing-period'
import { isErasedEmail } from '../../../domain/personal-data'
import type { Executor, Tx } from '../../db/client'
import { timeOrderedId } from '../../db/ids'
import type { NotificationRow } from '../../db/schema/lifecycle'
import { isTemplateError, sendTemplateWith, sendTextWith, utilityTemplate } from '../messaging/whatsapp'
import { recordOutbound } from '../whatsapp/messages.service'
import { emailHtml, type NotificationKind } from './notification-templates'
import {
  type Rendered,
  renderCanceledMany,
  renderCancelScheduled,
  renderDueTomorrow,
  renderInvoicesCreated,
  renderOverdueMany,
  renderPaymentConfirmed,
} from './notifications.render'
import * as repo from './notifications.repo'
import {
  type Attempt,
  deliverOne,
  forEachClaimed,
  type LifecycleDeps,
  type PassResult,
  retryDelayMs,
  sweep,
} from './pass-runner'

export {
  dayRef,
  type Rendered,
  renderCanceled,
  renderInvoiceCreated,
  renderOverdue,
} from './notifications.render'

/** After this many failed attempts a notification is marked 'failed' and left for people to look at. */
export const maxNotificationAttempts = 6
/** Detection looks this far back, so that a database full of old rows does not flood customers on first run. */
export const detectionWindowDays = 7

export function dedupeKey(kind: NotificationKind, ref: string, channel: 'email' | 'whatsapp'): string {
  return `${kind}:${ref}:${channel}`
}

/**
 * Inserts the e-mail (and, when the customer has a number, the WhatsApp) notification in the caller's transaction.
 * The unique dedupe key makes a second enqueue of the same event a no-op. Returns how many rows were new.
 */
export function enqueue(tx: Tx, now: Date, rendered: Rendered): Promise<number> {
  return enqueueMany(tx, now, [rendered])
}

/** enqueue for many events in one INSERT (a lifecycle pass's batch). */
export async function enqueueMany(tx: Tx, now: Date, events: Rendered[]): Promise<number> {
  return (await enqueueRows(tx, now, events)).length
}

/** enqueueMany answering the notifications that were new. */
async function enqueueRows(tx: Tx, now: Date, events: Rendered[]) {
  const values = events
    .filter((rendered) => !isErasedEmail(rendered.user.email)) // an erased account (LGPD) is never written to again
    .flatMap((rendered) => {
      const channels: ('email' | 'whatsapp')[] = rendered.user.whatsappNumber ? ['email', 'whatsapp'] : ['email']
      return channels.map((channel) => ({
        id: timeOrderedId(),
        dedupeKey: dedupeKey(rendered.kind, rendered.ref, channel),
        kind: rendered.kind,
        channel,
        userId: rendered.user.id,
        subscriptionId: rendered.subscriptionId,
        paymentId: rendered.paymentId,
        recipient: channel === 'email' ? rendered.user.email : (rendered.user.whatsappNumber ?? ''),
        subject: channel === 'email' ? rendered.message.subject : null,
        body: channel === 'email' ? rendered.message.text : rendered.message.whatsapp,
        html: null, // made again from the subject and text when sent (emailHtml)
        template: channel === 'whatsapp' ? rendered.message.template : null,
        status: 'pending' as const,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      }))
    })
  if (values.length === 0) return []
  return repo.insertNotifications(tx, values)
}

// ---- detection of events other modules cause ----

/**
 * A detection pass: claims a batch of rows whose event has no notification yet, renders their messages and
 * enqueues them in one INSERT; a row counts when a notification of it was new.
 */
async function detect(
  deps: LifecycleDeps,
  pass: string,
  claim: (tx: Executor, seen: string[], limit: number) => Promise<{ id: string }[]>,
  render: (tx: Tx, ids: string[]) => Promise<Rendered[]>,
  refersTo: 'paymentId' | 'subscriptionId',
  now: Date,
): Promise<number> {
  return forEachClaimed(deps, pass, claim, async (tx, rows) => {
    const inserted = await enqueueRows(
      tx,
      now,
      await render(
        tx,
        rows.map((r) => r.id),
      ),
    )
    return [...new Set(inserted.map((n) => n[refersTo]).filter((id): id is string => id !== null))]
  })
}

/** A one-event renderer applied to each id of a batch. */
function eachId(render: (tx: Tx, id: string) => Promise<Rendered | null>) {
  return async (tx: Tx, ids: string[]): Promise<Rendered[]> => {
    const out: Rendered[] = []
    for (const id of ids) {
      const rendered = await render(tx, id)
      if (rendered) out.push(rendered)
    }
    return out
  }
}

/** Open PIX invoices due within 24 hours get one reminder. */
export async function detectDueTomorrow(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const processed = await detect(
    deps,
    'due_tomorrow',
    (tx, seen, limit) => repo.claimDueTomorrow(tx, now, seen, limit),
    eachId((tx, id) => renderDueTomorrow(tx, deps, id)),
    'paymentId',
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

  processed += await detect(
    deps,
    'invoice_created',
    (tx, seen, limit) =>
      // Not the late renewals: the overdue message announced them.
      repo.claimPaymentsToNotify(tx, 'invoice_created', 'pending_pix', since, seen, limit),
    (tx, ids) => renderInvoicesCreated(tx, deps, ids),
    'paymentId',
    now,
  )

  processed += await detect(
    deps,
    'payment_confirmed',
    (tx, seen, limit) => repo.claimPaymentsToNotify(tx, 'payment_confirmed', 'paid', since, seen, limit),
    eachId((tx, id) => renderPaymentConfirmed(tx, deps, id)),
    'paymentId',
    now,
  )

  processed += await detect(
    deps,
    'cancel_scheduled',
    (tx, seen, limit) => repo.claimSubscriptionsToNotify(tx, 'cancel_scheduled', since, seen, limit),
    eachId((tx, id) => renderCancelScheduled(tx, deps, id)),
    'subscriptionId',
    now,
  )

  processed += await detect(
    deps,
    'canceled',
    (tx, seen, limit) => repo.claimSubscriptionsToNotify(tx, 'canceled', since, seen, limit),
    (tx, ids) => renderCanceledMany(tx, deps, ids, 'other'),
    'subscriptionId',
    now,
  )

  processed += await detect(
    deps,
    'overdue',
    (tx, seen, limit) => repo.claimSubscriptionsToNotify(tx, 'overdue', since, seen, limit),
    (tx, ids) => renderOverdueMany(tx, deps, ids),
    'subscriptionId',
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
  const { send, settle } = deliveryOf(deps, now)
  return sweep<NotificationRow>(
    deps,
    'deliver_notifications',
    (tx, seen) => repo.claimDueNotification(tx, now, seen),
    send,
    settle,
  )
}

/** How one notification row is sent (`send`) and its outcome recorded (`settle`): the sweep's and sendAccountEmail's. */
function deliveryOf(deps: LifecycleDeps, now: Date) {
  const outcomes = new Map<string, WhatsAppOutcome>()
  return {
    send: async (row: NotificationRow): Promise<void> => {
      if (row.channel === 'email') {
        const html = row.html ?? (isAccountEmail(row.kind) ? null : emailHtml(row.subject ?? '', row.body))
        await deps.mail.send({
          to: row.recipient,
          subject: row.subject ?? '',
          text: row.body,
          ...(html ? { html } : {}),
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
    settle: async (tx: Tx, row: NotificationRow, attempt: Attempt): Promise<void> => {
      const attempts = row.attempts + 1
      const outcome = outcomes.get(row.id)
      outcomes.delete(row.id)
      if (attempt.ok && outcome?.templateRejected) {
        await repo.updateNotification(tx, row.id, {
          status: 'failed',
          attempts,
          deliveryStatus: 'fallback_email',
          deliveryError: outcome.templateRejected.message.slice(0, 500),
          lastError: outcome.templateRejected.message.slice(0, 500),
          updatedAt: now,
        })
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
        await repo.updateNotification(tx, row.id, {
          status: 'sent',
          attempts,
          sentAt: now,
          lastError: null,
          updatedAt: now,
          ...(row.channel === 'whatsapp' ? { providerMessageId: outcome?.id ?? null, deliveryStatus: 'accepted' } : {}),
          ...redactedOnceDone(row),
        })
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
      await repo.updateNotification(tx, row.id, {
        status: failed ? 'failed' : 'pending',
        attempts,
        lastError: attempt.error,
        nextAttemptAt: new Date(now.getTime() + retryDelayMs(attempts)),
        updatedAt: now,
        ...(failed ? redactedOnceDone(row) : {}),
      })
      deps.log.warn(
        { notificationId: row.id, kind: row.kind, channel: row.channel, attempts, error: attempt.error },
        failed ? 'notification failed for good' : 'notification failed; retrying later',
      )
    },
  }
}

/** The e-mail of the same event (dedupe key `<kind>:<ref>:email`); a no-op when it exists, as it usually does. */
async function ensureEmailFallback(tx: Tx, row: NotificationRow, now: Date): Promise<void> {
  const email = await repo.profileEmail(tx, row.userId)
  if (email === null || isErasedEmail(email)) return
  await repo.insertEmailTwin(tx, row, email, now)
}

// ---- account e-mails ----

/**
 * The e-mails a person's own request asks for: the sign-up confirmation (and its resend), the password reset link,
 * and the notice that an account was locked after a flood of wrong passwords.
 */
export const accountEmailKinds = ['email_confirmation', 'password_reset', 'account_locked'] as const
export type AccountEmailKind = (typeof accountEmailKinds)[number]
export type AccountEmail = {
  kind: AccountEmailKind
  userId: string
  to: string
  message: { subject: string; text: string; html?: string | undefined }
}

/** How long a request waits for its account e-mail's first attempt before it answers (the attempt goes on). */
export const accountEmailWaitMs = 3000
/**
 * A new account e-mail is left to its request's own first attempt for this long before the delivery sweep may take
 * it: longer than SMTP's timeouts (10 s to connect, 10 s to greet, 20 s on a silent socket), so the two never send
 * the same row. A process that dies mid-attempt leaves the row pending: the sweep sends it after the lease.
 */
export const accountEmailLeaseMs = 2 * 60_000
/** What an account e-mail's body becomes once it is sent or given up: its links are single-use secrets. */
export const redactedAccountEmailBody = '(e-mail de conta com link de uso único: o texto foi apagado após o envio)'

/**
 * Sends an account e-mail through the outbox: the row is written first, then sent at once, and the request waits
 * for that attempt at most accountEmailWaitMs. A refusing, hung or slow SMTP server never fails or holds the request:
 * the row stays pending with its attempt counted and the delivery sweep sends it once SMTP answers (exactly one
 * e-mail, the row locked while it is sent, as every notification). An erased account (LGPD) is never written to.
 */
export async function sendAccountEmail(deps: LifecycleDeps, email: AccountEmail): Promise<void> {
  if (isErasedEmail(email.to)) return
  const now = deps.now()
  const id = randomUUID()
  await repo.insertNotifications(deps.db, [
    {
      id,
      dedupeKey: `${email.kind}:${id}:email`,
      kind: email.kind,
      channel: 'email',
      userId: email.userId,
      recipient: email.to,
      subject: email.message.subject,
      body: email.message.text,
      html: email.message.html ?? null,
      status: 'pending',
      nextAttemptAt: new Date(now.getTime() + accountEmailLeaseMs),
      createdAt: now,
      updatedAt: now,
    },
  ])
  const { send, settle } = deliveryOf(deps, now)
  const attempt = deliverOne(deps, (tx) => repo.claimNotification(tx, id), send, settle).catch((error: unknown) => {
    // The row is still pending: the sweep sends it after the lease.
    deps.log.error({ err: error, notificationId: id }, 'account e-mail attempt not recorded')
  })
  let timer: NodeJS.Timeout | undefined
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, accountEmailWaitMs)
  })
  try {
    await Promise.race([attempt, waited])
  } finally {
    clearTimeout(timer)
  }
}

/** An account e-mail (its HTML stored, with its button), not a billing message. */
function isAccountEmail(kind: string): boolean {
  return (accountEmailKinds as readonly string[]).includes(kind)
}

function redactedOnceDone(row: NotificationRow): { body?: string; html?: null } {
  return isAccountEmail(row.kind) ? { body: redactedAccountEmailBody, html: null } : {}
}
