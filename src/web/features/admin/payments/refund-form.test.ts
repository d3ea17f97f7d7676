import { describe, expect, it } from 'vitest'
import { pixRefundInputSchema } from '@/domain/contracts/pix-api'
import { readRefund, refundableCents, refundAmountDefault } from './refund-form'

describe('refund form', () => {
  it('offers what was received less what was already refunded, in reais', () => {
    const available = refundableCents({ amountCents: 4990, amountReceivedCents: 5000, refundedCents: 1000 })
    expect(available).toBe(4000)
    expect(refundAmountDefault(available)).toBe('40,00')
    expect(refundableCents({ amountCents: 4990, amountReceivedCents: null, refundedCents: 0 })).toBe(4990)
  })

  it('builds a body the contract accepts, with the reason trimmed', () => {
    const read = readRefund({ amount: '10,00', reason: '  Cobrança em dobro ' }, 4990)
    expect(read).toEqual({ input: { amount_cents: 1000, reason: 'Cobrança em dobro' } })
    if ('input' in read) expect(pixRefundInputSchema.parse(read.input)).toEqual(read.input)
  })

  it('marks the amount when it is zero, unreadable or more than is available', () => {
    for (const amount of ['0', 'abc', '49,91']) {
      expect(readRefund({ amount, reason: 'Cobrança em dobro' }, 4990)).toEqual({
        field: 'amount',
        error: 'Informe um valor entre R$ 0,01 e R$\u00a049,90.',
      })
    }
  })

  it('marks the reason when it has fewer than 3 letters', () => {
    expect(readRefund({ amount: '1', reason: ' ok ' }, 4990)).toEqual({
      field: 'reason',
      error: 'Informe o motivo da devolução.',
    })
  })
})
