// PIX Automático (issue 12): what the customer's and the admin's screens read. Server routes answer with these
// schemas and the web parses with them.
import { z } from 'zod'

/** A subscription's automatic renewal as the customer sees it (GET /api/subscriptions/:id/pix-automatico). */
export const autoRenewalSchema = z.object({
  state: z.enum(['aguardando_autorizacao', 'ativa', 'cancelada_pelo_banco', 'desativada', 'recusada']),
  label: z.string(),
  idRec: z.string(),
  amountCents: z.number().int(),
  nextDebitDate: z.string().nullable(),
  dayOfMonth: z.number().int().nullable(),
  copiaECola: z.string().nullable(),
})
export type AutoRenewal = z.infer<typeof autoRenewalSchema>

/** Every status a recurrence or recurring charge went through, with when and why. */
export const statusHistorySchema = z.array(
  z.object({ status: z.string(), at: z.string(), source: z.string(), detail: z.string().optional() }),
)

/** GET /api/admin/subscriptions/:id/pix-automatico: the recurrences and recurring charges, with their history. */
export const automaticoAdminViewSchema = z.object({
  recurrences: z.array(
    z.object({
      id: z.string(),
      idRec: z.string(),
      status: z.string(),
      state: z.string(),
      amountCents: z.number().int(),
      planId: z.string(),
      cancelledBy: z.string().nullable(),
      endReason: z.string().nullable(),
      createdAt: z.string(),
      approvedAt: z.string().nullable(),
      endedAt: z.string().nullable(),
      history: statusHistorySchema,
    }),
  ),
  charges: z.array(
    z.object({
      id: z.string(),
      txid: z.string(),
      paymentId: z.string(),
      dueDate: z.string(),
      amountCents: z.number().int(),
      status: z.string(),
      rejection: z.string().nullable(),
      retryDates: z.array(z.string()),
      attempts: z.array(
        z.object({
          date: z.string(),
          type: z.string(),
          status: z.string(),
          code: z.string().optional(),
          reason: z.string().nullable(),
        }),
      ),
      fallbackAt: z.string().nullable(),
      history: statusHistorySchema,
    }),
  ),
})
export type AutomaticoAdminView = z.infer<typeof automaticoAdminViewSchema>
