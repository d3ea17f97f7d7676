import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'
import { okSchema } from '@/domain/contracts/auth'
import { type Plan, type PlanInput, planSchema } from '@/domain/contracts/plans'
import { api } from '@/web/lib/api'
import { toasts } from '@/web/lib/toasts'

/** Every plan, inactive ones included. Under ['plans'] with the public list, so saving refreshes both. */
export function adminPlansQuery() {
  return queryOptions({
    queryKey: ['plans', 'admin'],
    queryFn: () => api.get('/api/admin/plans', z.array(planSchema)),
  })
}

const planPath = (id: string) => `/api/admin/plans/${encodeURIComponent(id)}`

export function useSavePlan() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ input, editing }: { input: PlanInput; editing: boolean }): Promise<Plan> =>
      editing ? api.put(planPath(input.id), input, planSchema) : api.post('/api/admin/plans', input, planSchema),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['plans'] }),
        // Subscriptions and payments show plan names.
        queryClient.invalidateQueries({ queryKey: ['admin'] }),
      ]),
    meta: { feedback: toasts.planSave },
  })
}

/** A plan with subscriptions cannot be deleted: the dialog then offers to deactivate it. */
export function useDeletePlan() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => api.delete(planPath(id), okSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['plans'] }),
    meta: { feedback: toasts.planDelete },
  })
}

/** Deactivating keeps a plan (and its subscriptions) but hides it from the plans page. */
export function useSetPlanActive() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ plan, active }: { plan: Plan; active: boolean }) =>
      api.put(planPath(plan.id), { ...planToInput(plan), active }, planSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['plans'] }),
    meta: { feedback: toasts.planSave },
  })
}

export function planToInput(plan: Plan): PlanInput {
  return {
    id: plan.id,
    name: plan.name,
    description: plan.description,
    priceCents: plan.priceCents,
    features: plan.features,
    boxQuantity: plan.boxQuantity,
    agentQuantity: plan.agentQuantity,
    popular: plan.popular,
    active: plan.active,
  }
}
