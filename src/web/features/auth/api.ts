import { useMutation } from '@tanstack/react-query'
import { okSchema, type SignUpInput } from '@/domain/contracts/auth'
import { api } from '@/web/lib/api'
import { toasts } from '@/web/lib/toasts'
import { authTexts } from './sign-in-api'

// Sign-in, its second step and the confirmation e-mail are in sign-in-api.ts (no zod on /login).
export { authTexts }

export function useSignUp() {
  return useMutation({
    mutationFn: (input: SignUpInput) => api.post('/api/auth/sign-up', input, okSchema),
    meta: { feedback: toasts.signup },
  })
}

export function useForgotPassword() {
  return useMutation({
    mutationFn: (email: string) => api.post('/api/auth/forgot-password', { email }, okSchema),
    meta: { feedback: authTexts.forgotPassword },
  })
}

export function useResetPassword() {
  return useMutation({
    mutationFn: (input: { token: string; newPassword: string }) =>
      api.post('/api/auth/reset-password', input, okSchema),
    // The page explains a dead link and a short password next to the form.
    meta: { feedback: authTexts.resetPassword, inline: ['invalid_token', 'password_too_short', 'validation_failed'] },
  })
}
