import { bigserial, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'
import { profiles } from './auth'

/** WhatsApp codes: only a hash of the code is kept. */
export const whatsappVerifications = pgTable(
  'whatsapp_verifications',
  {
    id: text('id').primaryKey(),
    phoneNumber: text('phone_number').notNull(),
    codeHash: text('code_hash').notNull(),
    /** The requester's network (clientKey): send quotas count per number and requester. */
    ip: text('ip'),
    /** SHA-256 of the asking browser's token: the code, and the verification, belong to that browser. */
    browserHash: text('browser_hash'),
    attempts: integer('attempts').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    verifiedAt: timestamp('verified_at', { withTimezone: true }),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
  },
  (t) => [
    index('whatsapp_verifications_phone_idx').on(t.phoneNumber, t.createdAt),
    index('whatsapp_verifications_ip_idx').on(t.ip, t.createdAt),
  ],
)

/** Fixed-window counters shared by every API instance. */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] }), index('rate_limits_window_idx').on(t.windowStart)],
)

/** Each provider event is recorded once; a replay finds its row and changes nothing. */
export const webhookEvents = pgTable('webhook_events', {
  id: text('id').primaryKey(),
  provider: text('provider').notNull(),
  type: text('type').notNull(),
  payload: jsonb('payload').notNull(),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  processedAt: timestamp('processed_at', { withTimezone: true }),
})

export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    actorId: text('actor_id').references(() => profiles.id, { onDelete: 'set null' }),
    action: text('action').notNull(),
    entity: text('entity').notNull(),
    entityId: text('entity_id').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('audit_log_entity_idx').on(t.entity, t.entityId), index('audit_log_created_at_idx').on(t.createdAt)],
)
export type AuditRow = typeof auditLog.$inferSelect
