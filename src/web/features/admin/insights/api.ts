import { queryOptions } from '@tanstack/react-query'
import { adminInsightsSchema } from '@/domain/contracts/insights'
import { api } from '@/web/lib/api'

export const adminInsightsQuery = queryOptions({
  queryKey: ['admin', 'insights'],
  queryFn: () => api.get('/api/admin/insights', adminInsightsSchema),
  refetchInterval: 60_000,
})
