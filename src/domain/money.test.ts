import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { centsToDecimalString, formatBRL, toCents } from './money.ts'

const nbsp = '\u00a0'

describe('formatBRL', () => {
  it('formats centavos as reais the Brazilian way, with a non-breaking space after R$', () => {
    expect(formatBRL(4990)).toBe(`R$${nbsp}49,90`)
    expect(formatBRL(123456)).toBe(`R$${nbsp}1.234,56`)
    expect(formatBRL(0)).toBe(`R$${nbsp}0,00`)
    expect(formatBRL(5)).toBe(`R$${nbsp}0,05`)
    expect(formatBRL(-150)).toBe(`-R$${nbsp}1,50`)
  })

  it('keeps the last cent of the largest safe amount', () => {
    expect(formatBRL(Number.MAX_SAFE_INTEGER)).toBe(`R$${nbsp}90.071.992.547.409,91`)
  })

  it('refuses fractional centavos', () => {
    expect(() => formatBRL(49.9)).toThrow(RangeError)
  })

  it('writes every amount exactly as Intl.NumberFormat pt-BR BRL does', () => {
    const intl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' })
    const asIntl = (cents: number) => intl.format(centsToDecimalString(cents) as `${number}`)
    for (const cents of [0, 1, -1, 99, 100, 999_99, 1000_00, -1000_00, 123_456_789, Number.MIN_SAFE_INTEGER])
      expect(formatBRL(cents)).toBe(asIntl(cents))
    fc.assert(fc.property(fc.maxSafeInteger(), (cents) => formatBRL(cents) === asIntl(cents)))
  })
})

describe('centsToDecimalString', () => {
  it('writes a dot and exactly two decimals', () => {
    expect(centsToDecimalString(4990)).toBe('49.90')
    expect(centsToDecimalString(435)).toBe('4.35')
    expect(centsToDecimalString(100000)).toBe('1000.00')
    expect(centsToDecimalString(5)).toBe('0.05')
    expect(centsToDecimalString(0)).toBe('0.00')
    expect(centsToDecimalString(-150)).toBe('-1.50')
  })

  it('refuses values that are not safe integers', () => {
    expect(() => centsToDecimalString(1.5)).toThrow(RangeError)
    expect(() => centsToDecimalString(Number.NaN)).toThrow(RangeError)
    expect(() => centsToDecimalString(2 ** 53)).toThrow(RangeError)
  })
})

describe('toCents', () => {
  it.each([
    ['49.90', 4990],
    ['49,90', 4990],
    ['49.9', 4990],
    ['49,9', 4990],
    ['49', 4900],
    ['0.1', 10],
    ['4.35', 435],
    [',5', 50],
    ['1.234,56', 123456],
    ['1,234.56', 123456],
    ['1.234.567', 123456700],
    ['1.234.567,89', 123456789],
    ['  49,90 ', 4990],
    ['R$ 49,90', 4990],
    [`R$${nbsp}1.234,56`, 123456],
    ['-1,50', -150],
    [`-R$${nbsp}1,50`, -150],
    ['-0', 0],
  ])('reads %j as %d centavos', (input, cents) => {
    expect(toCents(input)).toBe(cents)
  })

  it.each([
    '',
    ' ',
    'abc',
    '49,90 reais',
    '1.234', // pt-BR thousands or en-US decimal: ambiguous, so refused
    '49.999',
    '1,2,3',
    '12.34.56',
    '1.234,5.6',
    '1,23.456,78',
    '.',
    '5,',
    '--5',
    '1e3',
    'Infinity',
    '900719925474099.92',
  ])('returns NaN for %j', (input) => {
    expect(toCents(input)).toBeNaN()
  })

  it('reads numbers without float error', () => {
    expect(toCents(49.9)).toBe(4990)
    expect(toCents(4.35)).toBe(435)
    expect(toCents(1.1)).toBe(110)
    expect(toCents(0.1 + 0.2)).toBe(30)
    expect(toCents(0.07)).toBe(7)
    expect(toCents(1e-7)).toBe(0)
    expect(toCents(-0.5)).toBe(-50)
    expect(toCents(0.005)).toBe(1)
  })

  it('returns NaN for numbers that are not finite or too big', () => {
    expect(toCents(Number.NaN)).toBeNaN()
    expect(toCents(Number.POSITIVE_INFINITY)).toBeNaN()
    expect(toCents(1e21)).toBeNaN()
    expect(toCents(2 ** 53)).toBeNaN()
  })

  it('adds up like decimal arithmetic, not like floats', () => {
    expect(toCents('0.1') + toCents('0.2')).toBe(toCents('0.3'))
  })

  it('round-trips every non-negative safe amount through its decimal string', () => {
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), (cents) => {
        expect(toCents(centsToDecimalString(cents))).toBe(cents)
      }),
    )
  })

  it('round-trips every amount through formatBRL', () => {
    fc.assert(
      fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (cents) => {
        expect(toCents(formatBRL(cents))).toBe(cents)
      }),
    )
  })

  it('reads a number with at most two decimals as exactly its centavos', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(10 ** 12), max: 10 ** 12 }), (cents) => {
        expect(toCents(cents / 100)).toBe(cents)
      }),
    )
  })

  it('reads pt-BR text the same as dotted text', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10 ** 12 }), (cents) => {
        expect(toCents(centsToDecimalString(cents).replace('.', ','))).toBe(cents)
      }),
    )
  })
})
