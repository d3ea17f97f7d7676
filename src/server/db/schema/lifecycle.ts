import { sql } from 'drizzle-orm'
import { bigserial, check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { subscriptions } from './billing'

/**
 * Customer notifications (transactional outbox). One row per message and channel; `dedupe_key` is unique
 * (`<kind>:<ref>:<channel>`), so a message is enqueued once whatever the number of workers, and the delivery
 * sweep marks it sent after the provider accepted it.
 */
export const notifications = pgTable(
  'notifications',
  {
    id: text('id').primaryKey(),
    dedupeKey: text('dedupe_key').notNull().unique(),
    kind: text('kind').notNull(),
    channel: text('channel').$type<'email' | 'whatsapp'>().notNull(),
    // The customer, subscription and invoice a message is about: plain references, without foreign keys. Each key's
    // check locked the referenced row (FOR KEY SHARE, one query per message): half the cost of enqueueing a batch
    // (migrations 0024 and 0026). A message is written from rows just read under their locks; subscriptions and
    // payments are only ever deleted with their customer, and a customer only by deleteProfiles
    // (lifecycle/maintenance.repo.ts), which deletes the customer's messages in the same transaction. The
    // invariant 'notification_without_customer' (db/invariants.ts) checks it.
    userId: text('user_id').notNull(),
    subscriptionId: text('subscription_id'),
    paymentId: text('payment_id'),
    recipient: text('recipient').notNull(),
    subject: text('subject'),
    body: text('body').notNull(),
    html: text('html'), // e-mail only
    status: text('status').$type<'pending' | 'sent' | 'failed'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull(),
    lastError: text('last_error'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    /** WhatsApp only: the approved utility template and its body parameters (issue 16). */
    template: jsonb('template').$type<{ name: string; params: string[] }>(),
    /** WhatsApp only: Meta's message id (wamid) once accepted; delivery receipts find the row by it. */
    providerMessageId: text('provider_message_id'),
    /** The last delivery receipt ('sent', 'delivered', 'read', 'failed'), or 'fallback_email' (template rejected). */
    deliveryStatus: text('delivery_status'),
    deliveryError: text('delivery_error'),
  },
  (t) => [
    check('notifications_status_check', sql`${t.status} in ('pending', 'sent', 'failed')`),
    check('notifications_channel_check', sql`${t.channel} in ('email', 'whatsapp')`),
    index('notifications_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('notifications_user_idx').on(t.userId, t.createdAt),
  ],
)
export type NotificationRow = typeof notifications.$inferSelect

/**
 * Provisioning events for the chat platform, delivered in `seq` order per subscription (at least once; the id is
 * the event id the platform deduplicates on). `body` is the exact JSON sent, so every attempt signs the same bytes.
 */
export const platformEvents = pgTable(
  'platform_events',
  {
    id: text('id').primaryKey(),
    seq: bigserial('seq', { mode: 'number' }).notNull().unique(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    type: text('type').$type<'subscription.activated' | 'subscription.plan_changed' | 'subscription.ended'>().notNull(),
    body: text('body').notNull(),
    status: text('status').$type<'pending' | 'delivered' | 'skipped'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull(),
    lastError: text('last_error'),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check('platform_events_status_check', sql`${t.status} in ('pending', 'delivered', 'skipped')`),
    check(
      'platform_events_type_check',
      sql`${t.type} in ('subscription.activated', 'subscription.plan_changed', 'subscription.ended')`,
    ),
    index('platform_events_subscription_idx').on(t.subscriptionId, t.seq),
    index('platform_events_pending_idx').on(t.nextAttemptAt, t.seq).where(sql`${t.status} = 'pending'`),
    index('platform_events_status_seq_idx').on(t.status, t.seq),
  ],
)
export type PlatformEventRow = typeof platformEvents.$inferSelect

/** What the chat platform was last told about a subscription; the tick compares it with the subscription row. */
export const subscriptionsProvisionedState = pgTable(
  'subscriptions_provisioned_state',
  {
    subscriptionId: text('subscription_id')
      .primaryKey()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    state: text('state').$type<'active' | 'ended'>().notNull(),
    planId: text('plan_id').notNull(),
    boxQuantity: integer('box_quantity').notNull(),
    agentQuantity: integer('agent_quantity').notNull(),
    lastEventId: text('last_event_id').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [check('subscriptions_provisioned_state_check', sql`${t.state} in ('active', 'ended')`)],
)

/** When a periodic pass (e.g. the daily card reconciliation) last ran: claimed atomically, so it runs once a day. */
export const lifecyclePassRuns = pgTable('lifecycle_pass_runs', {
  name: text('name').primaryKey(),
  lastRunAt: timestamp('last_run_at', { withTimezone: true }).notNull(),
})
