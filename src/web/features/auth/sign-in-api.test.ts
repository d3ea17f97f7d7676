import { describe, expect, it } from 'vitest'
import { emailSchema } from '@/domain/contracts/auth'
import { errorText } from '@/domain/errors'
import { normalizeEmail, signInFieldErrors } from './sign-in-api'

describe('normalizeEmail (the sign-in page without zod)', () => {
  it.each([
    'ana@example.com',
    '  Ana.Souza@Example.COM.br ',
    "o'neil+tag@mail.example.org",
    'a_b-c@sub-domain.example.io',
    '',
    'ana',
    'ana@',
    '@example.com',
    'ana@example',
    'ana@example.c',
    '.ana@example.com',
    'ana..souza@example.com',
    'ana.@example.com',
    'ana@-example.com',
    'ana souza@example.com',
    'ana@exa_mple.com',
    'ação@example.com',
    `${'a'.repeat(245)}@example.com`,
  ])('reads %j as emailSchema does', (input) => {
    const parsed = emailSchema.safeParse(input)
    expect(normalizeEmail(input)).toBe(parsed.success ? parsed.data : null)
  })
})

describe('signInFieldErrors', () => {
  it('asks for both fields, then for a valid e-mail', () => {
    expect(signInFieldErrors({ email: ' ', password: '' })).toEqual({
      email: 'Informe seu e-mail.',
      password: 'Informe sua senha.',
    })
    expect(signInFieldErrors({ email: 'ana@', password: 'x' })).toEqual({ email: errorText.email_invalid })
    expect(signInFieldErrors({ email: 'ana@example.com', password: 'x' })).toEqual({})
  })
})
