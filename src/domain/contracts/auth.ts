import { z } from 'zod'
import { errorText } from '../errors'

export const whatsappNumberSchema = z
  .string()
  .trim()
  .regex(/^\d{10,15}$/, errorText.whatsapp_invalid)
export const verificationCodeSchema = z.string().regex(/^\d{6}$/, errorText.code_invalid)
export const emailSchema = z.string().trim().toLowerCase().pipe(z.email(errorText.email_invalid))
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

export const roleIds = { admin: 1, user: 2 } as const

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
  })
  .meta({ id: 'SessionUser' })
export type SessionUser = z.infer<typeof sessionUserSchema>

export const sessionSchema = z.object({ user: sessionUserSchema.nullable() }).meta({ id: 'Session' })
export const okSchema = z.object({ ok: z.literal(true) })
