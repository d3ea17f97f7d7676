import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { toast } from 'sonner'
import type { z } from 'zod'
import {
  adminPaymentPageSchema,
  type adminPaymentSchema,
  type confirmPaymentInputSchema,
  confirmPaymentResultSchema,
} from '@/domain/contracts/admin'
import { api } from '@/web/lib/api'
import { totalExactShape } from '@/web/features/admin/shared/page-schema'
import { formatBRL } from '@/web/lib/format'
import { toasts } from '@/web/lib/toasts'

const pageSchema = adminPaymentPageSchema.extend(totalExactShape)
export type AdminPayment = z.infer<typeof adminPaymentSchema>
export type ConfirmPaymentInput = z.input<typeof confirmPaymentInputSchema>

export function adminPaymentsQuery(apiQuery: string) {
  return queryOptions({
    queryKey: ['admin', 'payments', apiQuery],
    queryFn: () => api.get(`/api/admin/payments?${apiQuery}`, pageSchema),
    placeholderData: keepPreviousData,
  })
}

export const flaggedTitle = 'Pagamento enviado para análise'

/** admin-confirm-payment: the amount received must match the invoice, or the payment goes to review. */
export function useConfirmPayment() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, input }: { id: string; input: ConfirmPaymentInput }) =>
      api.post(`/api/admin/payments/${encodeURIComponent(id)}/confirm`, input, confirmPaymentResultSchema),
    onSuccess: ({ payment, flagged }) => {
      if (flagged) {
        const received = payment.amountReceivedCents ?? 0
        toast.warning(flaggedTitle, {
          description: `O valor recebido (${formatBRL(received)}) é diferente do valor da fatura (${formatBRL(payment.amountCents)}). Nada foi ativado: confira o pagamento antes de liberar a assinatura.`,
        })
      } else {
        toast.success(toasts.paymentConfirm.success)
      }
      // The subscription is activated with the payment: the subscriptions list changes too.
      return queryClient.invalidateQueries({ queryKey: ['admin'] })
    },
    meta: { feedback: { error: toasts.paymentConfirm.error } },
  })
}
