// CPF (11 digits) and CNPJ (14 characters) of a payer, validated with their check digits (módulo 11).
// The CNPJ may be alphanumeric (Receita Federal, from July 2026): its 12 first characters are letters or digits,
// each counted as its ASCII code minus 48, and the two check digits stay numeric.

export type TaxId = { kind: 'cpf' | 'cnpj'; digits: string }

/** The characters that count: digits (and for a CNPJ uppercase letters); dots, dashes, slashes and spaces dropped. */
export function normalizeTaxId(input: string): string {
  return input.replace(/[\s./-]/g, '').toUpperCase()
}

function value(char: string): number {
  return char.charCodeAt(0) - 48
}

function checkDigit(body: string, weights: number[]): number {
  let sum = 0
  for (let i = 0; i < body.length; i++) sum += value(body[i] as string) * (weights[i] as number)
  const rest = sum % 11
  return rest < 2 ? 0 : 11 - rest
}

export function isValidCpf(input: string): boolean {
  const digits = normalizeTaxId(input)
  if (!/^\d{11}$/.test(digits) || /^(\d)\1{10}$/.test(digits)) return false
  const first = checkDigit(digits.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2])
  const second = checkDigit(digits.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2])
  return digits[9] === String(first) && digits[10] === String(second)
}

const cnpjWeights1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
const cnpjWeights2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]

export function isValidCnpj(input: string): boolean {
  const chars = normalizeTaxId(input)
  if (!/^[0-9A-Z]{12}\d{2}$/.test(chars) || /^(\d)\1{13}$/.test(chars)) return false
  const first = checkDigit(chars.slice(0, 12), cnpjWeights1)
  const second = checkDigit(chars.slice(0, 13), cnpjWeights2)
  return chars[12] === String(first) && chars[13] === String(second)
}

/** The CPF or CNPJ in `input` (any punctuation), or null when it is neither (wrong length or check digits). */
export function parseTaxId(input: string): TaxId | null {
  const digits = normalizeTaxId(input)
  if (digits.length === 11 && isValidCpf(digits)) return { kind: 'cpf', digits }
  if (digits.length === 14 && isValidCnpj(digits)) return { kind: 'cnpj', digits }
  return null
}

/** Completes a 9-digit CPF body (or a 12-character CNPJ body) with its check digits: tests and fixtures. */
export function withCheckDigits(body: string): string {
  if (/^\d{9}$/.test(body)) {
    const first = checkDigit(body, [10, 9, 8, 7, 6, 5, 4, 3, 2])
    const second = checkDigit(`${body}${first}`, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2])
    return `${body}${first}${second}`
  }
  if (/^[0-9A-Z]{12}$/.test(body)) {
    const first = checkDigit(body, cnpjWeights1)
    const second = checkDigit(`${body}${first}`, cnpjWeights2)
    return `${body}${first}${second}`
  }
  throw new RangeError(`withCheckDigits: expected 9 digits or 12 characters, got '${body}'`)
}

/** 123.456.789-09 or 12.345.678/0001-95: how the app shows a document. */
export function formatTaxId(taxId: TaxId): string {
  const d = taxId.digits
  if (taxId.kind === 'cpf') return `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`
  return `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`
}
