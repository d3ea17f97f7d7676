import { lt, sql } from 'drizzle-orm'
import { DomainError, type DomainErrorCode } from '../../../domain/errors'
import type { Executor } from '../../db/client'
import { rateLimits } from '../../db/schema/platform'

export type RateRule = { limit: number; windowMs: number }

/** Named rules, so the README and the code agree on one table. */
export const rateRules = {
  signInPerIp: { limit: 30, windowMs: 15 * 60_000 },
  signInPerAccount: { limit: 10, windowMs: 15 * 60_000 },
  signUpPerIp: { limit: 10, windowMs: 60 * 60_000 },
  codeSendPerIp: { limit: 10, windowMs: 60 * 60_000 },
  codeVerifyPerIp: { limit: 30, windowMs: 60 * 60_000 },
  passwordResetPerIp: { limit: 10, windowMs: 60 * 60_000 },
  passwordResetPerAccount: { limit: 3, windowMs: 60 * 60_000 },
  resendVerificationPerIp: { limit: 10, windowMs: 60 * 60_000 },
} satisfies Record<string, RateRule>

/**
 * Counts one hit in a fixed window shared by every API instance (the counter lives in the database,
 * incremented atomically by an upsert). Throws 'rate_limited' (or the given code) past the limit.
 */
export async function hitRateLimit(
  db: Executor,
  key: string,
  rule: RateRule,
  now: Date,
  code: DomainErrorCode = 'rate_limited',
): Promise<void> {
  const windowStart = new Date(Math.floor(now.getTime() / rule.windowMs) * rule.windowMs)
  const [row] = await db
    .insert(rateLimits)
    .values({ key, windowStart, count: 1 })
    .onConflictDoUpdate({
      target: [rateLimits.key, rateLimits.windowStart],
      set: { count: sql`${rateLimits.count} + 1` },
    })
    .returning({ count: rateLimits.count })
  if ((row?.count ?? 0) > rule.limit) throw new DomainError(code)
}

/** Old windows are useless; the periodic maintenance pass removes them. */
export async function pruneRateLimits(db: Executor, now: Date): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, new Date(now.getTime() - 24 * 60 * 60_000)))
}
