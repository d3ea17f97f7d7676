import type { z } from 'zod'
import { pixSettingsInputSchema } from '@/domain/contracts/admin'
import type { pixSettingsSchema } from '@/domain/contracts/billing'
import { errorText } from '@/domain/errors'
import { type PixKeyKind, pixKeyKind } from '@/domain/pix'

/** The PIX settings form validates with the request contract itself: its fields are the body's names. */
export const pixSettingsFormSchema = pixSettingsInputSchema
export type PixSettingsFormValues = z.input<typeof pixSettingsFormSchema>
export type PixSettingsFormOutput = z.output<typeof pixSettingsFormSchema>

/** The form starts from the saved settings, or empty before the first save. */
export function pixSettingsFormDefaults(settings: z.infer<typeof pixSettingsSchema> | null): PixSettingsFormValues {
  return {
    pix_key: settings?.pixKey ?? '',
    beneficiary_name: settings?.beneficiaryName ?? '',
    beneficiary_city: settings?.beneficiaryCity ?? '',
    description: settings?.description ?? '',
  }
}

const keyKindLabel: Record<PixKeyKind, string> = {
  cpf: 'CPF',
  cnpj: 'CNPJ',
  email: 'E-mail',
  phone: 'Telefone',
  evp: 'Chave aleatória',
}

/** The key field's live hint: what to type, the kind of key typed, or that it is not a PIX key (`invalid`). */
export function pixKeyHint(key: string): { text: string; invalid: boolean } {
  if (!key.trim()) {
    return {
      text: 'CPF ou CNPJ (só números ou com pontuação), e-mail, telefone com +55 ou chave aleatória.',
      invalid: false,
    }
  }
  const kind = pixKeyKind(key)
  return kind
    ? { text: `Chave do tipo ${keyKindLabel[kind]}.`, invalid: false }
    : { text: errorText.pix_key_invalid, invalid: true }
}
