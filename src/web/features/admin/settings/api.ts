import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { z } from 'zod'
import {
  adminPixSettingsResultSchema,
  cardInfoSchema,
  type pixSettingsInputSchema,
} from '../../../../domain/contracts/admin'
import { api } from '../../../lib/api'
import { toasts } from '../../../lib/toasts'

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
    mutationFn: (input: PixSettingsInput) => api.put('/api/admin/pix-settings', input, adminPixSettingsResultSchema),
    onSuccess: (data) => queryClient.setQueryData(pixSettingsQuery().queryKey, data),
    meta: { feedback: toasts.pixSettings },
  })
}
