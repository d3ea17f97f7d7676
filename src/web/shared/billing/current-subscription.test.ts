import { describe, expect, it } from 'vitest'
import type { Subscription } from '@/domain/contracts/billing'
import { currentSubscription } from './current-subscription'

describe('currentSubscription', () => {
  const base = {
    userId: 'u',
    planId: 'plan_basic',
    plan: { id: 'plan_basic', name: 'Básico', priceCents: 9900, boxQuantity: 1, agentQuantity: 1 },
    billingMethod: 'pix',
    currentPeriodStart: '2026-01-01T00:00:00.000Z',
    currentPeriodEnd: '2026-02-01T00:00:00.000Z',
    cancelAtPeriodEnd: false,
    canceledAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  } as const
  it('is the newest subscription that is not canceled', () => {
    const list: Subscription[] = [
      { ...base, id: 'new', status: 'canceled' },
      { ...base, id: 'pix', status: 'pending_pix' },
      { ...base, id: 'old', status: 'active' },
    ]
    expect(currentSubscription(list)?.id).toBe('pix')
    expect(currentSubscription([{ ...base, id: 'c', status: 'canceled' }])).toBeUndefined()
  })
})
