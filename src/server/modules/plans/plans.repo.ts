import { asc, eq } from 'drizzle-orm'
import type { Plan } from '../../../domain/contracts/plans'
import type { Executor } from '../../db/client'
import { plans } from '../../db/schema/plans'
import type { PlanRow } from '../../db/schema/plans'

export function toPlan(row: PlanRow): Plan {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    priceCents: row.priceCents,
    currency: 'BRL',
    features: row.features,
    boxQuantity: row.boxQuantity,
    agentQuantity: row.agentQuantity,
    popular: row.popular,
    active: row.active,
  }
}

/** Plans ordered by price ascending (then name, so equal prices keep a stable order). */
export async function listPlans(db: Executor, options: { includeInactive?: boolean } = {}): Promise<Plan[]> {
  const rows = await db
    .select()
    .from(plans)
    .where(options.includeInactive ? undefined : eq(plans.active, true))
    .orderBy(asc(plans.priceCents), asc(plans.name))
  return rows.map(toPlan)
}

export async function findPlan(db: Executor, id: string): Promise<Plan | null> {
  const [row] = await db.select().from(plans).where(eq(plans.id, id)).limit(1)
  return row ? toPlan(row) : null
}
