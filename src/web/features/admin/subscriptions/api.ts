import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { toast } from 'sonner'
import type { z } from 'zod'
import {
  adminSubscriptionPageSchema,
  adminSubscriptionSchema,
  adminSubscriptionSaveResultSchema,
  type adminSubscriptionInputSchema,
  adminUserPageSchema,
  settlementPreviewSchema,
} from '@/domain/contracts/admin'
import { api } from '@/web/lib/api'
import { totalExactShape } from '@/web/features/admin/shared/page-schema'
import { toasts } from '@/web/lib/toasts'

const pageSchema = adminSubscriptionPageSchema.extend(totalExactShape)
export type AdminSubscriptionInput = z.input<typeof adminSubscriptionInputSchema>

export function adminSubscriptionsQuery(apiQuery: string) {
  return queryOptions({
    queryKey: ['admin', 'subscriptions', apiQuery],
    queryFn: () => api.get(`/api/admin/subscriptions?${apiQuery}`, pageSchema),
    placeholderData: keepPreviousData,
  })
}

/** The customer picker's matches: GET /api/admin/users?q= (any role: an admin may subscribe too). */
export function customerOptionsQuery(q: string) {
  const query = new URLSearchParams({ q, pageSize: '8', sort: 'name', dir: 'asc' })
  return queryOptions({
    queryKey: ['admin', 'users', 'options', q],
    queryFn: () => api.get(`/api/admin/users?${query.toString()}`, adminUserPageSchema),
    placeholderData: keepPreviousData,
  })
}

/** What saving the subscription as active would settle (its pending_pix invoices) and their total. */
export function settlementPreviewQuery(id: string) {
  return queryOptions({
    queryKey: ['admin', 'subscriptions', id, 'settlement-preview'],
    queryFn: () =>
      api.get(`/api/admin/subscriptions/${encodeURIComponent(id)}/settlement-preview`, settlementPreviewSchema),
  })
}

export function useSaveSubscription() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, input }: { id: string | null; input: AdminSubscriptionInput }) =>
      id
        ? api.put(`/api/admin/subscriptions/${encodeURIComponent(id)}`, input, adminSubscriptionSaveResultSchema)
        : api.post('/api/admin/subscriptions', input, adminSubscriptionSaveResultSchema),
    onSuccess: (result) => {
      // Saved, but the pending PIX invoices were not settled: say so instead of a plain success.
      if (result.warning) toast.warning(result.warning, { description: 'Confira as faturas pendentes em Pagamentos.' })
      else toast.success(toasts.subscriptionSave.success)
      // Saving as active settles invoices, and pending_pix issues one: payments change too.
      return queryClient.invalidateQueries({ queryKey: ['admin'] })
    },
    meta: { feedback: { error: toasts.subscriptionSave.error } },
  })
}

export function useAdminCancelSubscription() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) =>
      api.post(`/api/admin/subscriptions/${encodeURIComponent(id)}/cancel`, {}, adminSubscriptionSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin'] }),
    meta: { feedback: toasts.adminCancel },
  })
}
