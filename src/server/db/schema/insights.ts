import { sql } from 'drizzle-orm'
import {
  bigint,
  bigserial,
  check,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core'
import { billingMethodEnum, subscriptionStatusEnum } from './billing'

/**
 * Every change of a subscription's plan, status, customer or billing method, and every price change of its plan
 * while it pays it (migration 0017: written by database triggers, so no code path can forget it). `mrr_cents` is
 * what the subscription contributed to MRR from `effective_at` on: the plan's price while active or past_due, else 0.
 */
export const subscriptionHistory = pgTable(
  'subscription_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    // A plain reference (migration 0027): the subscriptions' triggers write the row from the subscription itself, and
    // deleting subscriptions deletes their history (a statement trigger, as ON DELETE CASCADE did).
    subscriptionId: text('subscription_id').notNull(),
    userId: text('user_id').notNull(),
    planId: text('plan_id').notNull(),
    status: subscriptionStatusEnum('status').notNull(),
    billingMethod: billingMethodEnum('billing_method').notNull(),
    mrrCents: bigint('mrr_cents', { mode: 'number' }).notNull(),
    effectiveAt: timestamp('effective_at', { withTimezone: true }).notNull(),
    source: text('source').$type<'change' | 'plan_price' | 'backfill'>().notNull(),
  },
  (t) => [
    check('subscription_history_mrr_check', sql`${t.mrrCents} >= 0`),
    check('subscription_history_source_check', sql`${t.source} in ('change', 'plan_price', 'backfill')`),
    index('subscription_history_subscription_idx').on(t.subscriptionId, t.effectiveAt, t.id),
    index('subscription_history_user_idx').on(t.userId, t.effectiveAt),
  ],
)

/** One row per month (first day, America/Sao_Paulo): the admin home's figures over time, refreshed by the tick. */
export const insightsMonthly = pgTable('insights_monthly', {
  month: date('month', { mode: 'string' }).primaryKey(),
  mrrStartCents: bigint('mrr_start_cents', { mode: 'number' }).notNull().default(0),
  mrrEndCents: bigint('mrr_end_cents', { mode: 'number' }).notNull().default(0),
  newCents: bigint('new_cents', { mode: 'number' }).notNull().default(0),
  expansionCents: bigint('expansion_cents', { mode: 'number' }).notNull().default(0),
  contractionCents: bigint('contraction_cents', { mode: 'number' }).notNull().default(0),
  churnedCents: bigint('churned_cents', { mode: 'number' }).notNull().default(0),
  reactivatedCents: bigint('reactivated_cents', { mode: 'number' }).notNull().default(0),
  customersStart: integer('customers_start').notNull().default(0),
  customersEnd: integer('customers_end').notNull().default(0),
  newCustomers: integer('new_customers').notNull().default(0),
  churnedCustomers: integer('churned_customers').notNull().default(0),
  reactivatedCustomers: integer('reactivated_customers').notNull().default(0),
  revenuePixCents: bigint('revenue_pix_cents', { mode: 'number' }).notNull().default(0),
  revenueCardCents: bigint('revenue_card_cents', { mode: 'number' }).notNull().default(0),
  revenueManualCents: bigint('revenue_manual_cents', { mode: 'number' }).notNull().default(0),
  pixAutoCount: integer('pix_auto_count').notNull().default(0),
  pixAutoP50Seconds: integer('pix_auto_p50_seconds'),
  pixAutoP95Seconds: integer('pix_auto_p95_seconds'),
  pixManualCount: integer('pix_manual_count').notNull().default(0),
  pixManualP50Seconds: integer('pix_manual_p50_seconds'),
  pixManualP95Seconds: integer('pix_manual_p95_seconds'),
  refreshedAt: timestamp('refreshed_at', { withTimezone: true }).notNull(),
})

/** Subscriptions per (plan, billing method, status), kept exact by a trigger on subscriptions (migration 0017). */
export const subscriptionCounts = pgTable(
  'subscription_counts',
  {
    planId: text('plan_id').notNull(),
    billingMethod: billingMethodEnum('billing_method').notNull(),
    status: subscriptionStatusEnum('status').notNull(),
    count: bigint('count', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ name: 'subscription_counts_pk', columns: [t.planId, t.billingMethod, t.status] })],
)
