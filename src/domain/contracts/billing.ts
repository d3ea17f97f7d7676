import { z } from 'zod'
import { billingMethods, paymentTypes } from '../billing-vocabulary'
import { paymentMethods, paymentStatuses, subscriptionStatuses } from '../subscription-status'
import { whatsappNumberSchema } from './auth'
import { pageOf, pageParams } from './paging'
import { planIdSchema, planSchema } from './plans'

export const subscriptionStatusSchema = z.enum(subscriptionStatuses)
export const paymentStatusSchema = z.enum(paymentStatuses)
export const paymentMethodSchema = z.enum(paymentMethods)
export const billingMethodSchema = z.enum(billingMethods)
export const paymentTypeSchema = z.enum(paymentTypes)

/** A subscription as its owner sees it (GET /api/subscriptions). Instants are ISO strings. */
export const subscriptionSchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    planId: z.string(),
    plan: planSchema.pick({ id: true, name: true, priceCents: true, boxQuantity: true, agentQuantity: true }),
    status: subscriptionStatusSchema,
    billingMethod: billingMethodSchema,
    currentPeriodStart: z.string(),
    currentPeriodEnd: z.string(),
    cancelAtPeriodEnd: z.boolean(),
    canceledAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Subscription' })
export type Subscription = z.infer<typeof subscriptionSchema>

/** A payment (invoice) as its owner sees it (GET /api/payments), with its subscription's plan. */
export const paymentSchema = z
  .object({
    id: z.string(),
    subscriptionId: z.string(),
    amountCents: z.number().int(),
    status: paymentStatusSchema,
    currency: z.literal('BRL'),
    paymentMethod: paymentMethodSchema,
    type: paymentTypeSchema,
    targetPlanId: z.string().nullable(),
    dueDate: z.string(),
    paidAt: z.string().nullable(),
    createdAt: z.string(),
    /** Stripe's hosted receipt for card payments; our own receipt page for PIX payments once paid. */
    receiptUrl: z.string().nullable(),
    metadata: z.object({ type: paymentTypeSchema.optional(), targetPlanId: z.string().optional() }).loose(),
    plan: z.object({ id: z.string(), name: z.string(), priceCents: z.number().int() }).nullable(),
    /** PIX refunded so far (API Pix devoluções), in centavos; absent or 0 when nothing was. */
    refundedCents: z.number().int().optional(),
  })
  .meta({ id: 'Payment' })
export type Payment = z.infer<typeof paymentSchema>

/** What the PIX payment view shows: the BR Code "copia e cola" for one invoice. */
export const pixChargeSchema = z
  .object({
    paymentId: z.string(),
    brCode: z.string(),
    amountCents: z.number().int(),
    dueDate: z.string(),
    beneficiaryName: z.string(),
    reference: z.string(),
    type: paymentTypeSchema,
    planName: z.string(),
    /** PIX_PROVIDER=api-pix: the payment is confirmed by itself (PSP webhook and reconciliation). */
    autoConfirm: z.boolean().optional(),
  })
  .meta({ id: 'PixCharge' })
export type PixCharge = z.infer<typeof pixChargeSchema>

export const checkoutInputSchema = z.strictObject({ plan_id: planIdSchema })

/** POST /api/checkout/pix → the open (new or already existing) subscription and invoice, and its PIX charge. */
export const pixCheckoutResultSchema = z
  .object({ subscription: subscriptionSchema, payment: paymentSchema, pix: pixChargeSchema, reused: z.boolean() })
  .meta({ id: 'PixCheckoutResult' })
export type PixCheckoutResult = z.infer<typeof pixCheckoutResultSchema>

/** POST /api/checkout/card (create-checkout-session) → where to send the browser. */
export const cardCheckoutResultSchema = z.object({ url: z.string() }).meta({ id: 'CardCheckoutResult' })

/** GET /api/payments/:id/receipt: what the receipt page (/dashboard/payments/:id/receipt) prints for a paid invoice. */
export const paymentReceiptSchema = z
  .object({
    payment: paymentSchema,
    /** The plan paid for: the target plan of an upgrade invoice, otherwise the subscription's plan. */
    plan: z.object({ id: z.string(), name: z.string(), priceCents: z.number().int() }),
    customer: z.object({ name: z.string(), companyName: z.string(), email: z.string() }),
    company: z.object({ legalName: z.string(), cnpj: z.string(), address: z.string() }),
    paidAt: z.string(),
    method: paymentMethodSchema,
    pixEndToEndId: z.string().nullable(),
    /** What was received (the invoice amount when no other amount was recorded), in centavos. */
    amountCents: z.number().int(),
  })
  .meta({ id: 'PaymentReceipt' })
export type PaymentReceipt = z.infer<typeof paymentReceiptSchema>

export const cancelInputSchema = z.strictObject({ subscription_id: z.string().min(1).max(100) })
export const upgradeInputSchema = z.strictObject({
  subscription_id: z.string().min(1).max(100),
  new_plan_id: planIdSchema,
})

/** POST /api/subscriptions/upgrade: PIX subscriptions get an invoice to pay; card ones are switched at Stripe. */
export const upgradeResultSchema = z
  .discriminatedUnion('kind', [
    z.object({
      kind: z.literal('pix'),
      payment: paymentSchema,
      pix: pixChargeSchema,
      prorationCents: z.number().int(),
    }),
    z.object({ kind: z.literal('card'), subscription: subscriptionSchema, prorationCents: z.number().int() }),
    // A PIX upgrade whose prorated difference rounds to 0 centavos (period about to end): switched at once, no invoice.
    z.object({ kind: z.literal('switched'), subscription: subscriptionSchema, prorationCents: z.literal(0) }),
  ])
  .meta({ id: 'UpgradeResult' })
export type UpgradeResult = z.infer<typeof upgradeResultSchema>

/** GET /api/subscriptions/:id/upgrade-options: higher-priced plans and the prorated charge of each. */
export const upgradeOptionsSchema = z.array(z.object({ plan: planSchema, prorationCents: z.number().int() }))

export const profileSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    companyName: z.string(),
    whatsappNumber: z.string(),
    roleId: z.number().int(),
    createdAt: z.string(),
  })
  .meta({ id: 'Profile' })
export type Profile = z.infer<typeof profileSchema>

/** PATCH /api/profile: only these fields; e-mail and role are never taken from the body. */
export const profileUpdateInputSchema = z.strictObject({
  name: z.string().trim().min(1, 'Informe seu nome.').max(120),
  company_name: z.string().trim().min(1, 'Informe o nome da empresa.').max(160),
})

/** POST /api/profile/whatsapp: the new number, verified by a code sent to it beforehand. */
export const whatsappChangeInputSchema = z.strictObject({ whatsapp_number: whatsappNumberSchema })

export const pixSettingsSchema = z
  .object({
    pixKey: z.string(),
    beneficiaryName: z.string(),
    beneficiaryCity: z.string(),
    description: z.string().nullable(),
    updatedAt: z.string(),
  })
  .meta({ id: 'PixSettings' })

/**
 * GET /api/subscriptions?page=&pageSize=&current=: the customer's subscriptions, newest first, one page.
 * `current=true` keeps those still in force or waiting for payment (active, trialing, past_due, pending_pix).
 */
export const mySubscriptionsQuerySchema = z.object({ ...pageParams, current: z.enum(['true', 'false']).optional() })
export const subscriptionPageSchema = pageOf(subscriptionSchema)

/**
 * GET /api/payments?page=&pageSize=&open=: the customer's invoices, newest first, one page.
 * `open=true`: only the open ones (pending, pending_pix); `open=false`: the history (everything else).
 */
export const myPaymentsQuerySchema = z.object({ ...pageParams, open: z.enum(['true', 'false']).optional() })
export const paymentPageSchema = pageOf(paymentSchema)
