// Plans as the other modules use them: the contract shape (toPlan) and the lookups. Queries: plans.repo.ts.
import type { Plan } from '../../../domain/contracts/plans'
import type { Executor } from '../../db/client'
import type { PlanRow } from '../../db/schema/plans'
import { findPlanRow, listPlanRows } from './plans.repo'

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
  return (await listPlanRows(db, options)).map(toPlan)
}

export async function findPlan(db: Executor, id: string): Promise<Plan | null> {
  const row = await findPlanRow(db, id)
  return row ? toPlan(row) : null
}
