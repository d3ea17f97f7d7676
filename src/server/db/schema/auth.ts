import { sql } from 'drizzle-orm'
import { roleIds } from '../../../domain/billing-vocabulary'
import { boolean, check, index, integer, pgTable, smallint, text, timestamp } from 'drizzle-orm/pg-core'

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}

/** The spec's profiles table doubles as better-auth's user model (modelName 'profiles'). */
export const profiles = pgTable(
  'profiles',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    email: text('email').notNull().unique(),
    emailVerified: boolean('email_verified').notNull().default(false),
    image: text('image'),
    companyName: text('company_name').notNull().default(''),
    whatsappNumber: text('whatsapp_number').notNull().default(''),
    roleId: smallint('role_id').notNull().default(roleIds.user), // 1 admin, 2 user (domain/billing-vocabulary.ts)
    // Set when the owner erased the account (LGPD): the row is then an anonymous tombstone kept for the fiscal records.
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    ...timestamps,
    /** better-auth's twoFactor plugin: set once a TOTP enrolment is confirmed with a first code. */
    twoFactorEnabled: boolean('two_factor_enabled').notNull().default(false),
    /** CPF (11 digits) or CNPJ (14), check digits verified: the payer of a PIX Automático recurrence. */
    taxId: text('tax_id'),
  },
  (t) => [
    check('profiles_role_id_check', sql`${t.roleId} in (1, 2)`),
    check('profiles_tax_id_check', sql`${t.taxId} is null or ${t.taxId} ~ '^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$'`),
    check('profiles_whatsapp_check', sql`${t.whatsappNumber} = '' or ${t.whatsappNumber} ~ '^[0-9]{10,15}$'`),
    index('profiles_created_at_idx').on(t.createdAt, t.id),
    index('profiles_role_created_at_idx').on(t.roleId, t.createdAt, t.id),
    // role_id rides along so that "customers by name/e-mail" pages are index-only walks (no heap fetch per skipped row).
    index('profiles_name_idx').on(t.name, t.id, t.roleId),
    index('profiles_email_role_idx').on(t.email, t.id, t.roleId),
    // Admin search (ILIKE '%q%'): one trigram index over the searchable text. The admin repo repeats this expression
    // exactly (profileSearchText in db/paging.ts), or the planner cannot use the index.
    index('profiles_search_trgm_idx').using(
      'gin',
      sql`(${t.name} || ' ' || ${t.email} || ' ' || ${t.companyName} || ' ' || ${t.whatsappNumber}) gin_trgm_ops`,
    ),
  ],
)
export type ProfileRow = typeof profiles.$inferSelect

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    token: text('token').notNull().unique(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    userId: text('user_id')
      .notNull()
      .references(() => profiles.id, { onDelete: 'cascade' }),
    ...timestamps,
    /** Step-up: when this session last proved the password or a TOTP code again (POST /api/auth/reauthenticate). */
    reauthenticatedAt: timestamp('reauthenticated_at', { withTimezone: true }),
  },
  (t) => [index('sessions_user_id_idx').on(t.userId)],
)

export const accounts = pgTable(
  'accounts',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    providerId: text('provider_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => profiles.id, { onDelete: 'cascade' }),
    accessToken: text('access_token'),
    refreshToken: text('refresh_token'),
    idToken: text('id_token'),
    accessTokenExpiresAt: timestamp('access_token_expires_at', { withTimezone: true }),
    refreshTokenExpiresAt: timestamp('refresh_token_expires_at', { withTimezone: true }),
    scope: text('scope'),
    password: text('password'),
    ...timestamps,
  },
  (t) => [index('accounts_user_id_idx').on(t.userId)],
)

export const verifications = pgTable(
  'verifications',
  {
    id: text('id').primaryKey(),
    identifier: text('identifier').notNull(),
    value: text('value').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    ...timestamps,
  },
  (t) => [index('verifications_identifier_idx').on(t.identifier)],
)

/** better-auth's twoFactor plugin (model 'twoFactor'): the encrypted TOTP secret and recovery codes of one user. */
export const twoFactors = pgTable('two_factor', {
  id: text('id').primaryKey(),
  secret: text('secret').notNull(),
  backupCodes: text('backup_codes').notNull(),
  userId: text('user_id')
    .notNull()
    .unique()
    .references(() => profiles.id, { onDelete: 'cascade' }),
  verified: boolean('verified').notNull().default(false),
  failedVerificationCount: integer('failed_verification_count').notNull().default(0),
  lockedUntil: timestamp('locked_until', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})
