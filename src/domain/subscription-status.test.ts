import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  canCustomerCancel,
  canUpgrade,
  isPaymentStatus,
  isSubscriptionStatus,
  paymentMethods,
  paymentStatusBadge,
  paymentStatuses,
  paymentStatusLabel,
  subscriptionStatusBadge,
  subscriptionStatuses,
  subscriptionStatusLabel,
} from './subscription-status.ts'

describe('subscription statuses', () => {
  it('lists the five statuses of the spec', () => {
    expect(subscriptionStatuses).toEqual(['active', 'trialing', 'canceled', 'past_due', 'pending_pix'])
  })

  it('shows the admin labels from the spec', () => {
    expect(subscriptionStatusLabel).toEqual({
      active: 'Ativa',
      trialing: 'Testando',
      canceled: 'Cancelada',
      past_due: 'Vencida',
      pending_pix: 'Aguardando Pagamento PIX',
    })
  })

  it('styles active and trialing as default, pending_pix as secondary, the rest as destructive', () => {
    expect(subscriptionStatusBadge).toEqual({
      active: 'default',
      trialing: 'default',
      canceled: 'destructive',
      past_due: 'destructive',
      pending_pix: 'secondary',
    })
  })

  it('lets a customer cancel an active or trialing subscription that is not already scheduled to end', () => {
    expect(canCustomerCancel('active', false)).toBe(true)
    expect(canCustomerCancel('trialing', false)).toBe(true)
    expect(canCustomerCancel('active', true)).toBe(false)
    expect(canCustomerCancel('trialing', true)).toBe(false)
    for (const status of ['canceled', 'past_due', 'pending_pix'] as const) {
      expect(canCustomerCancel(status, false)).toBe(false)
      expect(canCustomerCancel(status, true)).toBe(false)
    }
  })

  it('offers upgrades only to active or trialing subscriptions', () => {
    expect(subscriptionStatuses.filter(canUpgrade)).toEqual(['active', 'trialing'])
  })

  it('recognizes only known statuses', () => {
    for (const status of subscriptionStatuses) expect(isSubscriptionStatus(status)).toBe(true)
    for (const value of ['Active', 'cancelled', '', null, 1, undefined]) expect(isSubscriptionStatus(value)).toBe(false)
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(isSubscriptionStatus(s)).toBe((subscriptionStatuses as readonly string[]).includes(s))
      }),
    )
  })
})

describe('payment statuses', () => {
  it('shows a Portuguese label for each status', () => {
    expect(paymentStatuses).toEqual(['pending', 'pending_pix', 'paid', 'failed', 'void', 'review'])
    expect(paymentStatusLabel).toEqual({
      pending: 'Pendente',
      pending_pix: 'Aguardando PIX',
      paid: 'Pago',
      failed: 'Falhou',
      void: 'Cancelado',
      review: 'Em análise',
    })
  })

  it('styles paid as default, pending ones as secondary and any other as destructive', () => {
    expect(paymentStatusBadge).toEqual({
      pending: 'secondary',
      pending_pix: 'secondary',
      paid: 'default',
      failed: 'destructive',
      void: 'destructive',
      review: 'destructive',
    })
  })

  it('recognizes only known statuses', () => {
    for (const status of paymentStatuses) expect(isPaymentStatus(status)).toBe(true)
    for (const value of ['Paid', 'canceled', '', null, 0]) expect(isPaymentStatus(value)).toBe(false)
  })

  it('knows the three payment methods', () => {
    expect(paymentMethods).toEqual(['pix', 'card', 'manual_confirmation'])
  })
})
