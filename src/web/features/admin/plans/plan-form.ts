import { z } from 'zod'
import { type Plan, type PlanInput, planIdSchema, splitFeatures } from '@/domain/contracts/plans'
import { centsToDecimalString, toCents } from '@/domain/money'
import type { ServerFieldMap } from '@/web/lib/form-errors'

// The form's own schema: inputs are strings (the price in reais), so it cannot be the contract's; toPlanInput
// converts, and the server validates the result with planInputSchema.
const quantity = z
  .string()
  .trim()
  .min(1, 'Informe a quantidade.')
  .refine((v) => /^\d+$/.test(v), 'Use um número inteiro.')
  .refine((v) => !/^\d+$/.test(v) || Number(v) >= 1, 'Mínimo 1.')

export function planFormSchema(creating: boolean) {
  return z.object({
    id: creating ? z.string().trim().min(1, 'Informe o ID do plano.').pipe(planIdSchema) : z.string(),
    name: z.string().trim().min(1, 'Informe o nome do plano.').max(80, 'No máximo 80 caracteres.'),
    description: z.string().trim().max(500, 'No máximo 500 caracteres.'),
    price: z
      .string()
      .trim()
      .min(1, 'Informe o preço.')
      .refine((v) => {
        const cents = toCents(v)
        return Number.isSafeInteger(cents) && cents > 0
      }, 'O preço deve ser maior que zero.'),
    features: z.string(),
    boxQuantity: quantity,
    agentQuantity: quantity,
    popular: z.boolean(),
    active: z.boolean(),
  })
}
export type PlanFormValues = z.infer<ReturnType<typeof planFormSchema>>

/** The form's values for a plan (null: a new plan). */
export function planFormDefaults(plan: Plan | null): PlanFormValues {
  if (!plan) {
    return {
      id: '',
      name: '',
      description: '',
      price: '',
      features: '',
      boxQuantity: '1',
      agentQuantity: '1',
      popular: false,
      active: true,
    }
  }
  return {
    id: plan.id,
    name: plan.name,
    description: plan.description,
    price: centsToDecimalString(plan.priceCents),
    features: plan.features.join('\n'),
    boxQuantity: String(plan.boxQuantity),
    agentQuantity: String(plan.agentQuantity),
    popular: plan.popular,
    active: plan.active,
  }
}

/** Validated form values → the request body (an edited plan keeps its id). */
export function toPlanInput(values: PlanFormValues, plan: Plan | null): PlanInput {
  return {
    id: plan ? plan.id : values.id.trim(),
    name: values.name.trim(),
    description: values.description.trim(),
    priceCents: toCents(values.price),
    features: splitFeatures(values.features),
    boxQuantity: Number(values.boxQuantity),
    agentQuantity: Number(values.agentQuantity),
    popular: values.popular,
    active: values.active,
  }
}

export const planServerFields: ServerFieldMap<keyof PlanFormValues> = {
  fields: {
    id: 'id',
    name: 'name',
    description: 'description',
    priceCents: 'price',
    features: 'features',
    boxQuantity: 'boxQuantity',
    agentQuantity: 'agentQuantity',
  },
  codes: { plan_exists: 'id' },
}
