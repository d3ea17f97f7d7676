import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { z } from 'zod'
import { adminPixSettingsResultSchema, cardInfoSchema, type pixSettingsInputSchema } from '@/domain/contracts/admin'
import { api } from '@/web/lib/api'
import { toasts } from '@/web/lib/toasts'
import { withReauthentication } from '@/web/shared/auth/reauth'

export type PixSettingsInput = z.input<typeof pixSettingsInputSchema>

export function pixSettingsQuery() {
  return queryOptions({
    queryKey: ['admin', 'pix-settings'],
    queryFn: () => api.get('/api/admin/pix-settings', adminPixSettingsResultSchema),
  })
}

export function cardInfoQuery() {
  return queryOptions({
    queryKey: ['admin', 'card-info'],
    queryFn: () => api.get('/api/admin/card-info', cardInfoSchema),
    staleTime: Number.POSITIVE_INFINITY,
  })
}

export function useSavePixSettings() {
  const queryClient = useQueryClient()
  return useMutation({
    // A new key or beneficiary needs the password again within 5 minutes: asked for in a dialog, then repeated.
    mutationFn: (input: PixSettingsInput) =>
      withReauthentication(() => api.put('/api/admin/pix-settings', input, adminPixSettingsResultSchema)),
    onSuccess: (data) => queryClient.setQueryData(pixSettingsQuery().queryKey, data),
    meta: { feedback: toasts.pixSettings },
  })
}
