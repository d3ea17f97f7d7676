import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core'
import { billingMethods, type PaymentType, paymentTypes } from '../../../domain/billing-vocabulary'
import { pixBeneficiaryCityMax, pixBeneficiaryNameMax } from '../../../domain/pix'
import { paymentMethods, paymentStatuses, subscriptionStatuses } from '../../../domain/subscription-status'
import { profiles } from './auth'
import { plans } from './plans'

export const subscriptionStatusEnum = pgEnum('subscription_status', subscriptionStatuses)
export const paymentStatusEnum = pgEnum('payment_status', paymentStatuses)
export const paymentMethodEnum = pgEnum('payment_method', paymentMethods)
export const billingMethodEnum = pgEnum('billing_method', billingMethods)
export const paymentTypeEnum = pgEnum('payment_type', paymentTypes)

export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => profiles.id, { onDelete: 'restrict' }),
    planId: text('plan_id')
      .notNull()
      .references(() => plans.id, { onDelete: 'restrict', onUpdate: 'cascade' }),
    status: subscriptionStatusEnum('status').notNull(),
    billingMethod: billingMethodEnum('billing_method').notNull().default('pix'),
    currentPeriodStart: timestamp('current_period_start', { withTimezone: true }).notNull(),
    currentPeriodEnd: timestamp('current_period_end', { withTimezone: true }).notNull(),
    anchorDay: smallint('anchor_day'), // day of month the period renews on (keeps 31 after February)
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    canceledAt: timestamp('canceled_at', { withTimezone: true }),
    stripeSubscriptionId: text('stripe_subscription_id').unique(),
    stripeCustomerId: text('stripe_customer_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('subscriptions_period_check', sql`${t.currentPeriodEnd} > ${t.currentPeriodStart}`),
    index('subscriptions_user_id_idx').on(t.userId, t.createdAt),
    index('subscriptions_status_idx').on(t.status, t.currentPeriodEnd),
    // Admin lists sort by (key, id) and page by offset: these indexes give every sort and filter its order.
    index('subscriptions_created_at_idx').on(t.createdAt, t.id),
    index('subscriptions_plan_id_idx').on(t.planId, t.createdAt, t.id),
    index('subscriptions_status_created_at_idx').on(t.status, t.createdAt, t.id),
    index('subscriptions_period_end_idx').on(t.currentPeriodEnd, t.id),
    // Admin home: cancellations scheduled this month (migration 0017).
    index('subscriptions_cancel_scheduled_idx').on(t.currentPeriodEnd).where(sql`${t.cancelAtPeriodEnd}`),
    // The renewal and overdue passes' walk (migration 0021).
    index('subscriptions_pix_in_force_idx')
      .on(t.currentPeriodEnd, t.id)
      .where(sql`${t.billingMethod} = 'pix' AND ${t.status} IN ('active', 'trialing') AND NOT ${t.cancelAtPeriodEnd}`),
    // The overdue cancellations' walk (migration 0025): without it each claim sorted a whole period end's past_due rows.
    index('subscriptions_pix_past_due_idx')
      .on(t.currentPeriodEnd, t.id)
      .where(sql`${t.billingMethod} = 'pix' AND ${t.status} = 'past_due'`),
    // The same two walks in id order, for a backlog (migration 0028; lifecycle/pass-runner.ts, claimCursor).
    index('subscriptions_pix_in_force_id_idx')
      .on(t.id)
      .where(sql`${t.billingMethod} = 'pix' AND ${t.status} IN ('active', 'trialing') AND NOT ${t.cancelAtPeriodEnd}`),
    index('subscriptions_pix_past_due_id_idx')
      .on(t.id)
      .where(sql`${t.billingMethod} = 'pix' AND ${t.status} = 'past_due'`),
  ],
)
export type SubscriptionRow = typeof subscriptions.$inferSelect
export type NewSubscriptionRow = typeof subscriptions.$inferInsert

/** The PSP charge: 'fallback' = the PSP was unreachable, the static code is shown and the charge is retried. */
export type PixChargeStatus = 'active' | 'fallback' | 'paid' | 'expired' | 'removed'
export type PixConfirmedVia = 'api_pix' | 'manual'

export type PaymentMetadata = { type?: PaymentType; targetPlanId?: string; [key: string]: unknown }

export const payments = pgTable(
  'payments',
  {
    id: text('id').primaryKey(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'restrict' }),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    status: paymentStatusEnum('status').notNull(),
    currency: text('currency').notNull().default('BRL'),
    paymentMethod: paymentMethodEnum('payment_method').notNull(),
    type: paymentTypeEnum('type').notNull().default('new'),
    targetPlanId: text('target_plan_id').references(() => plans.id, { onDelete: 'restrict', onUpdate: 'cascade' }),
    // Upgrade invoices: the end of the period they priced (they lapse with it; see migration 0007).
    pricedPeriodEnd: timestamp('priced_period_end', { withTimezone: true }),
    dueDate: timestamp('due_date', { withTimezone: true }).notNull(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    receiptUrl: text('receipt_url'),
    metadata: jsonb('metadata').$type<PaymentMetadata>().notNull().default({}),
    pixReference: text('pix_reference').unique(), // the BR Code txid
    pixEndToEndId: text('pix_end_to_end_id').unique(),
    amountReceivedCents: bigint('amount_received_cents', { mode: 'number' }),
    stripeInvoiceId: text('stripe_invoice_id').unique(),
    /** A one-time card payment of this invoice (Checkout in payment mode): Stripe's payment intent. */
    stripePaymentIntentId: text('stripe_payment_intent_id').unique(),
    // API Pix (PIX_PROVIDER=api-pix): the PSP charge of this invoice and how it was confirmed.
    pixTxid: text('pix_txid').unique(),
    pixCopiaECola: text('pix_copia_e_cola'),
    pixLocation: text('pix_location'),
    pixChargeStatus: text('pix_charge_status').$type<PixChargeStatus>(),
    pixChargeCreatedAt: timestamp('pix_charge_created_at', { withTimezone: true }),
    pixChargeExpiresAt: timestamp('pix_charge_expires_at', { withTimezone: true }),
    pixChargeAttempts: integer('pix_charge_attempts').notNull().default(0),
    pixConfirmedVia: text('pix_confirmed_via').$type<PixConfirmedVia>(),
    pixPayerName: text('pix_payer_name'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The renewal pass's "no renewal for this period yet" probe (migration 0021).
    index('payments_renewal_due_idx').on(t.subscriptionId, t.dueDate).where(sql`${t.type} = 'renewal'`),
    check('payments_amount_check', sql`${t.amountCents} > 0`),
    check('payments_currency_check', sql`${t.currency} = 'BRL'`),
    check('payments_pix_reference_check', sql`${t.pixReference} is null or ${t.pixReference} ~ '^[A-Za-z0-9]{1,25}$'`),
    check('payments_pix_txid_check', sql`${t.pixTxid} is null or ${t.pixTxid} ~ '^[A-Za-z0-9]{26,35}$'`),
    check(
      'payments_pix_charge_status_check',
      sql`${t.pixChargeStatus} is null or ${t.pixChargeStatus} in ('active', 'fallback', 'paid', 'expired', 'removed')`,
    ),
    check(
      'payments_pix_confirmed_via_check',
      sql`${t.pixConfirmedVia} is null or ${t.pixConfirmedVia} in ('api_pix', 'manual')`,
    ),
    check('payments_e2e_check', sql`${t.pixEndToEndId} is null or ${t.pixEndToEndId} ~ '^[A-Za-z0-9]{32}$'`),
    index('payments_subscription_id_idx').on(t.subscriptionId, t.createdAt),
    index('payments_status_idx').on(t.status, t.dueDate),
    index('payments_created_at_idx').on(t.createdAt, t.id),
    index('payments_status_created_at_idx').on(t.status, t.createdAt, t.id),
    index('payments_method_created_at_idx').on(t.paymentMethod, t.createdAt, t.id),
    index('payments_due_date_idx').on(t.dueDate, t.id),
    index('payments_amount_idx').on(t.amountCents, t.id),
    // Admin home: open invoices counted and summed from the index (migration 0017).
    index('payments_open_idx').on(t.status, t.dueDate).where(sql`${t.status} in ('pending', 'pending_pix', 'review')`),
    // Deleting a plan checks its upgrade invoices (and the foreign key does too): few rows have a target plan.
    index('payments_target_plan_id_idx').on(t.targetPlanId).where(sql`${t.targetPlanId} is not null`),
    index('payments_pix_charge_status_idx')
      .on(t.pixChargeStatus, t.pixChargeExpiresAt)
      .where(sql`${t.pixChargeStatus} in ('active', 'fallback')`),
    // One open upgrade invoice per subscription, whatever the concurrency.
    uniqueIndex('payments_one_open_upgrade_idx')
      .on(t.subscriptionId)
      .where(sql`${t.type} = 'upgrade' and ${t.status} in ('pending', 'pending_pix')`),
  ],
)
export type PaymentRow = typeof payments.$inferSelect
export type NewPaymentRow = typeof payments.$inferInsert

export const pixSettings = pgTable(
  'pix_settings',
  {
    id: smallint('id').primaryKey().default(1),
    pixKey: text('pix_key').notNull().default(''),
    beneficiaryName: text('beneficiary_name').notNull().default(''),
    beneficiaryCity: text('beneficiary_city').notNull().default(''),
    description: text('description'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('pix_settings_single_row', sql`${t.id} = 1`),
    check('pix_settings_name_len', sql`char_length(${t.beneficiaryName}) <= ${sql.raw(String(pixBeneficiaryNameMax))}`),
    check('pix_settings_city_len', sql`char_length(${t.beneficiaryCity}) <= ${sql.raw(String(pixBeneficiaryCityMax))}`),
  ],
)
export type PixSettingsRow = typeof pixSettings.$inferSelect

/** Refunds (devoluções) of PIX received through the API Pix; `refundId` is the id sent to the PSP. */
export const pixRefunds = pgTable(
  'pix_refunds',
  {
    id: text('id').primaryKey(),
    paymentId: text('payment_id')
      .notNull()
      .references(() => payments.id, { onDelete: 'restrict' }),
    refundId: text('refund_id').notNull().unique(),
    endToEndId: text('end_to_end_id').notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    reason: text('reason').notNull(),
    status: text('status').$type<'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO'>().notNull(),
    rtrId: text('rtr_id'),
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('pix_refunds_amount_check', sql`${t.amountCents} > 0`),
    check('pix_refunds_status_check', sql`${t.status} in ('EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO')`),
    index('pix_refunds_payment_id_idx').on(t.paymentId, t.createdAt),
  ],
)
export type PixRefundRow = typeof pixRefunds.$inferSelect
export type NewPixRefundRow = typeof pixRefunds.$inferInsert
