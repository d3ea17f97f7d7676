// Customer notifications, queries: the outbox insert, the detection claims and the delivery sweep's reads and
// writes. Queries only (a `db` or `tx`); the rules are in notifications.service.ts.
import { randomUUID } from 'node:crypto'
import { and, asc, eq, gt, gte, inArray, lte, notInArray, type SQL, sql } from 'drizzle-orm'
import { addDays } from '../../../domain/billing-period'
import type { Executor, Tx } from '../../db/client'
import { insertJsonRows } from '../../db/json-rows'
import { profiles } from '../../db/schema/auth'
import { payments, subscriptions } from '../../db/schema/billing'
import { type NotificationRow, notifications } from '../../db/schema/lifecycle'
import type { NotificationKind } from './notification-templates'

type NewNotification = typeof notifications.$inferInsert

/**
 * Inserts the notifications whose dedupe key is new (one INSERT, the rows as one JSON parameter: db/json-rows.ts);
 * answers those inserted.
 */
export async function insertNotifications(
  tx: Executor,
  values: NewNotification[],
): Promise<{ id: string; subscriptionId: string | null; paymentId: string | null }[]> {
  if (values.length === 0) return []
  const result = (await tx.execute(
    sql`${insertJsonRows(notifications, values)} on conflict (${sql.identifier(notifications.dedupeKey.name)}) do nothing
      returning ${notifications.id} as id, ${notifications.subscriptionId} as subscription_id, ${notifications.paymentId} as payment_id`,
  )) as unknown as { rows: { id: string; subscription_id: string | null; payment_id: string | null }[] }
  return result.rows.map((r) => ({ id: r.id, subscriptionId: r.subscription_id, paymentId: r.payment_id }))
}

/** SQL twin of dayRef (notifications.render.ts), for the detection queries. */
const sqlDay = (column: unknown) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`

/** `not exists` a notification with this key (the e-mail row stands for the event: every event has one). */
const notNotified = (key: SQL) =>
  sql`not exists (select 1 from ${notifications} where ${notifications.dedupeKey} = ${key})`

const emailKey = (kind: NotificationKind, ref: SQL) => sql`${kind} || ':' || ${ref} || ':email'`

const notSeen = (column: typeof payments.id | typeof subscriptions.id, seen: string[]) =>
  seen.length ? notInArray(column, seen) : undefined

/** Open PIX invoices due within 24 hours without their reminder, oldest due first, locked. */
export function claimDueTomorrow(tx: Executor, now: Date, seen: string[], limit: number) {
  return tx
    .select({ id: payments.id })
    .from(payments)
    .where(
      and(
        eq(payments.status, 'pending_pix'),
        gt(payments.dueDate, now),
        lte(payments.dueDate, addDays(now, 1)),
        notNotified(emailKey('due_tomorrow', sql`${payments.id}`)),
        notSeen(payments.id, seen),
      ),
    )
    .orderBy(asc(payments.dueDate), asc(payments.id))
    .limit(limit)
    .for('update', { skipLocked: true })
}

/**
 * SQL twin of isLateRenewal (notification-templates.ts): the overdue message sent in the same batch announces such a
 * renewal with its code, so it has no invoice_created message of its own. With API Pix too: a PSP charge needs a due
 * date ahead, so none is ever created for it (pix-confirm.repo.ts, invoicesToCharge) and both messages would carry
 * the same static code (until 2026-11-28 the customer got both).
 */
const lateRenewal = sql`(${payments.type} = 'renewal' and ${payments.dueDate} <= ${payments.createdAt})`

/**
 * Payments in a state whose notification `kind` does not exist yet, oldest first (by creation for a new invoice, by
 * payment for a paid one), since `since`, locked; a new invoice that is a late renewal is left out (lateRenewal).
 */
export function claimPaymentsToNotify(
  tx: Executor,
  kind: 'invoice_created' | 'payment_confirmed',
  status: 'pending_pix' | 'paid',
  since: Date,
  seen: string[],
  limit: number,
) {
  const at = kind === 'invoice_created' ? payments.createdAt : payments.paidAt
  return tx
    .select({ id: payments.id })
    .from(payments)
    .where(
      and(
        eq(payments.status, status),
        gte(at, since),
        notNotified(emailKey(kind, sql`${payments.id}`)),
        kind === 'invoice_created' ? sql`not ${lateRenewal}` : undefined,
        notSeen(payments.id, seen),
      ),
    )
    .orderBy(asc(at), asc(payments.id))
    .limit(limit)
    .for('update', { skipLocked: true })
}

const subscriptionEvents = {
  cancel_scheduled: () =>
    and(
      eq(subscriptions.cancelAtPeriodEnd, true),
      inArray(subscriptions.status, ['active', 'trialing', 'past_due']),
      notNotified(
        emailKey('cancel_scheduled', sql`${subscriptions.id} || ':' || ${sqlDay(subscriptions.currentPeriodEnd)}`),
      ),
    ),
  canceled: () =>
    and(eq(subscriptions.status, 'canceled'), notNotified(emailKey('canceled', sql`${subscriptions.id}`))),
  overdue: () =>
    and(
      eq(subscriptions.status, 'past_due'),
      notNotified(emailKey('overdue', sql`${subscriptions.id} || ':' || ${sqlDay(subscriptions.currentPeriodEnd)}`)),
    ),
}

/** Subscriptions changed since `since` into a state whose notification `kind` does not exist yet, locked. */
export function claimSubscriptionsToNotify(
  tx: Executor,
  kind: keyof typeof subscriptionEvents,
  since: Date,
  seen: string[],
  limit: number,
) {
  return tx
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(subscriptionEvents[kind](), gte(subscriptions.updatedAt, since), notSeen(subscriptions.id, seen)))
    .orderBy(asc(subscriptions.updatedAt), asc(subscriptions.id))
    .limit(limit)
    .for('update', { skipLocked: true })
}

/** The oldest pending notification that is due and not in `seen`, locked (others' locked rows skipped). */
export async function claimDueNotification(tx: Executor, now: Date, seen: string[]) {
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
}

/** One pending notification by id, locked for its delivery (FOR UPDATE SKIP LOCKED), whenever it is due. */
export async function claimNotification(tx: Executor, id: string) {
  const [row] = await tx
    .select()
    .from(notifications)
    .where(and(eq(notifications.id, id), eq(notifications.status, 'pending')))
    .for('update', { skipLocked: true })
  return row
}

export async function updateNotification(tx: Tx, id: string, set: Partial<NewNotification>): Promise<void> {
  await tx.update(notifications).set(set).where(eq(notifications.id, id))
}

/** The e-mail of the same event as a WhatsApp row (dedupe key `<kind>:<ref>:email`), unless it exists. */
export async function insertEmailTwin(tx: Tx, row: NotificationRow, email: string, now: Date): Promise<void> {
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
      recipient: email,
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

export async function profileEmail(tx: Executor, userId: string): Promise<string | null> {
  const [profile] = await tx.select({ email: profiles.email }).from(profiles).where(eq(profiles.id, userId)).limit(1)
  return profile?.email ?? null
}
