// API Pix (PIX_PROVIDER=api-pix): admin actions and figures.
import { z } from 'zod'

export const pixRefundStatusSchema = z.enum(['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO'])

export const pixRefundSchema = z
  .object({
    id: z.string(),
    amountCents: z.number().int(),
    reason: z.string(),
    status: pixRefundStatusSchema,
    createdAt: z.string(),
  })
  .meta({ id: 'PixRefund' })
export type PixRefund = z.infer<typeof pixRefundSchema>

/** POST /api/admin/payments/:id/refund: full or partial refund of a PIX received, with a reason. */
export const pixRefundInputSchema = z.strictObject({
  amount_cents: z.number().int().positive('Informe o valor a devolver.'),
  reason: z.string().trim().min(3, 'Informe o motivo da devolução.').max(140, 'O motivo tem no máximo 140 caracteres.'),
})

export const pixRefundResultSchema = z.object({
  refund: pixRefundSchema,
  refundedCents: z.number().int(),
  refunds: z.array(pixRefundSchema),
})

export const pixWebhookResultSchema = z.object({ chave: z.string(), webhookUrl: z.string() })

/** GET /api/admin/pix/overview: confirmation latency of the last 30 days and invoices waiting for an admin. */
export const pixOverviewSchema = z
  .object({
    provider: z.enum(['manual', 'api-pix']),
    latencyP50Seconds: z.number().int().nullable(),
    latencyP95Seconds: z.number().int().nullable(),
    confirmedLast30Days: z.number().int(),
    confirmedAutomatically: z.number().int(),
    waitingOver12h: z.number().int(),
    oldestWaiting: z.array(z.object({ id: z.string(), amountCents: z.number().int(), createdAt: z.string() })),
  })
  .meta({ id: 'PixOverview' })
export type PixOverview = z.infer<typeof pixOverviewSchema>
