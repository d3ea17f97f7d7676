import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { toast } from 'sonner'
import { adminInsightsSchema } from '@/domain/contracts/insights'
import { platformEventPageSchema, platformEventRetrySchema } from '@/domain/contracts/provisioning'
import { api } from '@/web/lib/api'

export const adminInsightsUrl = '/api/admin/insights'

export const adminInsightsQuery = queryOptions({
  queryKey: ['admin', 'insights'],
  queryFn: () => api.get(adminInsightsUrl, adminInsightsSchema),
  refetchInterval: 60_000,
})

/** GET /api/admin/platform-events (the admin home's 'Entregas de provisionamento com falha' links to status=failed). */
export function platformEventsQuery(apiQuery: string) {
  return queryOptions({
    queryKey: ['admin', 'platform-events', apiQuery],
    queryFn: () => api.get(`/api/admin/platform-events?${apiQuery}`, platformEventPageSchema),
    placeholderData: keepPreviousData,
  })
}

/** 'Reenviar agora': the delivery becomes due at once; the next delivery pass sends it. */
export function useRetryPlatformEvent() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) =>
      api.post(`/api/admin/platform-events/${encodeURIComponent(id)}/retry`, {}, platformEventRetrySchema),
    onSuccess: async ({ requeued }) => {
      if (requeued) toast.success('Entrega reagendada: será reenviada na próxima passagem de cobrança.')
      else toast.info('Esta entrega já estava na fila (ou não está mais pendente).')
      await queryClient.invalidateQueries({ queryKey: ['admin'] })
    },
  })
}
