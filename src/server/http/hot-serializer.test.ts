import { expect, it } from 'vitest'
import { sessionSchema } from '../../domain/contracts/auth'
import { paymentPageSchema } from '../../domain/contracts/billing'
import { hotSerializer } from './hot-serializer'

const route = (schema: unknown, httpStatus: string) => ({ schema, method: 'GET', url: '/x', httpStatus }) as never

it('sends in production exactly what the contract would, and still checks it elsewhere', () => {
  const page = {
    items: [
      {
        id: 'p1',
        subscriptionId: 's1',
        amountCents: 9900,
        status: 'paid',
        currency: 'BRL',
        paymentMethod: 'pix',
        type: 'renewal',
        targetPlanId: null,
        dueDate: '2026-01-01T00:00:00.000Z',
        paidAt: '2026-01-01T01:00:00.000Z',
        createdAt: '2025-12-29T00:00:00.000Z',
        receiptUrl: '/dashboard/payments/p1/receipt',
        metadata: { type: 'renewal' },
        plan: { id: 'plan_pro', name: 'Profissional', priceCents: 9900 },
        refundedCents: 100,
      },
    ],
    total: 1,
    page: 1,
    pageSize: 20,
  }
  const fast = hotSerializer(true)(route(paymentPageSchema, '200'))
  const checked = hotSerializer(false)(route(paymentPageSchema, '200'))
  expect(fast(page)).toBe(checked(page))
  const user = {
    id: 'u1',
    name: 'Ana',
    email: 'ana@example.com',
    companyName: '',
    whatsappNumber: '',
    roleId: 2,
    isAdmin: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    twoFactorEnabled: false,
    mustEnableTwoFactor: false,
  }
  expect(hotSerializer(true)(route(sessionSchema, '200'))({ user })).toBe(
    hotSerializer(false)(route(sessionSchema, '200'))({ user }),
  )
  // Outside production a drifting answer is refused, as on every other route.
  expect(() => checked({ ...page, total: 'one' })).toThrow()
})
