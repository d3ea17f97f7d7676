import { z } from 'zod'
import { whatsappNumberSchema } from './auth'

export const codeStatusQuerySchema = z.strictObject({ phone_number: whatsappNumberSchema })

/** How the newest sign-up code sent to a number is doing; `reason` (Portuguese) when Meta could not deliver it. */
export const codeStatusSchema = z.object({
  status: z.enum(['none', 'pending', 'sent', 'delivered', 'read', 'failed']),
  reason: z.string().nullable(),
})
export type CodeStatus = z.infer<typeof codeStatusSchema>

export const whatsappMessageStatusSchema = z.enum(['received', 'accepted', 'sent', 'delivered', 'read', 'failed'])

export const adminWhatsAppMessageSchema = z.object({
  id: z.string(),
  direction: z.enum(['inbound', 'outbound']),
  kind: z.string(),
  phone: z.string(),
  body: z.string(),
  template: z.string().nullable(),
  status: whatsappMessageStatusSchema,
  errorCode: z.number().nullable(),
  errorTitle: z.string().nullable(),
  notificationId: z.string().nullable(),
  createdAt: z.string(),
  statuses: z.array(
    z.object({
      status: z.string(),
      errorCode: z.number().nullable(),
      errorTitle: z.string().nullable(),
      occurredAt: z.string(),
    }),
  ),
})
export type AdminWhatsAppMessage = z.infer<typeof adminWhatsAppMessageSchema>
