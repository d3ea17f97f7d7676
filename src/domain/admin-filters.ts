// The admin lists' derived filters (issue 15: every figure of the admin home links to the list it counts). Each
// word here is one definition, used by the home's figure and by the list filter alike, so the two cannot drift.
import { openPaymentStatuses, provisionedStatuses, type SubscriptionStatus } from './subscription-status'

/** Paying subscriptions: what the MRR sums (and the home's 'Assinaturas ativas por plano' and 'PIX × Cartão' count). */
export const payingStatuses = ['active', 'past_due'] as const satisfies readonly SubscriptionStatus[]

/** `status=paying` on the subscriptions list; `status=open` on the payments list (pending and pending_pix). */
export const payingStatusFilter = 'paying'
export const openPaymentFilter = 'open'
export { openPaymentStatuses }

/**
 * `cancel=scheduled`: the customer asked to cancel at the end of the period and the subscription is still in force
 * (active, trialing or past_due). With `periodEnd=YYYY-MM` it is the home's 'Cancelamentos agendados este mês'.
 */
export const cancelScheduledStatuses = provisionedStatuses

/** `due` on the payments list: an open invoice whose due date is still ahead ('due') or already past ('overdue'). */
export const dueFilters = ['due', 'overdue'] as const
export type DueFilter = (typeof dueFilters)[number]

/** A month as the filters write it: YYYY-MM. */
export const monthPattern = /^\d{4}-(0[1-9]|1[0-2])$/

/**
 * The instants a São Paulo month (YYYY-MM) starts and ends (end exclusive). São Paulo has kept UTC−3 all year since
 * 2019, so a month starts at 03:00 UTC of its first day.
 */
export function saoPauloMonthRange(month: string): { from: Date; to: Date } {
  const [year, m] = month.split('-').map(Number) as [number, number]
  return { from: new Date(Date.UTC(year, m - 1, 1, 3)), to: new Date(Date.UTC(year, m, 1, 3)) }
}

/** The São Paulo month (YYYY-MM) holding `at`. */
export function saoPauloMonthOf(at: Date): string {
  return new Date(at.getTime() - 3 * 3_600_000).toISOString().slice(0, 7)
}

/**
 * The list filters behind each figure of the admin home, as query parameters of the admin lists (subscriptions,
 * payments, platform events). The home links with these and the server tests assert that each list's total equals
 * the figure, so a link can never show a broader list than the number it sits on.
 */
export const adminHomeFilters = {
  /** MRR and 'assinaturas pagantes' (subscriptions). */
  paying: { status: payingStatusFilter },
  /** One plan's line of 'Assinaturas ativas por plano' (subscriptions). */
  plan: (planId: string) => ({ status: payingStatusFilter, planId }),
  /** 'PIX × Cartão' (subscriptions). */
  method: (method: 'pix' | 'card') => ({ status: payingStatusFilter, method }),
  /** 'Assinaturas vencidas (past_due)' (subscriptions). */
  pastDue: { status: 'past_due' },
  /** 'Cancelamentos agendados este mês' (subscriptions): `now` is the home's instant. */
  cancellations: (now: Date) => ({ cancel: 'scheduled', periodEnd: saoPauloMonthOf(now) }),
  /** 'Recebíveis em aberto' and its parts (payments). */
  receivables: { status: openPaymentFilter },
  receivablesDue: { due: 'due' },
  receivablesOverdue: { due: 'overdue' },
  /** 'PIX aguardando confirmação' with PIX_PROVIDER=manual (payments; with API Pix the home counts only the invoices
   * left on the static code, which no list filter selects). */
  pixAwaiting: { status: 'pending_pix', method: 'pix' },
  /** 'Pagamentos em análise' (payments). */
  inReview: { status: 'review' },
  /** 'Entregas de provisionamento com falha' (platform events). */
  failedDeliveries: { status: 'failed' },
} as const
