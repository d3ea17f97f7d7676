import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { z } from 'zod'
import { type profileUpdateInputSchema, profileSchema } from '@/domain/contracts/billing'
import { api } from '@/web/lib/api'
import { toasts } from '@/web/lib/toasts'

export function profileQuery() {
  return queryOptions({
    queryKey: ['profile'],
    queryFn: () => api.get('/api/profile', profileSchema),
  })
}

export type ProfileUpdateInput = z.input<typeof profileUpdateInputSchema>

// The answers are not read: the profile is fetched again.
/** The session carries the name and number too (sidebar, e-mail): refresh both after a change. */
function useRefreshProfile() {
  const queryClient = useQueryClient()
  return async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: profileQuery().queryKey }),
      queryClient.invalidateQueries({ queryKey: ['session'] }),
    ])
  }
}

export function useUpdateProfile() {
  const refresh = useRefreshProfile()
  return useMutation({
    mutationFn: (input: ProfileUpdateInput) => api.patch('/api/profile', input, profileSchema),
    onSuccess: () => refresh(),
    meta: { feedback: toasts.profile },
  })
}

/** The new number must have been verified by code (POST /api/whatsapp/verify-code) just before. */
export function useChangeWhatsApp() {
  const refresh = useRefreshProfile()
  return useMutation({
    mutationFn: (whatsappNumber: string) =>
      api.post('/api/profile/whatsapp', { whatsapp_number: whatsappNumber }, profileSchema),
    onSuccess: () => refresh(),
    meta: { feedback: toasts.whatsappChange },
  })
}
