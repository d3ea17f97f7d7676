// Plans: create, edit (the id is fixed once created), delete while unused, list all (inactive ones included).
// A plan that subscriptions or payments reference cannot be deleted; deactivating it hides it from /plans instead.
// Delete locks the plan row: a checkout inserting a subscription for it takes a key-share lock on the same row,
// so either the checkout waits and then fails on the foreign key, or the delete sees its subscription.
import { eq } from 'drizzle-orm'
import type { Plan, planInputSchema } from '../../../domain/contracts/plans'
import { DomainError } from '../../../domain/errors'
import type { z } from 'zod'
import { payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import { type Actor, audit } from '../audit/audit'
import { plansChanged } from '../plans/plans-cache'
import { toPlan } from '../plans/plans.service'
import type { AdminDeps } from './admin-subscriptions.service'

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
      const [created] = await tx
        .insert(plans)
        .values({ id: input.id, ...values(input), createdAt: now, updatedAt: now })
        .onConflictDoNothing({ target: plans.id })
        .returning()
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
    const [locked] = await tx.select().from(plans).where(eq(plans.id, id)).for('update')
    if (!locked) throw new DomainError('plan_not_found')
    const [updated] = await tx
      .update(plans)
      .set({ ...values(input), updatedAt: deps.now() })
      .where(eq(plans.id, id))
      .returning()
    if (!updated) throw new Error(`plan ${id} vanished while locked`)
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
      const [locked] = await tx.select().from(plans).where(eq(plans.id, id)).for('update')
      if (!locked) throw new DomainError('plan_not_found')
      const [subscription] = await tx
        .select({ id: subscriptions.id })
        .from(subscriptions)
        .where(eq(subscriptions.planId, id))
        .limit(1)
      const [payment] = await tx
        .select({ id: payments.id })
        .from(payments)
        .where(eq(payments.targetPlanId, id))
        .limit(1)
      if (subscription || payment) throw new DomainError('plan_in_use')
      await tx.delete(plans).where(eq(plans.id, id))
      await audit(tx, actor, 'plan.delete', 'plan', id, { before: toPlan(locked) })
    })
    plansChanged(deps.db)
  } catch (error) {
    // 23503: a row that references the plan appeared anyway (the foreign key is the last line of defence).
    if (sqlState(error) === '23503') throw new DomainError('plan_in_use', undefined, { cause: error })
    throw error
  }
}
