// The queries of the rate limits (rate_limits: one counter per key and fixed window). Queries only, taking a `db`
// or `tx`; the rules (windows, limits, the error) are in rate-limit.ts.
import { and, eq, lt, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { rateLimits } from '../../db/schema/platform'

/** Adds one to the key's counter of the window (an upsert, atomic across instances); answers the new count. */
export async function incrementWindow(db: Executor, key: string, windowStart: Date): Promise<number> {
  const [row] = await db
    .insert(rateLimits)
    .values({ key, windowStart, count: 1 })
    .onConflictDoUpdate({
      target: [rateLimits.key, rateLimits.windowStart],
      set: { count: sql`${rateLimits.count} + 1` },
    })
    .returning({ count: rateLimits.count })
  return row?.count ?? 0
}

/** The key's counter of the window; 0 when nothing was counted in it. */
export async function windowCount(db: Executor, key: string, windowStart: Date): Promise<number> {
  const [row] = await db
    .select({ count: rateLimits.count })
    .from(rateLimits)
    .where(and(eq(rateLimits.key, key), eq(rateLimits.windowStart, windowStart)))
  return row?.count ?? 0
}

/** Removes the windows that started before `before`. */
export async function deleteWindowsBefore(db: Executor, before: Date): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, before))
}
