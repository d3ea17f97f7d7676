import { asc, eq } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { type PlanRow, plans } from '../../db/schema/plans'

/** Plans ordered by price ascending (then name, so equal prices keep a stable order). */
export function listPlanRows(db: Executor, options: { includeInactive?: boolean } = {}): Promise<PlanRow[]> {
  return db
    .select()
    .from(plans)
    .where(options.includeInactive ? undefined : eq(plans.active, true))
    .orderBy(asc(plans.priceCents), asc(plans.name))
}

export async function findPlanRow(db: Executor, id: string): Promise<PlanRow | null> {
  const [row] = await db.select().from(plans).where(eq(plans.id, id)).limit(1)
  return row ?? null
}
