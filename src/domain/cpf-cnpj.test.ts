import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatTaxId, isValidCnpj, isValidCpf, normalizeTaxId, parseTaxId, withCheckDigits } from './cpf-cnpj'

describe('CPF', () => {
  it('accepts valid numbers with or without punctuation and refuses wrong check digits', () => {
    expect(isValidCpf('529.982.247-25')).toBe(true)
    expect(isValidCpf('52998224725')).toBe(true)
    expect(isValidCpf('123.456.789-09')).toBe(true)
    expect(isValidCpf('529.982.247-26')).toBe(false)
    expect(isValidCpf('111.111.111-11')).toBe(false)
    expect(isValidCpf('5299822472')).toBe(false)
  })

  it('every body completed with its check digits is valid, and a changed check digit makes it invalid', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{9}$/),
        fc.integer({ min: 9, max: 10 }),
        fc.integer({ min: 1, max: 9 }),
        (body, at, delta) => {
          fc.pre(!/^(\d)\1{8}$/.test(body))
          const cpf = withCheckDigits(body)
          expect(isValidCpf(cpf)).toBe(true)
          const changed = `${cpf.slice(0, at)}${(Number(cpf[at]) + delta) % 10}${cpf.slice(at + 1)}`
          expect(isValidCpf(changed)).toBe(false)
        },
      ),
    )
  })
})

describe('CNPJ', () => {
  it('accepts valid numeric and alphanumeric CNPJs and refuses wrong ones', () => {
    expect(isValidCnpj('11.222.333/0001-81')).toBe(true)
    expect(isValidCnpj('11222333000181')).toBe(true)
    expect(isValidCnpj('12.ABC.345/01DE-35')).toBe(true) // Receita Federal's example of an alphanumeric CNPJ
    expect(isValidCnpj('11.222.333/0001-82')).toBe(false)
    expect(isValidCnpj('00000000000000')).toBe(false)
  })

  it('every 12-character body completed with its check digits is valid; a changed check digit is not', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9A-Z]{12}$/), fc.integer({ min: 1, max: 9 }), (body, delta) => {
        fc.pre(!/^(\d)\1{11}$/.test(body))
        const cnpj = withCheckDigits(body)
        expect(isValidCnpj(cnpj)).toBe(true)
        const changed = `${cnpj.slice(0, 13)}${(Number(cnpj[13]) + delta) % 10}`
        expect(isValidCnpj(changed)).toBe(false)
      }),
    )
  })
})

describe('parseTaxId', () => {
  it('tells a CPF from a CNPJ and formats them', () => {
    expect(parseTaxId(' 529.982.247-25 ')).toEqual({ kind: 'cpf', digits: '52998224725' })
    expect(parseTaxId('11.222.333/0001-81')).toEqual({ kind: 'cnpj', digits: '11222333000181' })
    expect(parseTaxId('123')).toBeNull()
    expect(parseTaxId('529.982.247-24')).toBeNull()
    expect(formatTaxId({ kind: 'cpf', digits: '52998224725' })).toBe('529.982.247-25')
    expect(formatTaxId({ kind: 'cnpj', digits: '11222333000181' })).toBe('11.222.333/0001-81')
    expect(normalizeTaxId('12.abc.345/01de-35')).toBe('12ABC34501DE35')
  })
})
