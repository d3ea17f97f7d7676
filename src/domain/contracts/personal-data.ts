import { z } from 'zod'

/** POST /api/profile/delete: the password again, nothing else (the account is always the session's). */
export const deleteAccountInputSchema = z.strictObject({
  password: z.string().min(1, 'Informe sua senha.').max(128),
})
export type DeleteAccountInput = z.infer<typeof deleteAccountInputSchema>

const rows = z.array(z.record(z.string(), z.unknown()))

/**
 * GET /api/profile/export: everything held about the signed-in person, as a JSON download. Never password hashes,
 * session tokens, verification code hashes or other secrets.
 */
export const personalDataExportSchema = z
  .object({
    format: z.literal('meus-dados/v1'),
    exportedAt: z.string(),
    profile: z.record(z.string(), z.unknown()),
    loginMethods: rows,
    sessions: rows,
    subscriptions: rows,
    payments: rows,
    notifications: rows,
    auditLog: rows,
    whatsappVerifications: rows,
    platformEvents: rows,
    whatsappMessages: rows,
  })
  .meta({ id: 'PersonalDataExport' })
export type PersonalDataExport = z.infer<typeof personalDataExportSchema>
