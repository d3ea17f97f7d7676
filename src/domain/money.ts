// Money is integer centavos everywhere; reais exist only in form inputs and in formatBRL.

/**
 * Centavos in, 'R$ 1.234,56' out (with a non-breaking space U+00A0 after 'R$', and '-R$' for a negative amount, as
 * Intl.NumberFormat('pt-BR', BRL) writes it), built from the exact decimal digits, so even the largest safe integer
 * keeps its last cent. Written by hand: the browser's first Intl formatter loads its locale data in one 20-45 ms
 * call, which the public pages paid while evaluating their script (money.test.ts checks it against Intl).
 */
export function formatBRL(cents: number): string {
  const decimal = centsToDecimalString(cents)
  const negative = decimal.startsWith('-')
  const [whole = '0', fraction = '00'] = (negative ? decimal.slice(1) : decimal).split('.')
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.')
  return `${negative ? '-' : ''}R$\u00a0${grouped},${fraction}`
}

/**
 * Integer centavos in, a plain decimal string with a dot and exactly 2 decimals out: 4990 -> '49.90',
 * 5 -> '0.05', -150 -> '-1.50'. This is the form the PIX amount field (54) needs.
 * Throws a RangeError for anything that is not a safe integer.
 */
export function centsToDecimalString(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`centavos must be a safe integer, got ${cents}`)
  const digits = String(Math.abs(cents)).padStart(3, '0')
  const sign = cents < 0 ? '-' : ''
  return `${sign}${digits.slice(0, -2)}.${digits.slice(-2)}`
}

// Optional sign, optional 'R$' (as formatBRL writes it), then the number.
const inputPattern = /^([-+]?)\s*(?:R\$)?\s*([-+]?)\s*([\d.,]+)$/
const groupedInteger = (sep: string) => new RegExp(`^\\d{1,3}(?:\\${sep}\\d{3})+$`)

/**
 * Reais as typed by a person (or a number from an input) in, integer centavos out.
 *
 * Accepts '49.90', '49,90', '49.9', '1.234,56', '1,234.56', '1.234.567', 'R$ 49,90', '-1,50', 49.9 and 4.35 (-> 435).
 * Strings are parsed as decimal text, never through floats. A lone separator is the decimal separator; with both
 * '.' and ',' the last one is decimal and the other must group thousands correctly.
 *
 * Invalid input returns NaN (it never throws), so a zod `z.number()` check downstream rejects it. Invalid means:
 * empty or non-numeric text, more than 2 decimals in a string ('1.234' is ambiguous in pt-BR: 1234 or 1,234?),
 * badly grouped thousands, a non-finite number, or a result outside the safe-integer range.
 * Numbers are rounded half away from zero at the cent using their shortest decimal form (0.1 + 0.2 -> 30),
 * because a number may carry float noise that the person never typed.
 */
export function toCents(reais: string | number): number {
  if (typeof reais === 'number') return numberToCents(reais)
  const match = inputPattern.exec(reais.replace(/\u00a0/g, ' ').trim())
  if (!match) return Number.NaN
  const [, sign1 = '', sign2 = '', body = ''] = match
  if (sign1 && sign2) return Number.NaN
  const parts = splitDecimal(body)
  if (!parts) return Number.NaN
  const [integer, fraction] = parts
  if (fraction.length > 2) return Number.NaN
  const cents = Number(integer || '0') * 100 + Number(fraction.padEnd(2, '0'))
  if (!Number.isSafeInteger(cents)) return Number.NaN
  return sign1 === '-' || sign2 === '-' ? -cents || 0 : cents
}

/** Splits '1.234,56' into ['1234', '56']; undefined when the separators make no sense. */
function splitDecimal(body: string): [string, string] | undefined {
  const lastDot = body.lastIndexOf('.')
  const lastComma = body.lastIndexOf(',')
  if (lastDot === -1 && lastComma === -1) return [body, '']
  if (lastDot !== -1 && lastComma !== -1) {
    const decimalSep = lastDot > lastComma ? '.' : ','
    const groupSep = decimalSep === '.' ? ',' : '.'
    const at = body.lastIndexOf(decimalSep)
    const integer = body.slice(0, at)
    const fraction = body.slice(at + 1)
    if (integer.includes(decimalSep) || !/^\d+$/.test(fraction)) return undefined
    if (!groupedInteger(groupSep).test(integer)) return undefined
    return [integer.split(groupSep).join(''), fraction]
  }
  const sep = lastDot === -1 ? ',' : '.'
  const pieces = body.split(sep)
  if (pieces.length === 2) {
    const [integer = '', fraction = ''] = pieces
    if (!/^\d*$/.test(integer) || !/^\d+$/.test(fraction)) return undefined
    return [integer, fraction]
  }
  // Several of the same separator can only be thousands groups: '1.234.567'.
  if (!groupedInteger(sep).test(body)) return undefined
  return [pieces.join(''), '']
}

function numberToCents(value: number): number {
  if (!Number.isFinite(value)) return Number.NaN
  const abs = Math.abs(value)
  // Below half a millionth String() switches to exponent form; such values are 0 cents anyway.
  if (abs < 1e-6) return 0
  if (abs >= 1e21) return Number.NaN
  const [integer = '0', fraction = ''] = String(abs).split('.')
  const kept = fraction.slice(0, 2).padEnd(2, '0')
  const roundUp = (fraction[2] ?? '0') >= '5' ? 1 : 0
  const cents = Number(integer) * 100 + Number(kept) + roundUp
  if (!Number.isSafeInteger(cents)) return Number.NaN
  return value < 0 ? -cents || 0 : cents
}
