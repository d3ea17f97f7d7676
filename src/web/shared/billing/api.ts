import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import {
  cardCheckoutResultSchema,
  paymentReceiptSchema,
  type PixCheckoutResult,
  paymentPageSchema,
  pixChargeSchema,
  pixCheckoutResultSchema,
  subscriptionPageSchema,
  subscriptionSchema,
  type UpgradeResult,
  upgradeOptionsSchema,
  upgradeResultSchema,
} from '@/domain/contracts/billing'
import { api } from '@/web/lib/api'
import { toasts } from '@/web/lib/toasts'

/** Everything the customer's billing screens read lives under ['billing'], so one invalidation refreshes it all. */
const billingKey = ['billing'] as const

/** The server pages the customer's lists (GET /api/subscriptions, /api/payments); these are the page's fields. */
export type PageParams = { page?: number; pageSize?: number }

/** The page number in the page's URL (`?page=2`); anything else is page 1. */
export function pageFrom(search: URLSearchParams): number {
  const value = search.get('page') ?? ''
  return /^\d{1,4}$/.test(value) && Number(value) >= 1 ? Number(value) : 1
}

function pageSearch(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value))
  const text = search.toString()
  return text ? `?${text}` : ''
}

type SubscriptionsParams = PageParams & { current?: boolean }

/** GET /api/subscriptions with these parameters (also what the server embeds in the dashboard's first HTML). */
export function subscriptionsUrl(params: SubscriptionsParams = {}): string {
  const current = params.current === undefined ? undefined : String(params.current)
  return `/api/subscriptions${pageSearch({ page: params.page, pageSize: params.pageSize, current })}`
}

/** One page of the customer's subscriptions; `current: true` only those in force or awaiting payment. */
export function subscriptionsQuery(params: SubscriptionsParams = {}) {
  return queryOptions({
    queryKey: [...billingKey, 'subscriptions', params],
    queryFn: () => api.get(subscriptionsUrl(params), subscriptionPageSchema),
  })
}

/** Open invoices are few (one per subscription and period at most): one page of this size holds them all. */
export const openInvoicesPageSize = 100

type PaymentsParams = PageParams & { open?: boolean }

/** What the dashboard's overview reads: the newest subscription in force and the open invoices (both small). */
export const overviewReads = {
  subscriptions: { current: true, pageSize: 1 },
  payments: { open: true, pageSize: openInvoicesPageSize },
} satisfies { subscriptions: SubscriptionsParams; payments: PaymentsParams }

/** GET /api/payments with these parameters. */
export function paymentsUrl(params: PaymentsParams = {}): string {
  const open = params.open === undefined ? undefined : String(params.open)
  return `/api/payments${pageSearch({ page: params.page, pageSize: params.pageSize, open })}`
}

/** One page of the customer's invoices; `open: true` the open ones, `open: false` the history. */
export function paymentsQuery(params: PaymentsParams = {}) {
  return queryOptions({
    queryKey: [...billingKey, 'payments', params],
    queryFn: () => api.get(paymentsUrl(params), paymentPageSchema),
  })
}

/** The BR Code of one open invoice (the 'Pagar com PIX' button of the payments page). */
export function pixChargeQuery(paymentId: string) {
  return queryOptions({
    queryKey: [...billingKey, 'payments', paymentId, 'pix'],
    queryFn: () => api.get(`/api/payments/${encodeURIComponent(paymentId)}/pix`, pixChargeSchema),
  })
}

/** The receipt's shape belongs to the server; the page reads it defensively (see receipt-page.tsx). */
export function receiptQuery(paymentId: string) {
  return queryOptions({
    queryKey: [...billingKey, 'payments', paymentId, 'receipt'],
    queryFn: () => api.get(`/api/payments/${encodeURIComponent(paymentId)}/receipt`, paymentReceiptSchema),
  })
}

export function upgradeOptionsQuery(subscriptionId: string) {
  return queryOptions({
    queryKey: [...billingKey, 'subscriptions', subscriptionId, 'upgrade-options'],
    queryFn: () =>
      api.get(`/api/subscriptions/${encodeURIComponent(subscriptionId)}/upgrade-options`, upgradeOptionsSchema),
    // Proration depends on the clock: always ask again when the dialog opens.
    staleTime: 0,
  })
}

function useInvalidateBilling() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: billingKey })
}

/** POST /api/checkout/pix: a new (or the still open) PIX subscription and its invoice. */
export function usePixCheckout() {
  const invalidate = useInvalidateBilling()
  return useMutation({
    mutationFn: (planId: string): Promise<PixCheckoutResult> =>
      api.post('/api/checkout/pix', { plan_id: planId }, pixCheckoutResultSchema),
    onSuccess: () => invalidate(),
    meta: { feedback: toasts.pixInvoice },
  })
}

/** POST /api/checkout/card: the browser leaves for the card provider's page (or the local simulator). */
export function useCardCheckout() {
  return useMutation({
    mutationFn: (planId: string) => api.post('/api/checkout/card', { plan_id: planId }, cardCheckoutResultSchema),
    onSuccess: ({ url }) => {
      window.location.assign(url)
    },
    meta: { feedback: toasts.checkout },
  })
}

/**
 * POST /api/payments/:id/card-checkout: 'Pagar com Cartão' on an open invoice pays that invoice (a first invoice moves
 * its subscription to card; a renewal or upgrade is one card payment of its amount). The browser leaves for it.
 */
export function useInvoiceCardCheckout() {
  return useMutation({
    mutationFn: (paymentId: string) =>
      api.post(`/api/payments/${encodeURIComponent(paymentId)}/card-checkout`, {}, cardCheckoutResultSchema),
    onSuccess: ({ url }) => {
      window.location.assign(url)
    },
    meta: { feedback: toasts.checkout },
  })
}

export function useCancelSubscription() {
  const invalidate = useInvalidateBilling()
  return useMutation({
    mutationFn: (subscriptionId: string) =>
      api.post('/api/subscriptions/cancel', { subscription_id: subscriptionId }, subscriptionSchema),
    onSuccess: () => invalidate(),
    meta: { feedback: toasts.cancel },
  })
}

export function useUpgradeSubscription() {
  const invalidate = useInvalidateBilling()
  return useMutation({
    mutationFn: (input: { subscriptionId: string; newPlanId: string }): Promise<UpgradeResult> =>
      api.post(
        '/api/subscriptions/upgrade',
        { subscription_id: input.subscriptionId, new_plan_id: input.newPlanId },
        upgradeResultSchema,
      ),
    onSuccess: () => invalidate(),
    meta: { feedback: toasts.upgrade },
  })
}
