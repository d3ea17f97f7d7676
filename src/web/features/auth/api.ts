import { useMutation, useQueryClient } from '@tanstack/react-query'
import {
  okSchema,
  type SignInInput,
  type SignUpInput,
  sessionSchema,
  signInResultSchema,
} from '@/domain/contracts/auth'
import { api } from '@/web/lib/api'
import { toasts } from '@/web/lib/toasts'
import { sessionQuery } from '@/web/lib/session'

/** Texts of the account pages that the spec does not have: ours, in the same tone. */
export const authTexts = {
  resendVerification: { error: 'Erro ao reenviar e-mail', success: 'E-mail de confirmação reenviado.' },
  forgotPassword: { error: 'Erro ao enviar link' },
  resetPassword: { error: 'Erro ao redefinir senha', success: 'Senha alterada! Entre com a nova senha.' },
} as const

export function useSignUp() {
  return useMutation({
    mutationFn: (input: SignUpInput) => api.post('/api/auth/sign-up', input, okSchema),
    meta: { feedback: toasts.signup },
  })
}

/**
 * Signs in and puts the user in the session cache, so guarded pages open without another round trip. With two-factor
 * on, the answer is `{ user: null, twoFactorRequired: true }`: the page asks for the code (useVerifyTwoFactor).
 */
export function useSignIn() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: SignInInput) => api.post('/api/auth/sign-in', input, signInResultSchema),
    onSuccess: (result) => {
      if (result.user) queryClient.setQueryData(sessionQuery().queryKey, result.user)
    },
    meta: { feedback: toasts.login },
  })
}

/** The second step of the sign-in: a TOTP code or a recovery code. */
export function useVerifyTwoFactor() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (code: string) => (await api.post('/api/auth/two-factor/verify', { code }, sessionSchema)).user,
    onSuccess: (user) => {
      queryClient.setQueryData(sessionQuery().queryKey, user)
    },
    // The code step shows a wrong or expired code next to the field.
    meta: {
      feedback: toasts.login,
      inline: ['two_factor_invalid', 'two_factor_expired', 'two_factor_locked', 'validation_failed'],
    },
  })
}

export function useResendVerification() {
  return useMutation({
    mutationFn: (email: string) => api.post('/api/auth/resend-verification', { email }, okSchema),
    meta: { feedback: authTexts.resendVerification },
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
