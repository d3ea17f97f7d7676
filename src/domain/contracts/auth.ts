import { z } from 'zod'
import { errorText } from '../errors'

export const whatsappNumberSchema = z
  .string()
  .trim()
  .regex(/^\d{10,15}$/, errorText.whatsapp_invalid)
export const verificationCodeSchema = z.string().regex(/^\d{6}$/, errorText.code_invalid)
export const emailSchema = z
  .string()
  .trim()
  .max(254, errorText.email_invalid)
  .toLowerCase()
  .pipe(z.email(errorText.email_invalid))
export const passwordSchema = z.string().min(8, errorText.password_too_short).max(128, errorText.password_too_long)

export const sendCodeInputSchema = z.strictObject({ phone_number: whatsappNumberSchema })
export const verifyCodeInputSchema = z.strictObject({ phone_number: whatsappNumberSchema, code: z.string().max(20) })

export const signUpInputSchema = z.strictObject({
  name: z.string().trim().min(1, 'Informe seu nome.').max(120),
  companyName: z.string().trim().min(1, 'Informe o nome da empresa.').max(160),
  whatsappNumber: whatsappNumberSchema,
  email: emailSchema,
  password: passwordSchema,
})
export type SignUpInput = z.infer<typeof signUpInputSchema>

export const signInInputSchema = z.strictObject({
  email: emailSchema,
  password: z.string().min(1, 'Informe sua senha.').max(256),
})
export type SignInInput = z.infer<typeof signInInputSchema>

export const emailOnlyInputSchema = z.strictObject({ email: emailSchema })
export const resetPasswordInputSchema = z.strictObject({
  token: z.string().min(1).max(500),
  newPassword: passwordSchema,
})

export const sessionUserSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    companyName: z.string(),
    whatsappNumber: z.string(),
    roleId: z.number().int(),
    isAdmin: z.boolean(),
    createdAt: z.string(),
    /** TOTP two-factor is on: signing in asks for 'Código de verificação'. */
    twoFactorEnabled: z.boolean(),
    /** An admin under ADMIN_MFA=required without two-factor: the admin area stays closed until it is enabled. */
    mustEnableTwoFactor: z.boolean(),
  })
  .meta({ id: 'SessionUser' })
export type SessionUser = z.infer<typeof sessionUserSchema>

export const sessionSchema = z.object({ user: sessionUserSchema.nullable() }).meta({ id: 'Session' })
export const okSchema = z.object({ ok: z.literal(true) })

/** Sign-in: the session user, or (two-factor on) no session yet and a code to ask for. */
export const signInResultSchema = z
  .union([z.object({ user: z.null(), twoFactorRequired: z.literal(true) }), sessionSchema])
  .meta({ id: 'SignInResult' })

/** A TOTP code (6 digits) or a recovery code (xxxxx-xxxxx), as typed. */
export const twoFactorCodeSchema = z
  .string()
  .trim()
  .min(1, 'Informe o código de verificação.')
  .max(32, 'Código inválido ou expirado.')
export const twoFactorSignInInputSchema = z.strictObject({ code: twoFactorCodeSchema })
export const passwordOnlyInputSchema = z.strictObject({ password: z.string().min(1, 'Informe sua senha.').max(256) })
export const twoFactorEnrolmentSchema = z.object({
  totpUri: z.string(),
  secret: z.string(),
  backupCodes: z.array(z.string()),
})
export const backupCodesSchema = z.object({ backupCodes: z.array(z.string()) })
/** Step-up: the password, or a TOTP code when two-factor is on. */
export const reauthenticateInputSchema = z.union([
  z.strictObject({ password: z.string().min(1, 'Informe sua senha.').max(256) }),
  z.strictObject({
    code: z
      .string()
      .trim()
      .regex(/^\d{6}$/, 'Informe os 6 dígitos do código.'),
  }),
])
