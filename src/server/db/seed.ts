import { sql } from 'drizzle-orm'
import type { Executor } from './client'
import { pixSettings } from './schema/billing'
import { plans } from './schema/plans'

export const demoPlans = [
  {
    id: 'plan_basic',
    name: 'Básico',
    description: 'Para quem está começando a centralizar o atendimento.',
    priceCents: 9_900,
    features: ['1 número de WhatsApp', '2 atendentes', 'Respostas rápidas', 'Suporte por e-mail'],
    boxQuantity: 1,
    agentQuantity: 2,
    popular: false,
  },
  {
    id: 'plan_pro',
    name: 'Profissional',
    description: 'Para equipes que atendem em vários canais ao mesmo tempo.',
    priceCents: 19_900,
    features: [
      '2 números de WhatsApp',
      '5 atendentes',
      'Instagram, Facebook e e-mail',
      'Chatbot e etiquetas',
      'Transferência entre departamentos',
    ],
    boxQuantity: 2,
    agentQuantity: 5,
    popular: true,
  },
  {
    id: 'plan_business',
    name: 'Empresarial',
    description: 'Para operações maiores com muitos atendentes e relatórios.',
    priceCents: 39_900,
    features: [
      '5 números de WhatsApp',
      '15 atendentes',
      'Todos os canais',
      'Relatórios de desempenho',
      'Suporte prioritário',
    ],
    boxQuantity: 5,
    agentQuantity: 15,
    popular: false,
  },
]

export const demoPixSettings = {
  id: 1,
  pixKey: 'financeiro@atendimento.example.com.br',
  beneficiaryName: 'Atendimento Multicanal',
  beneficiaryCity: 'Itaitinga',
  description: 'Assinatura Atendimento Multicanal',
}

/** Demo plans and PIX settings; rows that exist are left alone, so it can run on every start. */
export async function seedDemo(db: Executor): Promise<void> {
  await db.insert(plans).values(demoPlans).onConflictDoNothing()
  await db.insert(pixSettings).values(demoPixSettings).onConflictDoNothing()
}

/** The single pix_settings row always exists (blank until an admin fills it in). */
export async function ensurePixSettingsRow(db: Executor): Promise<void> {
  await db.insert(pixSettings).values({ id: 1 }).onConflictDoNothing()
}

export async function isEmpty(db: Executor): Promise<boolean> {
  const [row] = await db
    .select({ n: sql<number>`(select count(*) from plans) + (select count(*) from profiles)`.mapWith(Number) })
    .from(sql`(select 1) as one`)
  return (row?.n ?? 0) === 0
}
