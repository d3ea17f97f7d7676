import { z } from 'zod'

export const planIdSchema = z
  .string()
  .trim()
  .regex(/^[a-z0-9_]+$/, 'Use apenas letras minúsculas, números e _ (ex.: plan_basic).')
  .max(64)

export const planSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    priceCents: z.number().int(),
    currency: z.literal('BRL'),
    features: z.array(z.string()),
    boxQuantity: z.number().int(),
    agentQuantity: z.number().int(),
    popular: z.boolean(),
    active: z.boolean(),
  })
  .meta({ id: 'Plan' })
export type Plan = z.infer<typeof planSchema>

export const planInputSchema = z.strictObject({
  id: planIdSchema,
  name: z.string().trim().min(1, 'Informe o nome do plano.').max(80),
  description: z.string().trim().max(500).default(''),
  priceCents: z.number().int().positive('O preço deve ser maior que zero.').max(100_000_000),
  features: z
    .array(z.string().max(200, 'Cada item pode ter no máximo 200 caracteres.'))
    .max(30, 'No máximo 30 itens.')
    .default([])
    .transform((lines) => lines.map((l) => l.trim()).filter((l) => l.length > 0)),
  boxQuantity: z.number().int().min(1, 'Mínimo 1.').max(100_000, 'Máximo 100000.').default(1),
  agentQuantity: z.number().int().min(1, 'Mínimo 1.').max(100_000, 'Máximo 100000.').default(1),
  popular: z.boolean().default(false),
  active: z.boolean().default(true),
})
export type PlanInput = z.input<typeof planInputSchema>

/** Features are typed one per line; blank lines are dropped. */
export function splitFeatures(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
}
