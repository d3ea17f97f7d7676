import { describe, expect, it } from 'vitest'
import { passwordError, readTotpCode } from './two-factor-form'

describe('two-factor form', () => {
  it('asks for the password when it is empty, and lets any typed one through to the server', () => {
    expect(passwordError('')).toBe('Informe sua senha.')
    expect(passwordError(' ')).toBeNull()
    expect(passwordError('s3nh@')).toBeNull()
  })

  it('reads the 6 digits of a code typed with spaces', () => {
    expect(readTotpCode('123456')).toEqual({ code: '123456' })
    expect(readTotpCode(' 123 456 ')).toEqual({ code: '123456' })
  })

  it('refuses anything but 6 digits, in Portuguese', () => {
    for (const typed of ['', '12345', '1234567', '12345a', 'abcdef']) {
      expect(readTotpCode(typed)).toEqual({ error: 'Informe os 6 dígitos do código.' })
    }
  })
})
