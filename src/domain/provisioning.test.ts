import { describe, expect, it } from 'vitest'
import { type LastProvisioned, platformTransition } from './provisioning.ts'
import type { SubscriptionStatus } from './subscription-status.ts'

const plan = { planId: 'plan_basic', boxQuantity: 1, agentQuantity: 2 }
const told = (state: 'active' | 'ended', changes: Partial<typeof plan> = {}): LastProvisioned => ({
  state,
  ...plan,
  ...changes,
})

describe('platformTransition', () => {
  it.each<[SubscriptionStatus, LastProvisioned, ReturnType<typeof platformTransition>]>([
    // never told
    ['active', null, 'subscription.activated'],
    ['trialing', null, 'subscription.activated'],
    ['past_due', null, 'subscription.activated'],
    ['pending_pix', null, null],
    ['canceled', null, null],
    // told it ended
    ['active', told('ended'), 'subscription.activated'],
    ['past_due', told('ended', { planId: 'plan_pro' }), 'subscription.activated'],
    ['canceled', told('ended'), null],
    ['pending_pix', told('ended'), null],
    // told it is active
    ['active', told('active'), null],
    ['trialing', told('active'), null],
    ['past_due', told('active'), null],
    ['canceled', told('active'), 'subscription.ended'],
    ['pending_pix', told('active'), 'subscription.ended'],
    ['active', told('active', { planId: 'plan_pro' }), 'subscription.plan_changed'],
    ['active', told('active', { boxQuantity: 3 }), 'subscription.plan_changed'],
    ['trialing', told('active', { agentQuantity: 5 }), 'subscription.plan_changed'],
    ['canceled', told('active', { planId: 'plan_pro' }), 'subscription.ended'],
  ])('%s, last told %o: %s', (status, last, expected) => {
    expect(platformTransition(status, last, plan)).toBe(expected)
  })
})
