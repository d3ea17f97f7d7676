import { sql } from 'drizzle-orm'
import { bigint, check, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
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
    // Filled on approval, so a repeated approval replays the very same events.
    stripeSubscriptionId: text('stripe_subscription_id'),
    stripeCustomerId: text('stripe_customer_id'),
    stripeInvoiceId: text('stripe_invoice_id'),
    approvedAt: timestamp('approved_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check('card_simulator_sessions_amount_check', sql`${t.amountCents} > 0`),
    index('card_simulator_sessions_user_idx').on(t.userId, t.createdAt),
  ],
)
