import { describe, expect, it } from 'vitest'
import { confirmPaymentInputSchema } from '@/domain/contracts/admin'
import { ApiError } from '@/web/lib/api'
import { serverFieldErrors } from '@/web/lib/form-errors'
import {
  confirmPaymentFormDefaults,
  confirmPaymentFormSchema,
  confirmPaymentServerFields,
  toConfirmPaymentInput,
} from './confirm-payment-form'

const e2e = 'E00000000202501011200abcdefghijk'

describe('confirm payment form', () => {
  it("starts at the invoice's amount in reais, with no E2E id", () => {
    expect(confirmPaymentFormDefaults({ amountCents: 4990 })).toEqual({ amount: '49,90', endToEndId: '' })
    expect(confirmPaymentFormDefaults({ amountCents: 123456 })).toEqual({ amount: '1234,56', endToEndId: '' })
  })

  it('turns the typed amount into centavos and leaves out an empty E2E id, in a body the contract accepts', () => {
    const values = confirmPaymentFormSchema.parse({ amount: ' 1.234,56 ', endToEndId: '' })
    const input = toConfirmPaymentInput(values)
    expect(input).toEqual({ amount_received_cents: 123456 })
    expect(confirmPaymentInputSchema.parse(input)).toEqual(input)
    const withId = toConfirmPaymentInput(confirmPaymentFormSchema.parse({ amount: '49,90', endToEndId: e2e }))
    expect(confirmPaymentInputSchema.parse(withId)).toEqual({ amount_received_cents: 4990, end_to_end_id: e2e })
  })

  it('refuses an empty or non-positive amount and an E2E id that is not 32 letters and digits', () => {
    const messages = (values: { amount: string; endToEndId: string }) =>
      confirmPaymentFormSchema.safeParse(values).error?.issues.map((issue) => issue.message)
    expect(messages({ amount: '', endToEndId: '' })).toContain('Informe o valor recebido.')
    expect(messages({ amount: '0,00', endToEndId: '' })).toEqual([
      'Informe um valor válido, maior que zero (ex.: 99,90).',
    ])
    expect(messages({ amount: '10', endToEndId: 'E2E-curto' })).toEqual([
      'O identificador da transação (E2E) tem 32 letras e números.',
    ])
  })

  it("puts the server's validation issues on the amount and E2E fields", () => {
    const error = new ApiError(400, 'validation_failed', 'Dados inválidos.', [
      { path: '/amount_received_cents', message: 'Informe o valor recebido.' },
      { path: '/end_to_end_id', message: 'O identificador da transação (E2E) tem 32 letras e números.' },
    ])
    expect(serverFieldErrors(error, confirmPaymentServerFields).map(({ field }) => field)).toEqual([
      'amount',
      'endToEndId',
    ])
  })
})
