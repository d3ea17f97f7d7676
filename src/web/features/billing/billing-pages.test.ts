import { describe, expect, it } from 'vitest'
import type { Payment, PaymentReceipt } from '@/domain/contracts/billing'
import { receiptHref, subscriptionReference } from './payments-page'
import { readReceipt } from './receipt-page'

const payment: Payment = {
  id: 'f3b1c2d4-0000-4000-8000-000000000001',
  subscriptionId: 'a1b2c3d4e5f6-0000-4000-8000-000000000002',
  amountCents: 9900,
  status: 'paid',
  currency: 'BRL',
  paymentMethod: 'pix',
  type: 'new',
  targetPlanId: null,
  dueDate: '2026-01-04T12:00:00.000Z',
  paidAt: '2026-01-02T12:00:00.000Z',
  createdAt: '2026-01-01T12:00:00.000Z',
  receiptUrl: null,
  metadata: {},
  plan: { id: 'plan_basic', name: 'Básico', priceCents: 9900 },
}

describe('payments page helpers', () => {
  it('names the subscription by its plan, or by the first 8 characters of its id', () => {
    expect(subscriptionReference(payment)).toBe('Básico')
    expect(subscriptionReference({ ...payment, plan: null })).toBe('a1b2c3d4')
  })

  it('links a paid invoice without a provider receipt to our receipt page', () => {
    expect(receiptHref(payment)).toBe(`/dashboard/payments/${payment.id}/receipt`)
    expect(receiptHref({ ...payment, receiptUrl: 'https://pay.stripe.com/r/1' })).toBe('https://pay.stripe.com/r/1')
    expect(receiptHref({ ...payment, status: 'failed' })).toBeNull()
  })
})

describe('readReceipt', () => {
  it('reads the server contract', () => {
    const receipt: PaymentReceipt = {
      payment,
      plan: { id: 'plan_basic', name: 'Básico', priceCents: 9900 },
      customer: { name: 'Ana', companyName: 'Loja da Ana', email: 'ana@example.com' },
      company: { legalName: 'Empresa LTDA', cnpj: '00.000.000/0001-00', address: 'Rua A, Itaitinga - CE' },
      paidAt: '2026-01-02T12:00:00.000Z',
      method: 'manual_confirmation',
      pixEndToEndId: 'E12345678202601021200abcdefghijk',
      amountCents: 9900,
    }
    expect(readReceipt(receipt)).toMatchObject({
      paymentId: payment.id,
      amountCents: 9900,
      planName: 'Básico',
      customerName: 'Ana',
      customerCompany: 'Loja da Ana',
      companyName: 'Empresa LTDA',
      companyCnpj: '00.000.000/0001-00',
      method: 'manual_confirmation',
      pixEndToEndId: 'E12345678202601021200abcdefghijk',
    })
  })
})
