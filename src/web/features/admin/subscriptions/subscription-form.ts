import { z } from 'zod'
import type { adminSubscriptionSchema } from '@/domain/contracts/admin'
import { isSubscriptionStatus, type SubscriptionStatus } from '@/domain/subscription-status'
import { addMonthsToDateInput, dateInputPattern, fromDateInput, toDateInput } from '@/web/features/admin/shared/dates'
import type { ServerFieldMap } from '@/web/lib/form-errors'
import type { AdminSubscriptionInput } from './api'

export type AdminSubscription = z.infer<typeof adminSubscriptionSchema>

export const subscriptionFormSchema = z
  .object({
    customer: z
      .object({ id: z.string(), name: z.string(), email: z.string() })
      .nullable()
      .refine((c) => c !== null, 'Selecione o cliente.'),
    planId: z.string().min(1, 'Selecione o plano.'),
    status: z.string().refine(isSubscriptionStatus, 'Selecione o status.'),
    start: z.string().regex(dateInputPattern, 'Informe a data de início.'),
    end: z.string().regex(dateInputPattern, 'Informe a data de término.'),
    cancelAtPeriodEnd: z.boolean(),
  })
  .refine((v) => !dateInputPattern.test(v.start) || !dateInputPattern.test(v.end) || v.end > v.start, {
    message: 'A data de término deve ser posterior à de início.',
    path: ['end'],
  })
export type SubscriptionFormValues = z.input<typeof subscriptionFormSchema>
export type SubscriptionFormOutput = z.output<typeof subscriptionFormSchema>

// The API's field names → the form's, for validation errors the server finds (e.g. a plan that no longer exists).
export const subscriptionServerFields: ServerFieldMap<keyof SubscriptionFormValues> = {
  fields: {
    user_id: 'customer',
    plan_id: 'planId',
    status: 'status',
    current_period_start: 'start',
    current_period_end: 'end',
  },
}

export const statusHints: Partial<Record<SubscriptionStatus, { create: string; edit: string }>> = {
  active: {
    create: 'A assinatura começa ativa, sem fatura a pagar.',
    edit: 'Faturas PIX pendentes desta assinatura serão marcadas como pagas (confirmação manual).',
  },
  pending_pix: {
    create: 'Uma fatura PIX no valor do plano será gerada para o cliente.',
    edit: 'O cliente verá a assinatura aguardando o pagamento PIX.',
  },
}

/** The form's values for a subscription (null: a new one starting `today`, for one month). */
export function subscriptionFormDefaults(
  subscription: AdminSubscription | null,
  today: string,
): SubscriptionFormValues {
  if (!subscription) {
    return {
      customer: null,
      planId: '',
      status: 'active',
      start: today,
      end: addMonthsToDateInput(today, 1),
      cancelAtPeriodEnd: false,
    }
  }
  return {
    customer: subscription.customer,
    planId: subscription.planId,
    status: subscription.status,
    start: toDateInput(subscription.currentPeriodStart),
    end: toDateInput(subscription.currentPeriodEnd),
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
  }
}

/** Validated form values → the request body. An untouched date keeps its exact instant. */
export function toSubscriptionInput(
  values: SubscriptionFormOutput,
  subscription: AdminSubscription | null,
): AdminSubscriptionInput {
  const initial = subscription ? subscriptionFormDefaults(subscription, '') : null
  // An untouched date keeps its exact instant; a changed one starts at midnight in Fortaleza.
  const start =
    subscription && initial?.start === values.start ? subscription.currentPeriodStart : fromDateInput(values.start)
  const end = subscription && initial?.end === values.end ? subscription.currentPeriodEnd : fromDateInput(values.end)
  return {
    user_id: values.customer.id,
    plan_id: values.planId,
    status: values.status,
    current_period_start: start,
    current_period_end: end,
    cancel_at_period_end: values.cancelAtPeriodEnd,
  }
}
