import { sql } from 'drizzle-orm'
import { bigint, boolean, check, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

export const plans = pgTable(
  'plans',
  {
    id: text('id').primaryKey(), // typed by the admin, e.g. plan_basic
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    priceCents: bigint('price_cents', { mode: 'number' }).notNull(),
    currency: text('currency').notNull().default('BRL'),
    features: jsonb('features').$type<string[]>().notNull().default([]),
    boxQuantity: integer('box_quantity').notNull().default(1),
    agentQuantity: integer('agent_quantity').notNull().default(1),
    popular: boolean('popular').notNull().default(false),
    active: boolean('active').notNull().default(true), // inactive plans are hidden from /plans but keep their subscriptions
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('plans_id_check', sql`${t.id} ~ '^[a-z0-9_]+$'`),
    check('plans_price_check', sql`${t.priceCents} > 0`),
    check('plans_currency_check', sql`${t.currency} = 'BRL'`),
    check('plans_quantities_check', sql`${t.boxQuantity} >= 1 and ${t.agentQuantity} >= 1`),
  ],
)
export type PlanRow = typeof plans.$inferSelect
