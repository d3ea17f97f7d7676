import { queryOptions, useQuery } from '@tanstack/react-query'
import type { Plan } from '@/domain/contracts/plans'
import { api } from '@/web/lib/api'

/**
 * The plans on sale, cheapest first (the server's order): the one query for GET /api/plans, used by the public plans
 * page and the dashboard. Under ['plans'] so saving a plan refreshes it.
 */
export function publicPlansQuery() {
  return queryOptions({
    queryKey: ['plans', 'public'],
    // Embedded in the prerendered /plans; our own API's answer, read without zod (public pages do not ship it).
    queryFn: () => api.public.get<Plan[]>('/api/plans'),
    // A visitor waiting for prices gets the retry button quickly instead of a long spinner.
    retry: 1,
  })
}

export function usePublicPlans() {
  return useQuery(publicPlansQuery())
}
