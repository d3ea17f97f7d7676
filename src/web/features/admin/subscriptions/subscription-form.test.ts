import { describe, expect, it } from 'vitest'
import { adminSubscriptionInputSchema } from '@/domain/contracts/admin'
import {
  type AdminSubscription,
  subscriptionFormDefaults,
  subscriptionFormSchema,
  toSubscriptionInput,
} from './subscription-form'

const subscription: AdminSubscription = {
  id: 'sub_1',
  status: 'active',
  billingMethod: 'pix',
  planId: 'plan_basic',
  plan: { id: 'plan_basic', name: 'Básico', priceCents: 9900 },
  customer: { id: 'user_1', name: 'Ana', email: 'ana@example.com' },
  currentPeriodStart: '2026-01-10T14:30:00.000Z',
  currentPeriodEnd: '2026-02-10T14:30:00.000Z',
  cancelAtPeriodEnd: false,
  createdAt: '2026-01-10T14:30:00.000Z',
}

describe('subscription form', () => {
  it('starts a new subscription active, from today for one month', () => {
    expect(subscriptionFormDefaults(null, '2026-01-31')).toEqual({
      customer: null,
      planId: '',
      status: 'active',
      start: '2026-01-31',
      end: '2026-02-28',
      cancelAtPeriodEnd: false,
    })
  })

  it('keeps the exact instants of untouched dates and a valid body for the contract', () => {
    const values = subscriptionFormSchema.parse(subscriptionFormDefaults(subscription, '2026-03-01'))
    const input = toSubscriptionInput(values, subscription)
    expect(input).toEqual({
      user_id: 'user_1',
      plan_id: 'plan_basic',
      status: 'active',
      current_period_start: '2026-01-10T14:30:00.000Z',
      current_period_end: '2026-02-10T14:30:00.000Z',
      cancel_at_period_end: false,
    })
    expect(adminSubscriptionInputSchema.safeParse(input).success).toBe(true)
  })

  it('starts a changed date at midnight in Fortaleza (UTC-3)', () => {
    const values = subscriptionFormSchema.parse({ ...subscriptionFormDefaults(subscription, ''), end: '2026-03-01' })
    expect(toSubscriptionInput(values, subscription).current_period_end).toBe('2026-03-01T03:00:00.000Z')
  })

  it('asks for a customer and an end after the start', () => {
    const result = subscriptionFormSchema.safeParse({
      ...subscriptionFormDefaults(null, '2026-01-10'),
      planId: 'plan_basic',
      end: '2026-01-10',
    })
    const messages = (result.error?.issues ?? []).map((i) => [i.path.join('.'), i.message])
    expect(messages).toEqual([
      ['customer', 'Selecione o cliente.'],
      ['end', 'A data de término deve ser posterior à de início.'],
    ])
  })
})
