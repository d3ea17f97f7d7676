import { z } from 'zod'
import { emailSchema, passwordSchema } from '@/domain/contracts/auth'
import type { ServerFieldMap } from '@/web/lib/form-errors'

/** 'Esqueci minha senha': the e-mail, asked for when empty, then checked as the contract does. */
export const forgotFormSchema = z.object({ email: z.string().trim().min(1, 'Informe seu e-mail.').pipe(emailSchema) })
export const forgotFormDefaults: z.input<typeof forgotFormSchema> = { email: '' }

/** 'Nova senha': the new password, asked for when empty, then the contract's length rule. */
export const resetFormSchema = z.object({
  newPassword: z.string().min(1, 'Informe a nova senha.').pipe(passwordSchema),
})
export const resetFormDefaults: z.input<typeof resetFormSchema> = { newPassword: '' }

/** The reset request's body: the link's token and the new password. */
export function toResetInput(token: string, values: z.output<typeof resetFormSchema>) {
  return { token, newPassword: values.newPassword }
}

// A short password (or any invalid body) is explained under the field; a dead link (invalid_token) above the form.
export const resetServerFields: ServerFieldMap<'newPassword'> = {
  codes: { password_too_short: 'newPassword', validation_failed: 'newPassword' },
}
