import { useQuery } from '@tanstack/react-query'
import { codeStatusSchema } from '@/domain/contracts/whatsapp'
import { api } from '@/web/lib/api'

/** How often the sign-up page asks whether the code arrived, and for how long (Meta reports within seconds). */
const pollEveryMs = 3_000
const pollForMs = 2 * 60_000

/**
 * The delivery of the last code sent to `phoneNumber` (GET /api/whatsapp/code-status), asked every few seconds
 * while it is pending; it stops once Meta reported it delivered, read or failed, or after two minutes.
 */
export function useCodeDeliveryStatus(phoneNumber: string, sentAt: number | null) {
  return useQuery({
    queryKey: ['whatsapp-code-status', phoneNumber, sentAt],
    queryFn: () =>
      api.get(`/api/whatsapp/code-status?phone_number=${encodeURIComponent(phoneNumber)}`, codeStatusSchema),
    enabled: sentAt !== null,
    retry: false,
    refetchInterval: (query) => {
      const status = query.state.data?.status
      if (status === 'failed' || status === 'delivered' || status === 'read') return false
      if (sentAt === null || Date.now() - sentAt > pollForMs) return false
      return pollEveryMs
    },
  })
}
