import { describe, expect, it } from 'vitest'
import { pixCallbackItems } from './pix-callback'

const e2e = (n: number) => `E12345678202605011000${String(n).padStart(11, '0')}`

describe('pixCallbackItems', () => {
  it('reads the specification body and a root array (Banco Inter)', () => {
    const item = { endToEndId: e2e(1), txid: 'a'.repeat(32), valor: '49.90', horario: '2026-05-01T10:00:00Z' }
    expect(pixCallbackItems({ pix: [item] })).toEqual([{ endToEndId: e2e(1), txid: 'a'.repeat(32) }])
    expect(pixCallbackItems([item])).toEqual([{ endToEndId: e2e(1), txid: 'a'.repeat(32) }])
  })

  it('keeps each endToEndId once and skips malformed items', () => {
    const items = pixCallbackItems({
      pix: [
        { endToEndId: e2e(1), txid: 'T1' },
        { endToEndId: e2e(1), txid: 'T1' },
        { endToEndId: 'short', txid: 'T2' },
        { txid: 'T3' },
        null,
        { endToEndId: e2e(2), txid: 'bad-txid' },
      ],
    })
    expect(items).toEqual([{ endToEndId: e2e(1), txid: 'T1' }, { endToEndId: e2e(2) }])
  })

  it('names nothing for a probe, and refuses a body that is no JSON object or array', () => {
    expect(pixCallbackItems({ evento: 'teste_webhook' })).toEqual([])
    expect(pixCallbackItems({ pix: { endToEndId: e2e(1) } })).toEqual([])
    expect(pixCallbackItems('pix')).toBeNull()
    expect(pixCallbackItems(null)).toBeNull()
  })
})
