// Plans: create, edit (the id is fixed once created), delete while unused, list all (inactive ones included).
// A plan that subscriptions or payments reference cannot be deleted; deactivating it hides it from /plans instead.
// Delete locks the plan row: a checkout inserting a subscription for it takes a key-share lock on the same row,
// so either the checkout waits and then fails on the foreign key, or the delete sees its subscription.
import type { Plan, planInputSchema } from '../../../domain/contracts/plans'
import { DomainError } from '../../../domain/errors'
import type { z } from 'zod'
import { type Actor, audit } from '../audit/audit'
import { plansChanged } from '../plans/plans-cache'
import { toPlan } from '../plans/plans.service'
import type { AdminDeps } from './admin-subscriptions.service'
import { deletePlanRow, insertPlanRow, isPlanReferenced, lockPlanRow, updatePlanRow } from './admin.repo'

export type PlanInputParsed = z.infer<typeof planInputSchema>

function sqlState(error: unknown): unknown {
  return (error as { cause?: { code?: unknown } } | null)?.cause?.code ?? (error as { code?: unknown } | null)?.code
}

function values(input: PlanInputParsed) {
  return {
    name: input.name,
    description: input.description,
    priceCents: input.priceCents,
    features: input.features,
    boxQuantity: input.boxQuantity,
    agentQuantity: input.agentQuantity,
    popular: input.popular,
    active: input.active,
  }
}

export async function createPlan(deps: AdminDeps, actor: Actor, input: PlanInputParsed): Promise<Plan> {
  const now = deps.now()
  try {
    const created = await deps.db.transaction(async (tx) => {
      const created = await insertPlanRow(tx, { id: input.id, ...values(input), createdAt: now, updatedAt: now })
      if (!created) throw new DomainError('plan_exists')
      const plan = toPlan(created)
      await audit(tx, actor, 'plan.create', 'plan', plan.id, { after: plan })
      return plan
    })
    plansChanged(deps.db)
    return created
  } catch (error) {
    if (sqlState(error) === '23505') throw new DomainError('plan_exists', undefined, { cause: error })
    throw error
  }
}

export async function updatePlan(deps: AdminDeps, actor: Actor, id: string, input: PlanInputParsed): Promise<Plan> {
  if (input.id !== id) throw new DomainError('validation_failed', 'O ID do plano não pode ser alterado.')
  const plan = await deps.db.transaction(async (tx) => {
    const locked = await lockPlanRow(tx, id)
    if (!locked) throw new DomainError('plan_not_found')
    const updated = await updatePlanRow(tx, id, { ...values(input), updatedAt: deps.now() })
    const plan = toPlan(updated)
    await audit(tx, actor, 'plan.update', 'plan', id, { before: toPlan(locked), after: plan })
    return plan
  })
  plansChanged(deps.db)
  return plan
}

export async function deletePlan(deps: AdminDeps, actor: Actor, id: string): Promise<void> {
  try {
    await deps.db.transaction(async (tx) => {
      const locked = await lockPlanRow(tx, id)
      if (!locked) throw new DomainError('plan_not_found')
      if (await isPlanReferenced(tx, id)) throw new DomainError('plan_in_use')
      await deletePlanRow(tx, id)
      await audit(tx, actor, 'plan.delete', 'plan', id, { before: toPlan(locked) })
    })
    plansChanged(deps.db)
  } catch (error) {
    // 23503: a row that references the plan appeared anyway (the foreign key is the last line of defence).
    if (sqlState(error) === '23503') throw new DomainError('plan_in_use', undefined, { cause: error })
    throw error
  }
}
