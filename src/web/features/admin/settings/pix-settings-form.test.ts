import { describe, expect, it } from 'vitest'
import { pixKeyHint, pixSettingsFormDefaults, pixSettingsFormSchema } from './pix-settings-form'

describe('PIX settings form', () => {
  it('starts empty before the first save, and from the saved settings after', () => {
    expect(pixSettingsFormDefaults(null)).toEqual({
      pix_key: '',
      beneficiary_name: '',
      beneficiary_city: '',
      description: '',
    })
    const saved = {
      pixKey: 'financeiro@example.com',
      beneficiaryName: 'Loja Exemplo',
      beneficiaryCity: 'Fortaleza',
      description: 'Assinatura',
      updatedAt: '2026-11-01T12:00:00.000Z',
    }
    expect(pixSettingsFormDefaults(saved)).toEqual({
      pix_key: 'financeiro@example.com',
      beneficiary_name: 'Loja Exemplo',
      beneficiary_city: 'Fortaleza',
      description: 'Assinatura',
    })
  })

  it('names the kind of key typed, and says when it is not a PIX key', () => {
    expect(pixKeyHint('').invalid).toBe(false)
    expect(pixKeyHint('financeiro@example.com')).toEqual({ text: 'Chave do tipo E-mail.', invalid: false })
    expect(pixKeyHint('+5585999990000')).toEqual({ text: 'Chave do tipo Telefone.', invalid: false })
    expect(pixKeyHint('não é chave')).toEqual({
      text: 'Chave PIX inválida: use CPF, CNPJ, e-mail, telefone com +55 ou chave aleatória.',
      invalid: true,
    })
  })

  it('accepts the saved settings as a request body', () => {
    const values = pixSettingsFormSchema.parse({
      pix_key: 'financeiro@example.com',
      beneficiary_name: 'Loja Exemplo',
      beneficiary_city: 'Fortaleza',
      description: '',
    })
    expect(values.pix_key).toBe('financeiro@example.com')
  })
})
