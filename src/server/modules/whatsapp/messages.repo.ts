// WhatsApp messages kept with the customer (issue 16) and the delivery receipts Meta posts back.
import { randomUUID } from 'node:crypto'
import { and, asc, desc, eq, inArray, isNull, ne, or } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { profiles } from '../../db/schema/auth'
import { notifications } from '../../db/schema/lifecycle'
import { type WhatsAppMessageStatus, whatsappMessageStatuses, whatsappMessages } from '../../db/schema/whatsapp'

export type OutboundRecord = {
  userId: string | null
  phone: string
  kind: 'code' | 'notification' | 'reply' | 'image'
  body: string
  template?: string | null
  providerMessageId?: string | null | undefined
  notificationId?: string | null
  verificationId?: string | null
  status: 'accepted' | 'failed'
  errorCode?: number | null | undefined
  errorTitle?: string | null
  now: Date
}

export async function recordOutbound(db: Executor, r: OutboundRecord): Promise<string> {
  const id = randomUUID()
  await db.insert(whatsappMessages).values({
    id,
    userId: r.userId,
    phone: r.phone,
    direction: 'outbound',
    kind: r.kind,
    body: r.body,
    template: r.template ?? null,
    providerMessageId: r.providerMessageId ?? null,
    notificationId: r.notificationId ?? null,
    verificationId: r.verificationId ?? null,
    status: r.status,
    errorCode: r.errorCode ?? null,
    errorTitle: r.errorTitle ?? null,
    createdAt: r.now,
    updatedAt: r.now,
  })
  return id
}

/**
 * Keeps an inbound message once: its provider id is unique, so a webhook Meta delivers twice inserts nothing the
 * second time. Returns the new row's id, or null for a duplicate.
 */
export async function recordInbound(
  db: Executor,
  r: { userId: string | null; phone: string; body: string; providerMessageId: string; now: Date },
): Promise<string | null> {
  const rows = await db
    .insert(whatsappMessages)
    .values({
      id: randomUUID(),
      userId: r.userId,
      phone: r.phone,
      direction: 'inbound',
      kind: 'message',
      body: r.body,
      providerMessageId: r.providerMessageId,
      status: 'received',
      createdAt: r.now,
      updatedAt: r.now,
    })
    .onConflictDoNothing({ target: whatsappMessages.providerMessageId })
    .returning({ id: whatsappMessages.id })
  return rows[0]?.id ?? null
}

/**
 * The Brazilian forms of a WhatsApp id: Meta may write a mobile number without the ninth digit (55 85 9999-0000
 * for 55 85 99999-0000), so both are tried.
 */
export function numberVariants(waId: string): string[] {
  const variants = [waId]
  if (/^55\d{2}[6-9]\d{7}$/.test(waId)) variants.push(`${waId.slice(0, 4)}9${waId.slice(4)}`)
  if (/^55\d{2}9[6-9]\d{7}$/.test(waId)) variants.push(`${waId.slice(0, 4)}${waId.slice(5)}`)
  return variants
}

/** The customer (not erased) whose profile has this WhatsApp number, if any. */
export async function findCustomerByNumber(db: Executor, waId: string) {
  const [row] = await db
    .select({ id: profiles.id, name: profiles.name, whatsappNumber: profiles.whatsappNumber })
    .from(profiles)
    .where(and(inArray(profiles.whatsappNumber, numberVariants(waId)), isNull(profiles.deletedAt)))
    .orderBy(asc(profiles.createdAt))
    .limit(1)
  return row ?? null
}

const rank: Record<WhatsAppMessageStatus, number> = {
  received: 0,
  accepted: 1,
  sent: 2,
  delivered: 3,
  read: 4,
  failed: 5,
}

export type StatusUpdate = {
  providerMessageId: string
  status: 'sent' | 'delivered' | 'read' | 'failed'
  errorCode: number | null
  errorTitle: string | null
  occurredAt: Date
}

/**
 * Records one delivery receipt on our message (and on its notification): the history keeps each status once,
 * and the message's status only moves forward (receipts may arrive out of order), 'failed' winning. Returns false
 * for a message id we do not know (another app on the same number, or a row already deleted).
 */
export async function applyStatusUpdate(db: Executor, update: StatusUpdate, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [message] = await tx
      .select()
      .from(whatsappMessages)
      .where(eq(whatsappMessages.providerMessageId, update.providerMessageId))
      .limit(1)
      .for('update')
    if (!message) return false
    await tx
      .insert(whatsappMessageStatuses)
      .values({
        messageId: message.id,
        status: update.status,
        errorCode: update.errorCode,
        errorTitle: update.errorTitle,
        occurredAt: update.occurredAt,
        createdAt: now,
      })
      .onConflictDoNothing()
    const forward = message.status !== 'failed' && rank[update.status] > rank[message.status]
    if (!forward) return true
    await tx
      .update(whatsappMessages)
      .set({
        status: update.status,
        errorCode: update.errorCode,
        errorTitle: update.errorTitle,
        updatedAt: now,
      })
      .where(eq(whatsappMessages.id, message.id))
    if (message.notificationId) {
      await tx
        .update(notifications)
        .set({
          deliveryStatus: update.status,
          deliveryError:
            update.status === 'failed' ? `${update.errorCode ?? ''} ${update.errorTitle ?? ''}`.trim() : null,
          updatedAt: now,
        })
        .where(
          and(
            eq(notifications.id, message.notificationId),
            or(isNull(notifications.deliveryStatus), ne(notifications.deliveryStatus, 'fallback_email')),
          ),
        )
    }
    return true
  })
}

/** The delivery of the newest code sent to a verification, or null when none was recorded. */
export async function codeDelivery(db: Executor, verificationId: string) {
  const [row] = await db
    .select({ status: whatsappMessages.status, errorCode: whatsappMessages.errorCode })
    .from(whatsappMessages)
    .where(eq(whatsappMessages.verificationId, verificationId))
    .orderBy(desc(whatsappMessages.createdAt))
    .limit(1)
  return row ?? null
}

/** A customer's messages, newest first, each with its receipts (admin history). */
export async function messagesOfUser(db: Executor, userId: string, limit: number) {
  const rows = await db
    .select()
    .from(whatsappMessages)
    .where(eq(whatsappMessages.userId, userId))
    .orderBy(desc(whatsappMessages.createdAt), desc(whatsappMessages.id))
    .limit(limit)
  const ids = rows.map((r) => r.id)
  const statuses = ids.length
    ? await db
        .select()
        .from(whatsappMessageStatuses)
        .where(inArray(whatsappMessageStatuses.messageId, ids))
        .orderBy(asc(whatsappMessageStatuses.occurredAt), asc(whatsappMessageStatuses.id))
    : []
  return rows.map((row) => ({ row, statuses: statuses.filter((s) => s.messageId === row.id) }))
}

/** A sign-up code sent: kept without the code (only its hash lives, in whatsapp_verifications). */
export async function recordCodeMessage(
  db: Executor,
  r: { phone: string; verificationId: string; providerMessageId: string | undefined; now: Date },
): Promise<void> {
  await recordOutbound(db, {
    userId: null,
    phone: r.phone,
    kind: 'code',
    body: 'Código de verificação',
    providerMessageId: r.providerMessageId,
    verificationId: r.verificationId,
    status: 'accepted',
    now: r.now,
  })
}

/** The person's messages (LGPD export): theirs by account, and the codes sent to their numbers before it existed. */
export function personalMessages(db: Executor, userId: string, phones: string[]) {
  return db
    .select({
      direction: whatsappMessages.direction,
      kind: whatsappMessages.kind,
      phone: whatsappMessages.phone,
      body: whatsappMessages.body,
      template: whatsappMessages.template,
      status: whatsappMessages.status,
      errorCode: whatsappMessages.errorCode,
      errorTitle: whatsappMessages.errorTitle,
      createdAt: whatsappMessages.createdAt,
    })
    .from(whatsappMessages)
    .where(
      phones.length > 0
        ? or(
            eq(whatsappMessages.userId, userId),
            and(isNull(whatsappMessages.userId), inArray(whatsappMessages.phone, phones)),
          )
        : eq(whatsappMessages.userId, userId),
    )
    .orderBy(asc(whatsappMessages.createdAt), asc(whatsappMessages.id))
}

/** Account deletion: the person's messages go (their receipts with them, by cascade). */
export async function deletePersonalMessages(db: Executor, userId: string, phones: string[]): Promise<void> {
  await db
    .delete(whatsappMessages)
    .where(
      phones.length > 0
        ? or(
            eq(whatsappMessages.userId, userId),
            and(isNull(whatsappMessages.userId), inArray(whatsappMessages.phone, phones)),
          )
        : eq(whatsappMessages.userId, userId),
    )
}
