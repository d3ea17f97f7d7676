import { sql } from 'drizzle-orm'
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import type { CobrStatus, RecStatus } from '../../../domain/pix-automatico'
import { payments, subscriptions } from './billing'

/** One change of a PSP object as the app saw it (re-read from the PSP), with the source of the re-read. */
export type StatusChange = { status: string; at: string; source: string; detail?: string }
/** The attempts of a cobr as last read (tentativas[]): date, type, status and rejection code. */
export type CobrAttempt = { date: string; type: string; status: string; code?: string }

/** A recurrence (`rec`) at the PSP: the customer's authorisation of monthly debits for one subscription. */
export const pixRecurrences = pgTable(
  'pix_recurrences',
  {
    id: text('id').primaryKey(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'restrict' }),
    idRec: text('id_rec').notNull().unique(),
    status: text('status').$type<RecStatus>().notNull(),
    planId: text('plan_id').notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    retryPolicy: text('retry_policy').$type<'NAO_PERMITE' | 'PERMITE_3R_7D'>().notNull(),
    /** The invoice paid as the Journey 3 immediate charge (first invoice, or the prorated upgrade invoice). */
    firstPaymentId: text('first_payment_id').references(() => payments.id, { onDelete: 'restrict' }),
    journeyTxid: text('journey_txid'),
    copiaECola: text('copia_e_cola'),
    payerTaxId: text('payer_tax_id').notNull(),
    /** encerramento.cancelamento.solicitante (USUARIO_PAGADOR = revoked in the bank app). */
    cancelledBy: text('cancelled_by'),
    endCode: text('end_code'),
    history: jsonb('history').$type<StatusChange[]>().notNull().default([]),
    approvedAt: timestamp('approved_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check(
      'pix_recurrences_status_check',
      sql`${t.status} in ('CRIADA', 'APROVADA', 'REJEITADA', 'CANCELADA', 'EXPIRADA')`,
    ),
    check('pix_recurrences_amount_check', sql`${t.amountCents} > 0`),
    index('pix_recurrences_subscription_idx').on(t.subscriptionId, t.createdAt),
    uniqueIndex('pix_recurrences_one_pending_idx').on(t.subscriptionId).where(sql`${t.status} = 'CRIADA'`),
  ],
)

/** 'PENDENTE' = recorded, not yet accepted by the PSP (the send is retried); the others are the PSP's. */
export type RecurringChargeStatus = 'PENDENTE' | CobrStatus

/** A recurring charge (`cobr`): one per subscription and cycle, for the cycle's renewal invoice. */
export const pixRecurringCharges = pgTable(
  'pix_recurring_charges',
  {
    id: text('id').primaryKey(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'restrict' }),
    recurrenceId: text('recurrence_id')
      .notNull()
      .references(() => pixRecurrences.id, { onDelete: 'restrict' }),
    paymentId: text('payment_id')
      .notNull()
      .unique()
      .references(() => payments.id, { onDelete: 'restrict' }),
    txid: text('txid').notNull().unique(),
    dueDate: timestamp('due_date', { withTimezone: true }).notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    status: text('status').$type<RecurringChargeStatus>().notNull(),
    retryDates: jsonb('retry_dates').$type<string[]>().notNull().default([]),
    attempts: jsonb('attempts').$type<CobrAttempt[]>().notNull().default([]),
    rejectCode: text('reject_code'),
    history: jsonb('history').$type<StatusChange[]>().notNull().default([]),
    sendAttempts: integer('send_attempts').notNull().default(0),
    /** When the cycle fell back to a normal PIX invoice (all attempts failed). */
    fallbackAt: timestamp('fallback_at', { withTimezone: true }),
    closedAt: timestamp('closed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check(
      'pix_recurring_charges_status_check',
      sql`${t.status} in ('PENDENTE', 'CRIADA', 'ATIVA', 'CONCLUIDA', 'REJEITADA', 'EXPIRADA', 'CANCELADA')`,
    ),
    uniqueIndex('pix_recurring_charges_one_per_cycle_idx').on(t.subscriptionId, t.dueDate),
    index('pix_recurring_charges_open_idx')
      .on(t.status, t.dueDate)
      .where(sql`${t.status} in ('PENDENTE', 'CRIADA', 'ATIVA')`),
  ],
)
