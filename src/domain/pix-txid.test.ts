import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isChargeTxid, paymentIdFromTxid, pixTxidFor } from './pix-txid.ts'

describe('pixTxidFor', () => {
  it('drops the hyphens of the payment UUID', () => {
    expect(pixTxidFor('0f6f2c1e-8a4b-4c1d-9e2f-3a4b5c6d7e8f')).toBe('0f6f2c1e8a4b4c1d9e2f3a4b5c6d7e8f')
  })

  it('always gives 26 to 35 letters and digits', () => {
    fc.assert(
      fc.property(fc.uuid(), (id) => {
        const txid = pixTxidFor(id)
        expect(txid).toMatch(/^[a-zA-Z0-9]{26,35}$/)
        expect(isChargeTxid(txid)).toBe(true)
      }),
    )
  })

  it('is deterministic: a retried create uses the same txid', () => {
    fc.assert(
      fc.property(fc.uuid(), (id) => {
        expect(pixTxidFor(id)).toBe(pixTxidFor(id))
      }),
    )
  })

  it('gives distinct txids for distinct ids, and maps back to the id', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), (a, b) => {
        fc.pre(a !== b)
        expect(pixTxidFor(a)).not.toBe(pixTxidFor(b))
      }),
    )
    fc.assert(
      fc.property(fc.uuid(), (id) => {
        expect(paymentIdFromTxid(pixTxidFor(id))).toBe(id)
      }),
    )
  })

  it('keeps the case, so two ids differing only in case stay distinct', () => {
    const lower = 'abcdef01-2345-4789-abcd-ef0123456789'
    expect(pixTxidFor(lower.toUpperCase())).not.toBe(pixTxidFor(lower))
  })

  it.each(['', 'pay_1', '0f6f2c1e8a4b4c1d9e2f3a4b5c6d7e8f', '0f6f2c1e-8a4b-4c1d-9e2f-3a4b5c6d7e8g'])(
    'refuses an id that is not a UUID (%j)',
    (id) => {
      expect(() => pixTxidFor(id)).toThrow(RangeError)
    },
  )
})

describe('paymentIdFromTxid', () => {
  it('returns null for txids we did not derive (static codes, forgeries)', () => {
    expect(paymentIdFromTxid('ASSabc123')).toBeNull()
    expect(paymentIdFromTxid('z'.repeat(32))).toBeNull()
    expect(paymentIdFromTxid('0f6f2c1e8a4b4c1d9e2f3a4b5c6d7e8f0')).toBeNull()
  })
})

describe('isChargeTxid', () => {
  it.each([
    ['a'.repeat(25), false],
    ['a'.repeat(26), true],
    ['a'.repeat(35), true],
    ['a'.repeat(36), false],
    [`${'a'.repeat(30)}-`, false],
    [`${'a'.repeat(30)}_`, false],
  ])('%s -> %s', (txid, ok) => expect(isChargeTxid(txid)).toBe(ok))
})
