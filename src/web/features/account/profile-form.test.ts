import { describe, expect, it } from 'vitest'
import { ApiError } from '@/web/lib/api'
import { serverFieldErrors } from '@/web/lib/form-errors'
import { profileFormDefaults, profileFormSchema, profileServerFields } from './profile-form'

describe('profile form', () => {
  it('starts from the stored name and company, under the body names the API expects', () => {
    expect(profileFormDefaults({ name: 'Ana', companyName: 'Loja da Ana' })).toEqual({
      name: 'Ana',
      company_name: 'Loja da Ana',
    })
  })

  it('trims the values and asks for both in Portuguese', () => {
    expect(profileFormSchema.parse({ name: '  Ana ', company_name: ' Loja ' })).toEqual({
      name: 'Ana',
      company_name: 'Loja',
    })
    const failed = profileFormSchema.safeParse({ name: ' ', company_name: '' })
    expect(failed.success).toBe(false)
    expect(failed.error?.issues.map((issue) => [issue.path[0], issue.message])).toEqual([
      ['name', 'Informe seu nome.'],
      ['company_name', 'Informe o nome da empresa.'],
    ])
  })

  it("puts the server's validation message on the field it names", () => {
    const error = new ApiError(400, 'validation_failed', 'Dados inválidos.', [
      { path: '/company_name', message: 'Muito longo.' },
    ])
    expect(serverFieldErrors(error, profileServerFields)).toEqual([{ field: 'company_name', message: 'Muito longo.' }])
  })
})
