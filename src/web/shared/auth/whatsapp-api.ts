import { useMutation } from '@tanstack/react-query'
import { z } from 'zod'
import { okSchema } from '@/domain/contracts/auth'
import { api } from '@/web/lib/api'
import { toasts } from '@/web/lib/toasts'

export function useSendWhatsAppCode() {
  return useMutation({
    mutationFn: (phoneNumber: string) => api.post('/api/whatsapp/send-code', { phone_number: phoneNumber }, okSchema),
    meta: { feedback: toasts.codeSend },
  })
}

export function useVerifyWhatsAppCode() {
  return useMutation({
    mutationFn: (input: { phoneNumber: string; code: string }) =>
      api.post(
        '/api/whatsapp/verify-code',
        { phone_number: input.phoneNumber, code: input.code },
        z.object({ success: z.literal(true) }),
      ),
    meta: { feedback: toasts.codeVerify },
  })
}
