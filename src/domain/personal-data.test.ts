import { describe, expect, it } from 'vitest'
import {
  erasedEmail,
  isErasedEmail,
  piiSubstrings,
  piiValues,
  profileSnapshotKeys,
  providerPayloadKeys,
  scrubJson,
} from './personal-data'

describe('erasedEmail', () => {
  it('is unique per profile, undeliverable and recognised', () => {
    expect(erasedEmail('abc123')).toBe('excluido-abc123@invalid')
    expect(isErasedEmail(erasedEmail('abc123'))).toBe(true)
    expect(isErasedEmail('maria@example.com')).toBe(false)
    expect(isErasedEmail('excluido-x@invalid.com')).toBe(false)
  })
})

describe('piiValues / piiSubstrings', () => {
  it('keeps only strings long enough to mean something, and cuts only e-mails and numbers out of text', () => {
    const values = piiValues([
      'Maria Souza',
      ' ',
      'AB',
      '',
      null,
      42,
      'maria@example.com',
      '5585999990000',
      '[removido]',
    ])
    expect([...values]).toEqual(['Maria Souza', 'maria@example.com', '5585999990000'])
    expect(piiSubstrings(values)).toEqual(['maria@example.com', '5585999990000'])
  })
})

describe('scrubJson', () => {
  const values = piiValues(['Maria Souza', 'maria@example.com', '5585999990000', 'Loja da Maria'])
  const substrings = piiSubstrings(values)

  it('replaces the person wherever a value equals or contains their data, and nothing else', () => {
    const snapshot = {
      planId: 'plan_basic',
      amountCents: 9900,
      note: 'pago por maria@example.com via PIX',
      nested: [{ who: 'Maria Souza' }, { who: 'João' }],
      empty: null,
    }
    expect(scrubJson(snapshot, { values, substrings, keys: new Set() })).toEqual({
      planId: 'plan_basic',
      amountCents: 9900,
      note: 'pago por [removido] via PIX',
      nested: [{ who: '[removido]' }, { who: 'João' }],
      empty: null,
    })
  })

  it('blanks personal keys in records about the person, whatever they hold', () => {
    const before = { name: 'Maria Antiga', companyName: 'Outra Loja', roleId: 2 }
    expect(scrubJson(before, { values, substrings, keys: profileSnapshotKeys })).toEqual({
      name: '[removido]',
      companyName: '[removido]',
      roleId: 2,
    })
  })

  it('drops provider objects under personal keys (addresses) and keeps ids and amounts', () => {
    const payload = {
      data: {
        object: {
          id: 'in_1',
          customer: 'cus_1',
          customer_email: 'maria@example.com',
          customer_address: { city: 'Fortaleza' },
          amount_paid: 9900,
        },
      },
    }
    expect(scrubJson(payload, { values, substrings, keys: providerPayloadKeys })).toEqual({
      data: {
        object: {
          id: 'in_1',
          customer: 'cus_1',
          customer_email: '[removido]',
          customer_address: null,
          amount_paid: 9900,
        },
      },
    })
  })
})
