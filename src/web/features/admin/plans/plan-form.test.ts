import { describe, expect, it } from 'vitest'
import { type Plan, planInputSchema } from '@/domain/contracts/plans'
import { planFormDefaults, planFormSchema, toPlanInput } from './plan-form'

const plan: Plan = {
  id: 'plan_pro',
  name: 'Pro',
  description: 'Para equipes',
  priceCents: 19990,
  currency: 'BRL',
  features: ['5 caixas', 'Relatórios'],
  boxQuantity: 5,
  agentQuantity: 10,
  popular: true,
  active: true,
}

describe('plan form', () => {
  it('starts a new plan empty, active, with one box and one agent', () => {
    expect(planFormDefaults(null)).toMatchObject({
      id: '',
      price: '',
      boxQuantity: '1',
      agentQuantity: '1',
      active: true,
    })
  })

  it('round-trips an existing plan through the form into a body the contract accepts', () => {
    const values = planFormSchema(false).parse(planFormDefaults(plan))
    expect(values.price).toBe('199.90')
    expect(values.features).toBe('5 caixas\nRelatórios')
    const input = toPlanInput(values, plan)
    expect(input).toEqual({
      id: 'plan_pro',
      name: 'Pro',
      description: 'Para equipes',
      priceCents: 19990,
      features: ['5 caixas', 'Relatórios'],
      boxQuantity: 5,
      agentQuantity: 10,
      popular: true,
      active: true,
    })
    expect(planInputSchema.safeParse(input).success).toBe(true)
  })

  it('converts reais to centavos, trims and drops blank feature lines', () => {
    const values = planFormSchema(true).parse({
      ...planFormDefaults(null),
      id: ' plan_new ',
      name: ' Novo ',
      price: '49,9',
      features: 'A\n\n  B  \n',
    })
    expect(toPlanInput(values, null)).toMatchObject({
      id: 'plan_new',
      name: 'Novo',
      priceCents: 4990,
      features: ['A', 'B'],
    })
  })

  it('keeps the id of an edited plan whatever the field holds', () => {
    const values = planFormSchema(false).parse({ ...planFormDefaults(plan), id: 'other' })
    expect(toPlanInput(values, plan).id).toBe('plan_pro')
  })

  it('explains each invalid field in Portuguese', () => {
    const result = planFormSchema(true).safeParse({
      ...planFormDefaults(null),
      id: 'Plano X',
      price: '0',
      boxQuantity: '1.5',
      agentQuantity: '0',
    })
    expect(result.success).toBe(false)
    const messages = Object.fromEntries((result.error?.issues ?? []).map((i) => [String(i.path[0]), i.message]))
    expect(messages).toEqual({
      id: 'Use apenas letras minúsculas, números e _ (ex.: plan_basic).',
      name: 'Informe o nome do plano.',
      price: 'O preço deve ser maior que zero.',
      boxQuantity: 'Use um número inteiro.',
      agentQuantity: 'Mínimo 1.',
    })
  })
})
