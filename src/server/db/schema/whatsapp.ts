import { sql } from 'drizzle-orm'
import { bigserial, check, index, integer, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core'
import { profiles } from './auth'
import { notifications } from './lifecycle'

export type WhatsAppMessageStatus = 'received' | 'accepted' | 'sent' | 'delivered' | 'read' | 'failed'

/**
 * Every WhatsApp message we sent or received (issue 16), kept with the customer when the number is one (LGPD:
 * exported with the account, deleted with it). `provider_message_id` (Meta's wamid) is unique: an inbound message
 * Meta delivers twice is inserted once, and delivery receipts find the outbound message by it.
 */
export const whatsappMessages = pgTable(
  'whatsapp_messages',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').references(() => profiles.id, { onDelete: 'cascade' }),
    phone: text('phone').notNull(),
    direction: text('direction').$type<'inbound' | 'outbound'>().notNull(),
    /** 'code' (sign-up code), 'notification', 'reply' (answer in the chat), 'message' (inbound). */
    kind: text('kind').notNull(),
    /** The text; for a sign-up code only the template's name, never the code. */
    body: text('body').notNull(),
    template: text('template'),
    providerMessageId: text('provider_message_id').unique(),
    notificationId: text('notification_id').references(() => notifications.id, { onDelete: 'cascade' }),
    verificationId: text('verification_id'),
    status: text('status').$type<WhatsAppMessageStatus>().notNull(),
    errorCode: integer('error_code'),
    errorTitle: text('error_title'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check('whatsapp_messages_direction_check', sql`${t.direction} in ('inbound', 'outbound')`),
    check(
      'whatsapp_messages_status_check',
      sql`${t.status} in ('received', 'accepted', 'sent', 'delivered', 'read', 'failed')`,
    ),
    index('whatsapp_messages_user_idx').on(t.userId, t.createdAt),
    index('whatsapp_messages_phone_idx').on(t.phone, t.createdAt),
    index('whatsapp_messages_verification_idx').on(t.verificationId).where(sql`${t.verificationId} is not null`),
    index('whatsapp_messages_notification_idx').on(t.notificationId).where(sql`${t.notificationId} is not null`),
  ],
)

/** The delivery receipts of a message, one row per status (a receipt Meta posts twice is kept once). */
export const whatsappMessageStatuses = pgTable(
  'whatsapp_message_statuses',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    messageId: text('message_id')
      .notNull()
      .references(() => whatsappMessages.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    errorCode: integer('error_code'),
    errorTitle: text('error_title'),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [unique('whatsapp_message_statuses_message_status_unique').on(t.messageId, t.status)],
)
