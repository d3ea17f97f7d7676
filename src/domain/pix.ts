// Static PIX BR Code ("PIX copia e cola"), following the Banco Central manual (EMV QR merchant-presented mode).
import { centsToDecimalString, toCents } from './money.ts'

const pixGui = 'br.gov.bcb.pix'
/** Field 59 (beneficiary name) holds at most this many characters; the PIX settings refuse longer. */
export const pixBeneficiaryNameMax = 25
/** Field 60 (beneficiary city) holds at most this many characters; the PIX settings refuse longer. */
export const pixBeneficiaryCityMax = 15
/** The PIX settings' description (sent in field 26.02 when the key leaves room for it). */
export const pixDescriptionMax = 72
const nameMax = pixBeneficiaryNameMax
const cityMax = pixBeneficiaryCityMax
const txidMax = 25
const noTxid = '***'
const amountMax = 13 // EMV limit for field 54, e.g. '9999999999.99'
// Field 26 holds at most 99 characters: '0014br.gov.bcb.pix' (18) + '01' LL key (4 + key)
// + '02' LL description (4 + description).
const merchantAccountMax = 99
const keyMax = merchantAccountMax - 18 - 4 // 77, also the DICT limit for e-mail keys

export type PixBrCodeInput = {
  key: string
  beneficiaryName: string
  beneficiaryCity: string
  amountCents?: number
  txid?: string
  description?: string
}

export type ParsedPixBrCode = {
  key: string
  description?: string
  amountCents?: number
  beneficiaryName: string
  beneficiaryCity: string
  txid: string
  crcValid: boolean
  /** Top-level fields by id ('59'), plus the sub-fields of templates by dotted id ('26.01', '62.05'). */
  fields: Record<string, string>
}

export type PixKeyKind = 'cpf' | 'cnpj' | 'email' | 'phone' | 'evp'

/**
 * Builds the copy-and-paste payload of a static PIX charge.
 * Text is reduced to printable ASCII (accents stripped first, then cut: 25 for the name, 15 for the city, 25 letters
 * and digits for the txid, whatever fits field 26 for the description). The key is normalized to its DICT form.
 * Throws an Error for an invalid key, an empty name or city, or an amount that is not a positive whole number of
 * centavos (leave `amountCents` undefined for an open amount).
 */
export function buildPixBrCode(input: PixBrCodeInput): string {
  const key = normalizePixKey(input.key)
  if (key === null) throw new Error('PIX: the key is not a valid CPF, CNPJ, e-mail, +55 phone or random key')
  if (key.length > keyMax) throw new Error(`PIX: the key is longer than ${keyMax} characters`)
  const name = cutText(input.beneficiaryName, nameMax)
  if (!name) throw new Error('PIX: the beneficiary name is empty')
  const city = cutText(input.beneficiaryCity, cityMax)
  if (!city) throw new Error('PIX: the beneficiary city is empty')
  const description = cutText(input.description ?? '', merchantAccountMax - 18 - 4 - key.length - 4)
  const txid = cleanTxid(input.txid)

  const merchantAccount = tlv('00', pixGui) + tlv('01', key) + (description ? tlv('02', description) : '')
  const body = [
    tlv('00', '01'),
    tlv('26', merchantAccount),
    tlv('52', '0000'),
    tlv('53', '986'),
    input.amountCents === undefined ? '' : tlv('54', amountValue(input.amountCents)),
    tlv('58', 'BR'),
    tlv('59', name),
    tlv('60', city),
    tlv('62', tlv('05', txid)),
    '6304',
  ].join('')
  return body + crc16ccitt(body)
}

export type DynamicPixBrCodeInput = {
  /** The charge's location as the PSP returns it, without a scheme: 'pix.psp.example/qr/v2/8b3da2f3…' (≤ 77). */
  location: string
  beneficiaryName: string
  beneficiaryCity: string
  amountCents?: number
}

export type ParsedDynamicPixBrCode = {
  location: string
  amountCents?: number
  beneficiaryName: string
  beneficiaryCity: string
  crcValid: boolean
  /** Top-level fields by id ('59'), plus the sub-fields of templates by dotted id ('26.25', '62.05'). */
  fields: Record<string, string>
}

const locationMax = 77

/**
 * Builds the copy-and-paste payload of a dynamic PIX charge (a PSP's cob or cobv): field 01 = '12' (single use),
 * field 26 holds only the GUI and the location URL (sub-field 25, no 'https://'), and 62.05 is '***' because the
 * payer's bank reads the txid and amount from the location. The amount (54) is informative and may be left out.
 */
export function buildDynamicPixBrCode(input: DynamicPixBrCodeInput): string {
  const location = input.location.trim()
  if (!location || /^https?:\/\//i.test(location) || /[^\x21-\x7e]/.test(location)) {
    throw new Error('PIX: the location must be a URL without scheme, in printable ASCII')
  }
  if (location.length > locationMax) throw new Error(`PIX: the location is longer than ${locationMax} characters`)
  const name = cutText(input.beneficiaryName, nameMax)
  if (!name) throw new Error('PIX: the beneficiary name is empty')
  const city = cutText(input.beneficiaryCity, cityMax)
  if (!city) throw new Error('PIX: the beneficiary city is empty')
  const body = [
    tlv('00', '01'),
    tlv('01', '12'),
    tlv('26', tlv('00', pixGui) + tlv('25', location)),
    tlv('52', '0000'),
    tlv('53', '986'),
    input.amountCents === undefined ? '' : tlv('54', amountValue(input.amountCents)),
    tlv('58', 'BR'),
    tlv('59', name),
    tlv('60', city),
    tlv('62', tlv('05', noTxid)),
    '6304',
  ].join('')
  return body + crc16ccitt(body)
}

/**
 * What static and dynamic codes share: the TLV envelope (000201 first, the CRC field 63 last), every field and
 * template sub-field by id ('62.05'), the first br.gov.bcb.pix template, 59, 60 and the optional amount 54.
 */
function readBrCode(code: string) {
  const payload = code.trim()
  const top = parseTlv(payload, 'payload')
  const fields: Record<string, string> = {}
  for (const [id, value] of top) fields[id] = value
  const ids = [...top.keys()]
  if (ids[0] !== '00' || top.get('00') !== '01') throw new Error('PIX: the code must start with 000201')
  if (ids.at(-1) !== '63' || !payload.endsWith(`6304${top.get('63')}`)) {
    throw new Error('PIX: the code must end with the 4-character CRC field 63')
  }
  let pixTemplate: { id: string; sub: Map<string, string> } | undefined
  for (const [id, value] of top) {
    const n = Number(id)
    if (!((n >= 26 && n <= 51) || id === '62' || n >= 80)) continue
    const sub = parseTlv(value, `field ${id}`)
    for (const [subId, subValue] of sub) fields[`${id}.${subId}`] = subValue
    if (n <= 51 && sub.get('00')?.toLowerCase() === pixGui && pixTemplate === undefined) pixTemplate = { id, sub }
  }
  const beneficiaryName = top.get('59')
  if (beneficiaryName === undefined) throw new Error('PIX: the beneficiary name (59) is missing')
  const beneficiaryCity = top.get('60')
  if (beneficiaryCity === undefined) throw new Error('PIX: the beneficiary city (60) is missing')
  const amount = top.get('54')
  let amountCents: number | undefined
  if (amount !== undefined) {
    if (!/^\d+(\.\d{1,2})?$/.test(amount)) throw new Error(`PIX: the amount (54) '${amount}' is not a decimal`)
    amountCents = toCents(amount)
  }
  return {
    pixTemplate,
    common: {
      ...(amountCents === undefined ? {} : { amountCents }),
      beneficiaryName,
      beneficiaryCity,
      crcValid: crc16ccitt(payload.slice(0, -4)) === top.get('63'),
      fields,
    },
  }
}

/**
 * Reads a dynamic PIX BR Code (a PSP's pixCopiaECola) back. Throws an Error naming the problem when the TLV
 * structure is broken, or when there is no br.gov.bcb.pix template with a location (25), no 59, 60 or CRC last.
 * A wrong checksum does not throw: it gives `crcValid: false`.
 */
export function parseDynamicPixBrCode(code: string): ParsedDynamicPixBrCode {
  const { pixTemplate, common } = readBrCode(code)
  const location = pixTemplate?.sub.get('25')
  if (location === undefined) throw new Error(`PIX: no ${pixGui} template with a location (25)`)
  return { location, ...common }
}

/**
 * CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) over the UTF-8 bytes of `s`,
 * as 4 upper-case hex digits: crc16ccitt('123456789') === '29B1'.
 */
export function crc16ccitt(s: string): string {
  let crc = 0xffff
  for (const byte of new TextEncoder().encode(s)) {
    crc ^= byte << 8
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0')
}

/**
 * Reads a static PIX BR Code back. Throws an Error naming the problem when the TLV structure is broken or a
 * required field (00, the br.gov.bcb.pix account with its key, 59, 60, 62.05, 63 last) is missing.
 * A wrong checksum does not throw: it gives `crcValid: false`.
 */
export function parsePixBrCode(code: string): ParsedPixBrCode {
  const { pixTemplate, common } = readBrCode(code)
  if (!pixTemplate) throw new Error(`PIX: no merchant account field with ${pixGui}`)
  const key = pixTemplate.sub.get('01')
  if (key === undefined) {
    throw new Error(`PIX: field ${pixTemplate.id} has no key (01); dynamic codes are not supported`)
  }
  const description = pixTemplate.sub.get('02')
  const txid = common.fields['62.05']
  if (txid === undefined) throw new Error('PIX: the txid (62.05) is missing')
  return { key, ...(description === undefined ? {} : { description }), txid, ...common }
}

/** The kind of DICT key `key` is, after normalization, or null when it is none of them. */
export function pixKeyKind(key: string): PixKeyKind | null {
  return classifyPixKey(key)?.kind ?? null
}

/**
 * A PIX key in the form the DICT stores it, or null when it is not a valid key:
 * CPF and CNPJ as digits only (punctuation such as '123.456.789-09' or '12.345.678/0001-95' is accepted, and the
 * check digits must be right), e-mail in lower case, phone as '+55' followed by 10 or 11 digits (spaces, dashes and
 * parentheses are removed, but the '+55' must be typed), random key (EVP) as a lower-case UUID.
 * Eleven bare digits are a CPF, never a phone: phones need the '+55'.
 */
export function normalizePixKey(key: string): string | null {
  return classifyPixKey(key)?.key ?? null
}

function classifyPixKey(raw: string): { kind: PixKeyKind; key: string } | null {
  const key = raw.trim()
  if (key.includes('@')) {
    const email = key.toLowerCase()
    return emailPattern.test(email) && email.length <= keyMax ? { kind: 'email', key: email } : null
  }
  if (key.startsWith('+')) {
    const phone = key.replace(/[\s()-]/g, '')
    return /^\+55\d{10,11}$/.test(phone) ? { kind: 'phone', key: phone } : null
  }
  if (uuidPattern.test(key)) return { kind: 'evp', key: key.toLowerCase() }
  if (!/^[\d.\-/\s]+$/.test(key)) return null
  const digits = key.replace(/\D/g, '')
  if (digits.length === 11 && isValidCpf(digits)) return { kind: 'cpf', key: digits }
  if (digits.length === 14 && isValidCnpj(digits)) return { kind: 'cnpj', key: digits }
  return null
}

const emailLocal = /[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*/.source
const emailDomain = /(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,}/.source
const emailPattern = new RegExp(`^${emailLocal}@${emailDomain}$`)
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function isValidCpf(digits: string): boolean {
  if (/^(\d)\1+$/.test(digits)) return false
  const d = [...digits].map(Number)
  const check = (length: number) => {
    let sum = 0
    for (let i = 0; i < length; i++) sum += (d[i] ?? 0) * (length + 1 - i)
    const rest = (sum * 10) % 11
    return rest === 10 ? 0 : rest
  }
  return check(9) === d[9] && check(10) === d[10]
}

function isValidCnpj(digits: string): boolean {
  if (/^(\d)\1+$/.test(digits)) return false
  const d = [...digits].map(Number)
  const check = (length: number) => {
    let sum = 0
    for (let i = 0; i < length; i++) sum += (d[i] ?? 0) * (((length - 1 - i) % 8) + 2)
    const rest = sum % 11
    return rest < 2 ? 0 : 11 - rest
  }
  return check(12) === d[12] && check(13) === d[13]
}

/**
 * Accents stripped first (so 'Ação' becomes 'Acao', not 'Ao'), any run of whitespace (tabs, new lines) becomes one
 * space, then anything outside printable ASCII is dropped.
 */
function toPrintableAscii(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/\s+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '')
}

function cutText(text: string, max: number): string {
  if (max <= 0) return ''
  return toPrintableAscii(text).replace(/ +/g, ' ').trim().slice(0, max).trim()
}

function cleanTxid(txid: string | undefined): string {
  const cleaned = toPrintableAscii(txid ?? '')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, txidMax)
  return cleaned || noTxid
}

function amountValue(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents <= 0) {
    throw new Error(`PIX: the amount must be a positive whole number of centavos, got ${cents}`)
  }
  const value = centsToDecimalString(cents)
  if (value.length > amountMax) throw new Error(`PIX: the amount ${value} is longer than ${amountMax} characters`)
  return value
}

function tlv(id: string, value: string): string {
  if (value.length > 99) throw new Error(`PIX: field ${id} is longer than 99 characters`)
  return `${id}${String(value.length).padStart(2, '0')}${value}`
}

function parseTlv(text: string, where: string): Map<string, string> {
  const fields = new Map<string, string>()
  let at = 0
  while (at < text.length) {
    const head = text.slice(at, at + 4)
    if (!/^\d{4}$/.test(head))
      throw new Error(`PIX: malformed ${where} at position ${at}: expected 2-digit id and length`)
    const id = head.slice(0, 2)
    const length = Number(head.slice(2))
    const value = text.slice(at + 4, at + 4 + length)
    if (value.length !== length) throw new Error(`PIX: field ${id} in ${where} is cut short`)
    if (fields.has(id)) throw new Error(`PIX: field ${id} appears twice in ${where}`)
    fields.set(id, value)
    at += 4 + length
  }
  return fields
}
