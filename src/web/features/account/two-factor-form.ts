/** The two-factor dialogs' own checks, before anything is sent (the server checks again). */

export const twoFactorTexts = {
  enabled: { success: 'Verificação em duas etapas ativada.', error: 'Erro ao ativar a verificação em duas etapas' },
  disabled: {
    success: 'Verificação em duas etapas desativada.',
    error: 'Erro ao desativar a verificação em duas etapas',
  },
  codes: { error: 'Erro ao gerar códigos de recuperação' },
  passwordMissing: 'Informe sua senha.',
  codeInvalid: 'Informe os 6 dígitos do código.',
} as const

/** Codes whose message the dialog shows on its field, not as a toast. */
export const twoFactorInlineCodes = ['password_incorrect', 'two_factor_invalid', 'validation_failed']

/** The password asked again: an empty one is refused here. */
export function passwordError(password: string): string | null {
  return password ? null : twoFactorTexts.passwordMissing
}

/** The authenticator's code as typed ('123 456' too): its 6 digits, or the message to show on the field. */
export function readTotpCode(typed: string): { code: string } | { error: string } {
  const code = typed.replace(/\s+/g, '')
  return /^\d{6}$/.test(code) ? { code } : { error: twoFactorTexts.codeInvalid }
}
