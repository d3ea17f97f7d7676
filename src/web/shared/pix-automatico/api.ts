import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'
import { pixCheckoutResultSchema } from '@/domain/contracts/billing'
import { type AutoRenewal, autoRenewalSchema } from '@/domain/contracts/pix-automatico'
import { api } from '@/web/lib/api'
import { toasts } from '@/web/lib/toasts'

const checkoutSchema = pixCheckoutResultSchema.extend({ automatico: autoRenewalSchema })
export type AutomaticoCheckout = z.infer<typeof checkoutSchema>

export type { AutoRenewal }

const key = (subscriptionId: string) => ['billing', 'pix-automatico', subscriptionId] as const

/** GET /api/subscriptions/:id/pix-automatico: whether it is offered, and the subscription's automatic renewal. */
export function autoRenewalQuery(subscriptionId: string) {
  return queryOptions({
    queryKey: key(subscriptionId),
    queryFn: () =>
      api.get(
        `/api/subscriptions/${subscriptionId}/pix-automatico`,
        z.object({ enabled: z.boolean(), automatico: autoRenewalSchema.nullable() }),
      ),
  })
}

/** POST /api/checkout/pix-automatico: the first invoice and the authorisation, one composite code. */
export function usePixAutomaticoCheckout() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { planId: string; taxId: string }) =>
      api.post(
        '/api/checkout/pix-automatico',
        { plan_id: input.planId, ...(input.taxId.trim() ? { tax_id: input.taxId } : {}) },
        checkoutSchema,
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['billing'] }),
    meta: { feedback: toasts.pixInvoice },
  })
}

export function useAutoRenewalAction(subscriptionId: string, action: 'enable' | 'disable') {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () =>
      api.post(`/api/subscriptions/${subscriptionId}/pix-automatico/${action}`, {}, autoRenewalSchema.nullable()),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: key(subscriptionId) }),
  })
}
