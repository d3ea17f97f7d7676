// The sign-in's requests, without zod: /login is a public page on the performance budget (README, web figures), so
// its answers are typed, not parsed (api.public: our own server validates them against the same contracts on the way
// out), and its fields are checked by signInFieldErrors below instead of a zod schema and react-hook-form.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { SessionUser } from '@/domain/contracts/auth'
import { errorText } from '@/domain/errors'
import { api } from '@/web/lib/api'
import { sessionQuery } from '@/web/lib/session'
import { toasts } from '@/web/lib/toasts'

/** Texts of the account pages that the spec does not have: ours, in the same tone. */
export const authTexts = {
  resendVerification: { error: 'Erro ao reenviar e-mail', success: 'E-mail de confirmação reenviado.' },
  forgotPassword: { error: 'Erro ao enviar link' },
  resetPassword: { error: 'Erro ao redefinir senha', success: 'Senha alterada! Entre com a nova senha.' },
} as const

type SignInResult = { user: null; twoFactorRequired: true } | { user: SessionUser | null }

/**
 * Signs in and puts the user in the session cache, so guarded pages open without another round trip. With two-factor
 * on, the answer is `{ user: null, twoFactorRequired: true }`: the page asks for the code (useVerifyTwoFactor).
 */
export function useSignIn() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { email: string; password: string }) =>
      api.public.post<SignInResult>('/api/auth/sign-in', input),
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
    mutationFn: async (code: string) =>
      (await api.public.post<{ user: SessionUser | null }>('/api/auth/two-factor/verify', { code })).user,
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
    mutationFn: (email: string) => api.public.post<{ ok: true }>('/api/auth/resend-verification', { email }),
    meta: { feedback: authTexts.resendVerification },
  })
}

/** The e-mail pattern of zod's z.email() (emailSchema in domain/contracts/auth.ts; sign-in-api.test.ts compares). */
const emailPattern =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/

/** The e-mail as emailSchema reads it (trimmed, lower-cased), or null when emailSchema would refuse it. */
export function normalizeEmail(value: string): string | null {
  const email = value.trim()
  if (email.length > 254) return null
  const lower = email.toLowerCase()
  return emailPattern.test(lower) ? lower : null
}

export type SignInFields = { email: string; password: string }

/** The sign-in form's checks (what its zod schema said): an error per field, empty when the form can go. */
export function signInFieldErrors(values: SignInFields): Partial<Record<keyof SignInFields, string>> {
  const errors: Partial<Record<keyof SignInFields, string>> = {}
  if (!values.email.trim()) errors.email = 'Informe seu e-mail.'
  else if (normalizeEmail(values.email) === null) errors.email = errorText.email_invalid
  if (!values.password) errors.password = 'Informe sua senha.'
  return errors
}
