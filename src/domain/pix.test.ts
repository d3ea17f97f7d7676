import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  buildDynamicPixBrCode,
  buildPixBrCode,
  crc16ccitt,
  normalizePixKey,
  parseDynamicPixBrCode,
  parsePixBrCode,
  pixKeyKind,
} from './pix.ts'

const bcbKey = '123e4567-e12b-12d1-a456-426655440000'
const bcbBody =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000' +
  '5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***6304'
// Published in the Banco Central "Manual de Padrões para Iniciação do Pix" (static QR example).
const bcbManualCode = `${bcbBody}1D3D`

const base = { key: bcbKey, beneficiaryName: 'Fulano de Tal', beneficiaryCity: 'BRASILIA' }
const printableAscii = /^[\x20-\x7e]*$/

// Check digits written out with the official weight tables, independently of pix.ts.
function checkDigit(digits: number[], weights: number[]): number {
  const rest = digits.reduce((sum, d, i) => sum + d * (weights[i] ?? 0), 0) % 11
  return rest < 2 ? 0 : 11 - rest
}
function withCpfCheckDigits(nine: number[]): string {
  const d1 = checkDigit(nine, [10, 9, 8, 7, 6, 5, 4, 3, 2])
  const d2 = checkDigit([...nine, d1], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2])
  return [...nine, d1, d2].join('')
}
function withCnpjCheckDigits(twelve: number[]): string {
  const d1 = checkDigit(twelve, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
  const d2 = checkDigit([...twelve, d1], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
  return [...twelve, d1, d2].join('')
}

describe('crc16ccitt', () => {
  it('matches the CRC-16/CCITT-FALSE check value', () => {
    expect(crc16ccitt('123456789')).toBe('29B1')
    expect(crc16ccitt('')).toBe('FFFF')
  })

  it('gives the checksum printed in the Banco Central manual', () => {
    expect(crc16ccitt(bcbBody)).toBe('1D3D')
  })
})

describe('buildPixBrCode', () => {
  it('reproduces the Banco Central manual example byte for byte', () => {
    const code = buildPixBrCode({ ...base, txid: '***' })
    expect(code).toBe(bcbBody + crc16ccitt(bcbBody))
    expect(code).toBe(bcbManualCode)
    expect(buildPixBrCode(base)).toBe(bcbManualCode)
  })

  it('strips accents before cutting, so no letter is lost', () => {
    const code = buildPixBrCode({
      key: 'fulano@example.com',
      beneficiaryName: 'José Ação São Paulo',
      beneficiaryCity: 'São João del-Rei',
      amountCents: 435,
      txid: 'pedido-123_ção',
      description: 'Assinatura plano básico',
    })
    // CRC cross-checked with Python's binascii.crc_hqx(payload, 0xFFFF).
    expect(code).toBe(
      '00020126670014br.gov.bcb.pix0118fulano@example.com0223Assinatura plano basico' +
        '52040000530398654044.355802BR5919Jose Acao Sao Paulo6015Sao Joao del-Re62160512pedido123cao6304E840',
    )
  })

  it('drops characters that are not printable ASCII and squeezes whitespace', () => {
    const parsed = parsePixBrCode(
      buildPixBrCode({ ...base, beneficiaryName: ' Ümlaut  Straße 😀\n€ Ltda ', beneficiaryCity: 'Ñuñoa\tÇ' }),
    )
    expect(parsed.beneficiaryName).toBe('Umlaut Strae Ltda')
    expect(parsed.beneficiaryCity).toBe('Nunoa C')
  })

  it('keeps the case of the name and the city', () => {
    const parsed = parsePixBrCode(
      buildPixBrCode({ ...base, beneficiaryName: 'Loja da Ana', beneficiaryCity: 'Fortaleza' }),
    )
    expect(parsed.beneficiaryName).toBe('Loja da Ana')
    expect(parsed.beneficiaryCity).toBe('Fortaleza')
  })

  it('cuts the name to 25, the city to 15 and the txid to 25 letters and digits', () => {
    const name = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcd' // 30
    const city = 'Cidade Muito Grande' // 19 -> 15
    const txid = 'ped-0001/ABCDEFGHIJ_KLMNOPQRSTUVWXYZ 0123' // 40 characters, 32 letters and digits
    const parsed = parsePixBrCode(buildPixBrCode({ ...base, beneficiaryName: name, beneficiaryCity: city, txid }))
    expect(parsed.beneficiaryName).toBe('ABCDEFGHIJKLMNOPQRSTUVWXY')
    expect(parsed.beneficiaryCity).toBe('Cidade Muito Gr')
    expect(parsed.txid).toBe('ped0001ABCDEFGHIJKLMNOPQR')
    expect(parsed.txid).toHaveLength(25)
  })

  it('does not leave a trailing space where a cut lands after a word', () => {
    const parsed = parsePixBrCode(buildPixBrCode({ ...base, beneficiaryCity: 'Campina Grande do Sul' }))
    expect(parsed.beneficiaryCity).toBe('Campina Grande')
  })

  it('writes the amount from centavos with a dot and two decimals', () => {
    expect(buildPixBrCode({ ...base, amountCents: 435 })).toContain('53039865404' + '4.35' + '5802BR')
    expect(buildPixBrCode({ ...base, amountCents: 100000 })).toContain('54071000.00')
    expect(buildPixBrCode({ ...base, amountCents: 1 })).toContain('54040.01')
    expect(parsePixBrCode(buildPixBrCode({ ...base, amountCents: 4990 })).amountCents).toBe(4990)
  })

  it('leaves the amount out for an open amount and refuses zero, negative or fractional centavos', () => {
    expect(parsePixBrCode(buildPixBrCode(base)).fields['54']).toBeUndefined()
    for (const amountCents of [0, -100, 49.9, Number.NaN, 10 ** 13]) {
      expect(() => buildPixBrCode({ ...base, amountCents })).toThrow(/amount/)
    }
  })

  it('uses *** when there is no txid or nothing is left after cleaning', () => {
    for (const txid of [undefined, '', '***', ' - / _ ', 'çã']) {
      expect(parsePixBrCode(buildPixBrCode({ ...base, txid })).txid).toBe(txid === 'çã' ? 'ca' : '***')
    }
  })

  it('puts the description in field 26 only when there is one', () => {
    expect(parsePixBrCode(buildPixBrCode({ ...base, description: 'Plano Pro' })).description).toBe('Plano Pro')
    expect(parsePixBrCode(buildPixBrCode({ ...base, description: '   ' })).description).toBeUndefined()
    expect(buildPixBrCode({ ...base, description: '' })).toBe(bcbManualCode)
  })

  it('cuts the description so field 26 stays within 99 characters', () => {
    const description = 'x'.repeat(120)
    const parsed = parsePixBrCode(buildPixBrCode({ ...base, description }))
    expect(parsed.description).toBe('x'.repeat(73 - bcbKey.length))
    expect(parsed.fields['26']).toHaveLength(99)

    const longEmail = `${'a'.repeat(60)}@example.com.br` // 75 characters: no room left for a description
    const withLongKey = parsePixBrCode(buildPixBrCode({ ...base, key: longEmail, description }))
    expect(withLongKey.description).toBeUndefined()
    expect(withLongKey.key).toBe(longEmail)
  })

  it('normalizes the key to its DICT form', () => {
    expect(parsePixBrCode(buildPixBrCode({ ...base, key: '123.456.789-09' })).key).toBe('12345678909')
    expect(parsePixBrCode(buildPixBrCode({ ...base, key: ' Fulano@Example.COM ' })).key).toBe('fulano@example.com')
    expect(parsePixBrCode(buildPixBrCode({ ...base, key: bcbKey.toUpperCase() })).key).toBe(bcbKey)
  })

  it('refuses an invalid key, an empty name or an empty city', () => {
    expect(() => buildPixBrCode({ ...base, key: '123.456.789-00' })).toThrow(/key/)
    expect(() => buildPixBrCode({ ...base, key: '' })).toThrow(/key/)
    expect(() => buildPixBrCode({ ...base, beneficiaryName: ' 😀 ' })).toThrow(/name/)
    expect(() => buildPixBrCode({ ...base, beneficiaryCity: '' })).toThrow(/city/)
  })
})

describe('parsePixBrCode', () => {
  it('reads the Banco Central manual example', () => {
    expect(parsePixBrCode(bcbManualCode)).toEqual({
      key: bcbKey,
      beneficiaryName: 'Fulano de Tal',
      beneficiaryCity: 'BRASILIA',
      txid: '***',
      crcValid: true,
      fields: {
        '00': '01',
        '26': `0014br.gov.bcb.pix0136${bcbKey}`,
        '26.00': 'br.gov.bcb.pix',
        '26.01': bcbKey,
        '52': '0000',
        '53': '986',
        '58': 'BR',
        '59': 'Fulano de Tal',
        '60': 'BRASILIA',
        '62': '0503***',
        '62.05': '***',
        '63': '1D3D',
      },
    })
  })

  it('tolerates whitespace around a pasted code', () => {
    expect(parsePixBrCode(` ${bcbManualCode}\n`).crcValid).toBe(true)
  })

  it('reports a wrong checksum without throwing', () => {
    expect(parsePixBrCode(`${bcbBody}1D3E`).crcValid).toBe(false)
    expect(parsePixBrCode(`${bcbBody}1d3d`).crcValid).toBe(false)
  })

  it.each([
    ['an empty string', '', /start with 000201/],
    ['a code that does not start with 000201', bcbManualCode.replace('000201', '000202'), /000201/],
    ['a length that is not two digits', `0002012x${bcbManualCode.slice(8)}`, /malformed/],
    ['a cut-short code', bcbManualCode.slice(0, 40), /cut short/],
    ['a code without CRC', bcbBody.slice(0, -4), /CRC/],
    ['a CRC with the wrong length', `${bcbBody.slice(0, -4)}63031D3`, /CRC/],
    ['a repeated field', bcbManualCode.replace('5802BR', '5802BR5802BR'), /twice/],
    ['a code without a pix account', bcbManualCode.replace('br.gov.bcb.pix', 'br.gov.bcb.xyz'), /br\.gov\.bcb\.pix/],
    ['a code without a name', bcbManualCode.replace('5913Fulano de Tal', ''), /name/],
    ['a code without a city', bcbManualCode.replace('6008BRASILIA', ''), /city/],
    ['a code without a txid', bcbManualCode.replace('62070503***', ''), /txid/],
    ['a malformed amount', bcbManualCode.replace('5802BR', '54041,005802BR'), /amount/],
    ['a malformed template', bcbManualCode.replace('62070503***', '62070599***'), /cut short/],
  ])('throws a clear error for %s', (_label, code, message) => {
    expect(() => parsePixBrCode(code)).toThrow(message)
  })
})

describe('pixKeyKind and normalizePixKey', () => {
  it.each([
    ['123.456.789-09', 'cpf', '12345678909'],
    ['12345678909', 'cpf', '12345678909'],
    ['12.345.678/0001-95', 'cnpj', '12345678000195'],
    ['11222333000181', 'cnpj', '11222333000181'],
    ['Fulano.Tal@Example.com.BR', 'email', 'fulano.tal@example.com.br'],
    ['+5585999990000', 'phone', '+5585999990000'],
    ['+55 (85) 99999-0000', 'phone', '+5585999990000'],
    ['+55 85 3333-4444', 'phone', '+558533334444'],
    ['123E4567-E12B-12D1-A456-426655440000', 'evp', bcbKey],
    [`  ${bcbKey}  `, 'evp', bcbKey],
  ])('reads %j as a %s key, stored as %j', (input, kind, normalized) => {
    expect(pixKeyKind(input)).toBe(kind)
    expect(normalizePixKey(input)).toBe(normalized)
  })

  it.each([
    '',
    '123.456.789-00', // wrong check digits
    '111.111.111-11', // right check digits, but a known invalid CPF
    '12.345.678/0001-00',
    '00000000000000',
    '1234567890', // 10 digits
    '(85) 99999-0000', // a phone must be typed with +55
    '85999990000',
    '+1 202 555 0100',
    '+55859999900001', // 12 digits after +55
    'fulano@',
    'fulano@example',
    'ful ano@example.com',
    'josé@example.com',
    `${'a'.repeat(70)}@example.com`, // longer than 77
    '123e4567-e12b-12d1-a456-42665544000', // UUID one digit short
    '123e4567e12b12d1a456426655440000', // UUID without dashes
    'chave-aleatoria',
  ])('refuses %j', (input) => {
    expect(pixKeyKind(input)).toBeNull()
    expect(normalizePixKey(input)).toBeNull()
  })

  it('accepts every CPF and CNPJ with correct check digits', () => {
    const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n })
    fc.assert(
      fc.property(digits(9), (nine) => {
        const cpf = withCpfCheckDigits(nine)
        fc.pre(!/^(\d)\1+$/.test(cpf))
        expect(pixKeyKind(cpf)).toBe('cpf')
        expect(normalizePixKey(`${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`)).toBe(cpf)
      }),
    )
    fc.assert(
      fc.property(digits(12), (twelve) => {
        const cnpj = withCnpjCheckDigits(twelve)
        fc.pre(!/^(\d)\1+$/.test(cnpj))
        expect(pixKeyKind(cnpj)).toBe('cnpj')
      }),
    )
  })

  it('refuses a CPF whose last digit is changed', () => {
    const digits = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 9, maxLength: 9 })
    fc.assert(
      fc.property(digits, fc.integer({ min: 1, max: 9 }), (nine, shift) => {
        const cpf = withCpfCheckDigits(nine)
        const broken = cpf.slice(0, 10) + ((Number(cpf[10]) + shift) % 10)
        expect(pixKeyKind(broken)).toBeNull()
      }),
    )
  })
})

describe('BR Code properties', () => {
  const randomCase = (s: string) =>
    fc
      .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
      .map((upper) => [...s].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''))
  const digitString = (min: number, max: number) => fc.stringMatching(new RegExp(`^\\d{${min},${max}}$`))
  const digitArray = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n })

  // [as typed, as stored in the DICT]
  const keyArb: fc.Arbitrary<[string, string]> = fc.oneof(
    fc.uuid().chain((id) => randomCase(id).map((typed): [string, string] => [typed, id])),
    digitString(10, 11).map((n): [string, string] => [`+55${n}`, `+55${n}`]),
    digitArray(9)
      .map(withCpfCheckDigits)
      .filter((cpf) => !/^(\d)\1+$/.test(cpf))
      .map((cpf): [string, string] => [cpf, cpf]),
    digitArray(12)
      .map(withCnpjCheckDigits)
      .filter((cnpj) => !/^(\d)\1+$/.test(cnpj))
      .map((cnpj): [string, string] => [cnpj, cnpj]),
    fc
      .stringMatching(/^[a-z0-9]{1,20}(\.[a-z0-9_-]{1,10})?@[a-z0-9]{1,15}\.(com|com\.br|org)$/)
      .chain((email) => randomCase(email).map((typed): [string, string] => [typed, email])),
  )
  const cleanText = (max: number) =>
    fc.stringMatching(/^[A-Za-z0-9.,-]{1,8}( [A-Za-z0-9.,-]{1,8}){0,6}$/).filter((s) => s.length <= max)
  const cleanInput = fc.record({
    key: keyArb,
    beneficiaryName: cleanText(25),
    beneficiaryCity: cleanText(15),
    amountCents: fc.option(fc.integer({ min: 1, max: 999_999_999_999 }), { nil: undefined }),
    txid: fc.option(fc.stringMatching(/^[A-Za-z0-9]{1,25}$/), { nil: undefined }),
    description: fc.option(cleanText(72), { nil: undefined }),
  })

  it('reads back exactly what was built from clean inputs, with a valid CRC', () => {
    fc.assert(
      fc.property(cleanInput, ({ key: [typedKey, dictKey], description, ...rest }) => {
        const parsed = parsePixBrCode(buildPixBrCode({ ...rest, key: typedKey, description }))
        const room = 73 - dictKey.length
        const expectedDescription = description?.slice(0, room).trim() || undefined
        expect(parsed).toEqual({
          key: dictKey,
          ...(expectedDescription ? { description: expectedDescription } : {}),
          ...(rest.amountCents ? { amountCents: rest.amountCents } : {}),
          beneficiaryName: rest.beneficiaryName,
          beneficiaryCity: rest.beneficiaryCity,
          txid: rest.txid ?? '***',
          crcValid: true,
          fields: expect.any(Object),
        })
      }),
    )
  })

  const messyText = fc.string({
    unit: fc.oneof(
      fc.constantFrom('a', 'Z', '7', ' ', ' ', '-', '*', '\n', '\t', 'ç', 'ã', 'É', 'ü', 'ß', 'ñ', '€', '😀', '\u0301'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
    maxLength: 120,
  })

  it('stays printable ASCII within every length limit whatever the text', () => {
    fc.assert(
      fc.property(keyArb, messyText, messyText, messyText, messyText, (key, name, city, txid, description) => {
        const code = buildPixBrCode({
          key: key[0],
          beneficiaryName: `A${name}`,
          beneficiaryCity: `B${city}`,
          txid,
          description,
        })
        expect(code).toMatch(printableAscii)
        const parsed = parsePixBrCode(code)
        expect(parsed.crcValid).toBe(true)
        expect(parsed.beneficiaryName.length).toBeLessThanOrEqual(25)
        expect(parsed.beneficiaryCity.length).toBeLessThanOrEqual(15)
        expect(parsed.txid).toMatch(/^([A-Za-z0-9]{1,25}|\*\*\*)$/)
        expect(parsed.fields['26']?.length).toBeLessThanOrEqual(99)
        expect(parsed.beneficiaryName).toBe(parsed.beneficiaryName.trim())
      }),
    )
  })

  it('gives the same code for accented text as for the same text without accents', () => {
    const accents: Record<string, string> = { á: 'a', à: 'a', â: 'a', ã: 'a', é: 'e', ê: 'e', í: 'i', ó: 'o', ô: 'o' }
    Object.assign(accents, { õ: 'o', ú: 'u', ü: 'u', ç: 'c', Á: 'A', É: 'E', Ç: 'C', Ã: 'A', Ó: 'O', Ú: 'U' })
    const letters = [...Object.keys(accents), 'a', 'B', 'c', ' ', '1']
    const text = fc.string({ unit: fc.constantFrom(...letters), minLength: 1, maxLength: 40 })
    const plain = (s: string) => [...s].map((c) => accents[c] ?? c).join('')
    fc.assert(
      fc.property(text, text, text, (name, city, description) => {
        fc.pre(plain(name).trim() !== '' && plain(city).trim() !== '')
        const accented = buildPixBrCode({
          ...base,
          beneficiaryName: name,
          beneficiaryCity: city,
          description,
          txid: name,
        })
        const stripped = buildPixBrCode({
          ...base,
          beneficiaryName: plain(name),
          beneficiaryCity: plain(city),
          description: plain(description),
          txid: plain(name),
        })
        expect(accented).toBe(stripped)
      }),
    )
  })

  it('detects any single changed character before the checksum', () => {
    const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c))
    const codeAndChange = cleanInput.chain((input) => {
      const code = buildPixBrCode({ ...input, key: input.key[0] })
      return fc.tuple(fc.constant(code), fc.integer({ min: 0, max: code.length - 5 }), printable)
    })
    fc.assert(
      fc.property(codeAndChange, ([code, at, replacement]) => {
        fc.pre(code[at] !== replacement)
        const changed = code.slice(0, at) + replacement + code.slice(at + 1)
        let crcValid = false
        try {
          crcValid = parsePixBrCode(changed).crcValid
        } catch {
          // A broken structure is also a detected change.
        }
        expect(crcValid).toBe(false)
      }),
      { numRuns: 500 },
    )
  })
})

describe('buildDynamicPixBrCode', () => {
  const dynamicBase = { beneficiaryName: 'Fulano de Tal', beneficiaryCity: 'BRASILIA' }

  it('reproduces the Banco Central manual dynamic example (CRC 64E4)', () => {
    const code = buildDynamicPixBrCode({ ...dynamicBase, location: 'pix.example.com/8b3da2f39a4140d1a91abd93113bd441' })
    expect(code).toBe(
      '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd441' +
        '5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4',
    )
  })

  it('reads back the location and amount, with a valid CRC', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9.]{1,30}\/[A-Za-z0-9/]{1,40}$/),
        fc.integer({ min: 1, max: 99_999_999 }),
        (location, amountCents) => {
          const parsed = parseDynamicPixBrCode(buildDynamicPixBrCode({ ...dynamicBase, location, amountCents }))
          expect(parsed).toMatchObject({ location, amountCents, crcValid: true })
          expect(parsed.fields['01']).toBe('12')
          expect(parsed.fields['62.05']).toBe('***')
        },
      ),
    )
  })

  it.each([
    ['https://pix.example.com/abc', 'without scheme'],
    ['', 'without scheme'],
    [`pix.example.com/${'a'.repeat(70)}`, 'longer than 77'],
  ])('refuses the location %j', (location, message) => {
    expect(() => buildDynamicPixBrCode({ ...dynamicBase, location })).toThrow(message)
  })

  it('is not mistaken for a static code, and a static code has no location', () => {
    const dynamic = buildDynamicPixBrCode({ ...dynamicBase, location: 'pix.example.com/abc' })
    expect(() => parsePixBrCode(dynamic)).toThrow('dynamic codes are not supported')
    expect(() => parseDynamicPixBrCode(bcbManualCode)).toThrow('location (25)')
  })
})
