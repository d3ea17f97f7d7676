import { describe, expect, it } from 'vitest'
import { ApiError } from '@/web/lib/api'
import { serverFieldErrors } from '@/web/lib/form-errors'
import { forgotFormSchema, resetFormSchema, resetServerFields, toResetInput } from './password-forms'

const messages = (result: { error?: { issues: Array<{ message: string }> } | undefined }) =>
  result.error?.issues.map((issue) => issue.message)

describe('password forms', () => {
  it('asks for the e-mail when it is empty and trims a typed one', () => {
    expect(messages(forgotFormSchema.safeParse({ email: '  ' }))).toEqual(['Informe seu e-mail.'])
    expect(forgotFormSchema.parse({ email: ' ana@example.com ' })).toEqual({ email: 'ana@example.com' })
    expect(forgotFormSchema.safeParse({ email: 'ana' }).success).toBe(false)
  })

  it('asks for the new password when it is empty and refuses one under 8 characters', () => {
    expect(messages(resetFormSchema.safeParse({ newPassword: '' }))).toEqual(['Informe a nova senha.'])
    expect(resetFormSchema.safeParse({ newPassword: '1234567' }).success).toBe(false)
    const values = resetFormSchema.parse({ newPassword: 'segredo-longo' })
    expect(toResetInput('tok', values)).toEqual({ token: 'tok', newPassword: 'segredo-longo' })
  })

  it("puts a short password's refusal on the field, and leaves a dead link to the notice above the form", () => {
    const short = new ApiError(400, 'password_too_short', 'A senha deve ter pelo menos 8 caracteres.')
    expect(serverFieldErrors(short, resetServerFields)).toEqual([
      { field: 'newPassword', message: 'A senha deve ter pelo menos 8 caracteres.' },
    ])
    expect(serverFieldErrors(new ApiError(400, 'invalid_token', 'Link inválido.'), resetServerFields)).toEqual([])
  })
})
