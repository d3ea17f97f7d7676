import { z } from 'zod'
import { dueFilters, monthPattern, openPaymentFilter, payingStatusFilter } from '../admin-filters'
import { billingMethods, roleIds } from '../billing-vocabulary'
import { paymentStatuses, subscriptionStatuses } from '../subscription-status'
import { errorText } from '../errors'
import { pixBeneficiaryCityMax, pixBeneficiaryNameMax, pixDescriptionMax, pixKeyKind } from '../pix'
import { emailSchema } from './auth'
import { pageOf, pageParams } from './paging'
import {
  billingMethodSchema,
  paymentMethodSchema,
  paymentStatusSchema,
  paymentTypeSchema,
  pixSettingsSchema,
  subscriptionStatusSchema,
} from './billing'

/** Server-side pagination shared by every admin list; the page URL carries the same fields. */
export const listQuerySchema = z.object({
  ...pageParams,
  q: z.string().trim().max(200).optional(),
  sort: z.string().max(40).optional(),
  dir: z.enum(['asc', 'desc']).default('desc'),
})
export type ListQuery = z.infer<typeof listQuerySchema>

export { pageOf }

const customerRef = z.object({ id: z.string(), name: z.string(), email: z.string() })

/**
 * GET /api/admin/subscriptions?status=&planId=&method=&cancel=&periodEnd=&q=&sort=created_at|current_period_end|status
 * &dir=&page=&pageSize=. `status=paying` is active or past_due (what the MRR sums); `cancel=scheduled` is a
 * cancellation at period end of a subscription still in force (active, trialing or past_due);
 * `periodEnd=YYYY-MM` keeps those whose current period ends in that São Paulo month.
 */
export const adminSubscriptionsQuerySchema = listQuerySchema.extend({
  status: z
    .enum([...subscriptionStatuses, payingStatusFilter], {
      error: `Status inválido: use ${[...subscriptionStatuses, payingStatusFilter].join(', ')}.`,
    })
    .optional(),
  planId: z.string().max(100).optional(),
  method: z.enum(billingMethods, { error: 'Método de cobrança inválido: use pix ou card.' }).optional(),
  cancel: z.enum(['scheduled'], { error: 'Filtro de cancelamento inválido: use scheduled.' }).optional(),
  periodEnd: z
    .string()
    .max(7, 'Mês de fim do período inválido: use AAAA-MM (por exemplo 2026-03).')
    .regex(monthPattern, 'Mês de fim do período inválido: use AAAA-MM (por exemplo 2026-03).')
    .optional(),
})
export const adminSubscriptionSchema = z
  .object({
    id: z.string(),
    status: subscriptionStatusSchema,
    billingMethod: billingMethodSchema,
    planId: z.string(),
    plan: z.object({ id: z.string(), name: z.string(), priceCents: z.number().int() }),
    customer: customerRef,
    currentPeriodStart: z.string(),
    currentPeriodEnd: z.string(),
    cancelAtPeriodEnd: z.boolean(),
    createdAt: z.string(),
  })
  .meta({ id: 'AdminSubscription' })
export const adminSubscriptionPageSchema = pageOf(adminSubscriptionSchema)

/**
 * POST /api/admin/subscriptions (create) and PUT /api/admin/subscriptions/:id (edit).
 * Saving as active settles the subscription's pending_pix invoices (manual_confirmation);
 * creating one as pending_pix also issues a PIX invoice for the plan price.
 */
export const adminSubscriptionInputSchema = z
  .strictObject({
    user_id: z.string().min(1, 'Selecione o cliente.').max(100, 'Selecione o cliente.'),
    plan_id: z.string().min(1, 'Selecione o plano.').max(100, 'Selecione o plano.'),
    status: subscriptionStatusSchema,
    current_period_start: z.iso.datetime({ offset: true, message: 'Informe a data de início.' }).max(40),
    current_period_end: z.iso.datetime({ offset: true, message: 'Informe a data de término.' }).max(40),
    cancel_at_period_end: z.boolean().default(false),
  })
  .refine((v) => new Date(v.current_period_end) > new Date(v.current_period_start), {
    message: 'A data de término deve ser posterior à de início.',
    path: ['current_period_end'],
  })
/** The save answer: `warning` when the subscription was saved but its pending invoices could not be settled. */
export const adminSubscriptionSaveResultSchema = z.object({
  subscription: adminSubscriptionSchema,
  warning: z.string().nullable(),
})

/**
 * GET /api/admin/subscriptions/:id/settlement-preview: the pending_pix invoices that saving the subscription as
 * active would mark paid (manual_confirmation), and their total. Upgrade invoices whose period has ended are left
 * out (the lifecycle voids them).
 */
export const settlementPreviewSchema = z
  .object({
    invoices: z.array(
      z.object({
        id: z.string(),
        type: paymentTypeSchema,
        amountCents: z.number().int(),
        dueDate: z.string(),
        pixReference: z.string().nullable(),
      }),
    ),
    totalCents: z.number().int(),
  })
  .meta({ id: 'SettlementPreview' })

/**
 * GET /api/admin/payments?status=&method=&due=&q=&sort=created_at|due_date|amount&dir=. `status=open` is pending or
 * pending_pix (the home's 'Recebíveis em aberto'); `due=due|overdue` keeps open invoices whose due date is still ahead
 * or already past, at the request's instant.
 */
export const adminPaymentsQuerySchema = listQuerySchema.extend({
  status: z
    .enum([...paymentStatuses, openPaymentFilter], {
      error: `Status inválido: use ${[...paymentStatuses, openPaymentFilter].join(', ')}.`,
    })
    .optional(),
  method: paymentMethodSchema.optional(),
  due: z
    .enum(dueFilters, { error: 'Filtro de vencimento inválido: use due (a vencer) ou overdue (vencidas).' })
    .optional(),
})
export const adminPaymentSchema = z
  .object({
    id: z.string(),
    subscriptionId: z.string(),
    amountCents: z.number().int(),
    amountReceivedCents: z.number().int().nullable(),
    status: paymentStatusSchema,
    paymentMethod: paymentMethodSchema,
    type: paymentTypeSchema,
    targetPlan: z.object({ id: z.string(), name: z.string() }).nullable(),
    dueDate: z.string(),
    paidAt: z.string().nullable(),
    createdAt: z.string(),
    pixReference: z.string().nullable(),
    pixEndToEndId: z.string().nullable(),
    receiptUrl: z.string().nullable(),
    plan: z.object({ id: z.string(), name: z.string(), priceCents: z.number().int() }),
    customer: customerRef,
    /** PIX: confirmed by the app from the PSP ('api_pix') or by an admin ('manual'); null while open. */
    pixConfirmedVia: z.enum(['api_pix', 'manual']).nullable(),
    /** The payer's name as the PSP reported it. */
    pixPayerName: z.string().nullable(),
    /** Seconds from the invoice's creation to its confirmation. */
    confirmationSeconds: z.number().int().nullable(),
    /** PIX refunded so far (refunds that did not fail), in centavos. */
    refundedCents: z.number().int(),
  })
  .meta({ id: 'AdminPayment' })
export const adminPaymentPageSchema = pageOf(adminPaymentSchema)

/** POST /api/admin/payments/:id/confirm (admin-confirm-payment). */
export const confirmPaymentInputSchema = z.strictObject({
  amount_received_cents: z.number().int().positive('Informe o valor recebido.'),
  end_to_end_id: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9]{32}$/, 'O identificador da transação (E2E) tem 32 letras e números.')
    .optional(),
})
/** `flagged` when the amount differed: nothing was activated and the payment awaits review. */
export const confirmPaymentResultSchema = z.object({ payment: adminPaymentSchema, flagged: z.boolean() })

/** GET /api/admin/users and /api/admin/customers (customers = role user with their subscription count). */
export const adminUsersQuerySchema = listQuerySchema.extend({ role: z.enum(['admin', 'user']).optional() })
export const adminUserSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    companyName: z.string(),
    whatsappNumber: z.string(),
    roleId: z.number().int(),
    emailVerified: z.boolean(),
    createdAt: z.string(),
    activeSubscriptions: z.number().int(),
  })
  .meta({ id: 'AdminUser' })
export const adminUserPageSchema = pageOf(adminUserSchema)
/** PUT /api/admin/users/:id/role */
export const roleInputSchema = z.strictObject({ role_id: z.union([z.literal(roleIds.admin), z.literal(roleIds.user)]) })

/** POST /api/admin/plans (create), PUT /api/admin/plans/:id (edit), DELETE /api/admin/plans/:id. Schema in plans.ts. */

/** PUT /api/admin/pix-settings; GET /api/admin/pix-settings. */
export const pixSettingsInputSchema = z.strictObject({
  pix_key: z
    .string()
    .trim()
    .min(1, 'Informe a chave PIX.')
    .max(77, errorText.pix_key_invalid)
    .refine((k) => pixKeyKind(k) !== null, errorText.pix_key_invalid),
  beneficiary_name: z
    .string()
    .trim()
    .min(1, 'Informe o nome do beneficiário.')
    .max(pixBeneficiaryNameMax, `No máximo ${pixBeneficiaryNameMax} caracteres.`),
  beneficiary_city: z
    .string()
    .trim()
    .min(1, 'Informe a cidade do beneficiário.')
    .max(pixBeneficiaryCityMax, `No máximo ${pixBeneficiaryCityMax} caracteres.`),
  description: z.string().trim().max(pixDescriptionMax).optional().default(''),
})

/** A customer picker for the subscription form: GET /api/admin/users?q= is reused. */
export const customerOptionSchema = z.object({ id: z.string(), name: z.string(), email: emailSchema })

/**
 * GET/PUT /api/admin/pix-settings answer: the settings (null until an admin first saves a key) and a sample BR Code
 * for R$ 1,00 built from them (null when they cannot build one).
 */
export const adminPixSettingsResultSchema = z
  .object({
    settings: pixSettingsSchema.nullable(),
    preview: z.object({ brCode: z.string() }).nullable(),
  })
  .meta({ id: 'AdminPixSettings' })

/** GET /api/admin/card-info: what the admin registers at the card provider (admin help text). */
export const cardInfoSchema = z
  .object({
    mode: z.enum(['stripe', 'simulator']),
    checkoutFunction: z.literal('create-checkout-session'),
    webhookUrl: z.string(),
    events: z.array(z.string()),
  })
  .meta({ id: 'CardInfo' })
