import { describe, expect, it } from 'vitest'
import {
  billingMethodLabel,
  billingMethods,
  hasOwnReceipt,
  isAdminRole,
  isBillingMethod,
  isPaymentType,
  isRoleId,
  ownReceiptPath,
  paymentMethodLabel,
  paymentTypeLabel,
  paymentTypes,
  roleIdList,
  roleIds,
  roleLabel,
} from './billing-vocabulary.ts'
import {
  isOpenPayment,
  isProvisioned,
  isUnsettledPayment,
  openPaymentStatuses,
  paymentMethods,
  paymentStatuses,
  provisionedStatuses,
  subscriptionStatuses,
  unsettledPaymentStatuses,
} from './subscription-status.ts'

describe('payment types and billing methods', () => {
  it('lists the three invoice types and the two billing methods', () => {
    expect(paymentTypes).toEqual(['new', 'upgrade', 'renewal'])
    expect(billingMethods).toEqual(['pix', 'card'])
  })

  it('labels every type and method in Portuguese', () => {
    expect(paymentTypeLabel).toEqual({ new: 'Nova assinatura', upgrade: 'Upgrade', renewal: 'Renovação' })
    expect(billingMethodLabel).toEqual({ pix: 'PIX', card: 'Cartão' })
    expect(paymentMethodLabel).toEqual({ pix: 'PIX', card: 'Cartão', manual_confirmation: 'Confirmação manual' })
    expect(Object.keys(paymentMethodLabel)).toEqual([...paymentMethods])
  })

  it('recognises only the listed values', () => {
    for (const t of paymentTypes) expect(isPaymentType(t)).toBe(true)
    for (const m of billingMethods) expect(isBillingMethod(m)).toBe(true)
    for (const other of ['', 'NEW', 'manual_confirmation', 1, null, undefined]) {
      expect(isPaymentType(other)).toBe(false)
      expect(isBillingMethod(other)).toBe(false)
    }
  })
})

describe('roles', () => {
  it('keeps the spec numbers: 1 admin, 2 user', () => {
    expect(roleIds).toEqual({ admin: 1, user: 2 })
    expect(roleIdList).toEqual([1, 2])
    expect(roleLabel).toEqual({ 1: 'Administrador', 2: 'Cliente' })
  })

  it.each([
    [1, true, true],
    [2, true, false],
    [0, false, false],
    [3, false, false],
  ])('role %s: a role id %s, an admin %s', (id, valid, admin) => {
    expect(isRoleId(id)).toBe(valid)
    expect(isAdminRole(id)).toBe(admin)
  })
})

describe('open, unsettled and provisioned statuses', () => {
  it.each([
    ['pending', true, true],
    ['pending_pix', true, true],
    ['review', false, true],
    ['paid', false, false],
    ['failed', false, false],
    ['void', false, false],
  ] as const)('a %s invoice: open %s, unsettled %s', (status, open, unsettled) => {
    expect(isOpenPayment(status)).toBe(open)
    expect(isUnsettledPayment(status)).toBe(unsettled)
  })

  it('derives the SQL lists from the tables, in tuple order', () => {
    expect(openPaymentStatuses).toEqual(['pending', 'pending_pix'])
    expect(unsettledPaymentStatuses).toEqual(['pending', 'pending_pix', 'review'])
    expect(openPaymentStatuses).toEqual(paymentStatuses.filter(isOpenPayment))
  })

  it.each([
    ['active', true],
    ['trialing', true],
    ['past_due', true],
    ['canceled', false],
    ['pending_pix', false],
  ] as const)('a %s subscription is provisioned: %s', (status, expected) => {
    expect(isProvisioned(status)).toBe(expected)
  })

  it('lists the provisioned statuses for SQL', () => {
    expect(provisionedStatuses).toEqual(['active', 'trialing', 'past_due'])
    expect(provisionedStatuses).toEqual(subscriptionStatuses.filter(isProvisioned))
  })
})

describe('own receipts', () => {
  it('points at the dashboard receipt route', () => {
    expect(ownReceiptPath('pay_1')).toBe('/dashboard/payments/pay_1/receipt')
  })

  it.each([
    ['paid', 'pix', true],
    ['paid', 'manual_confirmation', true],
    ['paid', 'card', false],
    ['pending_pix', 'pix', false],
  ] as const)('a %s %s invoice has our receipt: %s', (status, paymentMethod, expected) => {
    expect(hasOwnReceipt({ status, paymentMethod })).toBe(expected)
  })
})
