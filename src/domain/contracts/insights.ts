import { z } from 'zod'

const waitingPayment = z.object({
  id: z.string(),
  amountCents: z.number().int(),
  createdAt: z.string(),
  ageSeconds: z.number().int(),
  customerName: z.string(),
  status: z.string(),
})

export const insightsMonthSchema = z.object({
  /** First day of the month (YYYY-MM-01), America/Sao_Paulo. */
  month: z.string(),
  mrrStartCents: z.number().int(),
  mrrEndCents: z.number().int(),
  newCents: z.number().int(),
  expansionCents: z.number().int(),
  contractionCents: z.number().int(),
  churnedCents: z.number().int(),
  reactivatedCents: z.number().int(),
  /** mrrEndCents − mrrStartCents = new + expansion + reactivated − contraction − churned. */
  netCents: z.number().int(),
  customersStart: z.number().int(),
  customersEnd: z.number().int(),
  newCustomers: z.number().int(),
  churnedCustomers: z.number().int(),
  reactivatedCustomers: z.number().int(),
  /** churnedCustomers / customersStart (null without customers at the start). */
  logoChurnRate: z.number().nullable(),
  /** (churnedCents + contractionCents) / mrrStartCents (null without MRR at the start). */
  revenueChurnRate: z.number().nullable(),
  revenuePixCents: z.number().int(),
  revenueCardCents: z.number().int(),
  revenueManualCents: z.number().int(),
  pixAutoCount: z.number().int(),
  pixAutoP50Seconds: z.number().int().nullable(),
  pixAutoP95Seconds: z.number().int().nullable(),
  pixManualCount: z.number().int(),
  pixManualP50Seconds: z.number().int().nullable(),
  pixManualP95Seconds: z.number().int().nullable(),
})
export type InsightsMonth = z.infer<typeof insightsMonthSchema>

/** GET /api/admin/insights: the admin home ('Visão geral do negócio'). */
export const adminInsightsSchema = z
  .object({
    now: z.string(),
    pixProvider: z.enum(['manual', 'api-pix']),
    current: z.object({
      mrrCents: z.number().int(),
      byPlan: z.array(
        z.object({ planId: z.string(), planName: z.string(), count: z.number().int(), mrrCents: z.number().int() }),
      ),
      byMethod: z.array(
        z.object({ method: z.enum(['pix', 'card']), count: z.number().int(), mrrCents: z.number().int() }),
      ),
      receivables: z.object({
        count: z.number().int(),
        totalCents: z.number().int(),
        dueCount: z.number().int(),
        dueCents: z.number().int(),
        overdueCount: z.number().int(),
        overdueCents: z.number().int(),
      }),
      pastDue: z.number().int(),
      cancellationsThisMonth: z.number().int(),
    }),
    needsYou: z.object({
      pixAwaiting: z.object({ count: z.number().int(), oldest: z.array(waitingPayment) }),
      inReview: z.object({ count: z.number().int(), oldest: z.array(waitingPayment) }),
      failedDeliveries: z.object({
        count: z.number().int(),
        oldest: z.array(
          z.object({
            id: z.string(),
            type: z.string(),
            attempts: z.number().int(),
            lastError: z.string().nullable(),
            createdAt: z.string(),
          }),
        ),
      }),
    }),
    months: z.array(insightsMonthSchema),
    /** When the monthly figures were computed (the billing tick refreshes them). */
    refreshedAt: z.string().nullable(),
  })
  .meta({ id: 'AdminInsights' })
export type AdminInsights = z.infer<typeof adminInsightsSchema>
