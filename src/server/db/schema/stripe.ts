import { sql } from 'drizzle-orm'
import { bigint, check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { profiles } from './auth'
import { subscriptions } from './billing'
import { plans } from './plans'

/**
 * Per Stripe subscription, the newest provider state applied to our row. Webhooks arrive out of order:
 * an event older than `stateAt` must not overwrite status, plan or cancel flag, and after a deletion
 * (`endedAt`) nothing brings the subscription back.
 */
export const stripeSubscriptionSync = pgTable('stripe_subscription_sync', {
  stripeSubscriptionId: text('stripe_subscription_id').primaryKey(),
  subscriptionId: text('subscription_id')
    .notNull()
    .references(() => subscriptions.id, { onDelete: 'cascade' }),
  /** Stripe's `created` of the newest event whose state was applied. */
  stateAt: timestamp('state_at', { withTimezone: true }).notNull(),
  lastEventId: text('last_event_id').notNull(),
  endedAt: timestamp('ended_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})
export type SyncRow = typeof stripeSubscriptionSync.$inferSelect

/**
 * Checkout sessions of the local card test-mode simulator (no STRIPE_SECRET_KEY). The id is an unguessable
 * token and the session belongs to one user: only that user's cookie may approve it.
 */
export const cardSimulatorSessions = pgTable(
  'card_simulator_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => profiles.id, { onDelete: 'cascade' }),
    planId: text('plan_id')
      .notNull()
      .references(() => plans.id, { onDelete: 'cascade', onUpdate: 'cascade' }),
    planName: text('plan_name').notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    email: text('email').notNull(),
    idempotencyKey: text('idempotency_key').notNull().unique(),
    /** 'subscription': a card subscription (new, or our pending_pix `subscriptionId` switched to card);
     * 'payment': one renewal or upgrade invoice (`paymentId`) paid once. */
    mode: text('mode').$type<'subscription' | 'payment'>().notNull().default('subscription'),
    subscriptionId: text('subscription_id'),
    paymentId: text('payment_id'),
    // Filled on approval, so a repeated approval replays the very same events.
    stripeSubscriptionId: text('stripe_subscription_id'),
    stripeCustomerId: text('stripe_customer_id'),
    stripeInvoiceId: text('stripe_invoice_id'),
    stripePaymentIntentId: text('stripe_payment_intent_id'),
    approvedAt: timestamp('approved_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check('card_simulator_sessions_amount_check', sql`${t.amountCents} > 0`),
    check('card_simulator_sessions_mode_check', sql`${t.mode} in ('subscription', 'payment')`),
    index('card_simulator_sessions_user_idx').on(t.userId, t.createdAt),
  ],
)
export type SimulatorSessionRow = typeof cardSimulatorSessions.$inferSelect

export const cardPlanChangeStatuses = ['pending', 'declined', 'applied', 'superseded', 'failed', 'expired'] as const
export type CardPlanChangeStatus = (typeof cardPlanChangeStatuses)[number]

/**
 * A card upgrade asked of Stripe with `payment_behavior: 'pending_if_incomplete'`: Stripe applies it only once its
 * proration invoice is paid, and a pending update accepts no metadata, so the target plan is kept here until the
 * paid invoice switches our row. 'pending' and 'declined' are open (at most one per subscription).
 */
export const cardPlanChanges = pgTable(
  'card_plan_changes',
  {
    id: text('id').primaryKey(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    stripeSubscriptionId: text('stripe_subscription_id').notNull(),
    fromPlanId: text('from_plan_id').notNull(),
    targetPlanId: text('target_plan_id')
      .notNull()
      .references(() => plans.id, { onDelete: 'restrict', onUpdate: 'cascade' }),
    targetPriceCents: bigint('target_price_cents', { mode: 'number' }).notNull(),
    status: text('status').$type<CardPlanChangeStatus>().notNull(),
    stripeInvoiceId: text('stripe_invoice_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check(
      'card_plan_changes_status_check',
      sql`${t.status} in ('pending', 'declined', 'applied', 'superseded', 'failed', 'expired')`,
    ),
    uniqueIndex('card_plan_changes_one_open_idx')
      .on(t.subscriptionId)
      .where(sql`${t.status} in ('pending', 'declined')`),
    index('card_plan_changes_subscription_idx').on(t.subscriptionId, t.createdAt),
  ],
)
export type CardPlanChangeRow = typeof cardPlanChanges.$inferSelect
