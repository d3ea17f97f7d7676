// Status rules as exhaustive tables: adding a status breaks the build wherever it is not handled yet.

export type BadgeVariant = 'default' | 'secondary' | 'destructive'

export const subscriptionStatuses = ['active', 'trialing', 'canceled', 'past_due', 'pending_pix'] as const
export type SubscriptionStatus = (typeof subscriptionStatuses)[number]

export const subscriptionStatusLabel: Record<SubscriptionStatus, string> = {
  active: 'Ativa',
  trialing: 'Testando',
  canceled: 'Cancelada',
  past_due: 'Vencida',
  pending_pix: 'Aguardando Pagamento PIX',
}

export const subscriptionStatusBadge: Record<SubscriptionStatus, BadgeVariant> = {
  active: 'default',
  trialing: 'default',
  canceled: 'destructive',
  past_due: 'destructive',
  pending_pix: 'secondary',
}

const customerCancelable: Record<SubscriptionStatus, boolean> = {
  active: true,
  trialing: true,
  canceled: false,
  past_due: false,
  pending_pix: false,
}

const upgradable: Record<SubscriptionStatus, boolean> = {
  active: true,
  trialing: true,
  canceled: false,
  past_due: false,
  pending_pix: false,
}

export function isSubscriptionStatus(value: unknown): value is SubscriptionStatus {
  return typeof value === 'string' && (subscriptionStatuses as readonly string[]).includes(value)
}

/** A customer may schedule a cancellation (at period end) only while active or trialing, and only once. */
export function canCustomerCancel(status: SubscriptionStatus, cancelAtPeriodEnd: boolean): boolean {
  return customerCancelable[status] && !cancelAtPeriodEnd
}

/** Upgrades are offered only to active or trialing subscriptions. */
export function canUpgrade(status: SubscriptionStatus): boolean {
  return upgradable[status]
}

export const paymentStatuses = ['pending', 'pending_pix', 'paid', 'failed', 'void', 'review'] as const
export type PaymentStatus = (typeof paymentStatuses)[number]

export const paymentStatusLabel: Record<PaymentStatus, string> = {
  pending: 'Pendente',
  pending_pix: 'Aguardando PIX',
  paid: 'Pago',
  failed: 'Falhou',
  void: 'Cancelado',
  review: 'Em análise',
}

export const paymentStatusBadge: Record<PaymentStatus, BadgeVariant> = {
  pending: 'secondary',
  pending_pix: 'secondary',
  paid: 'default',
  failed: 'destructive',
  void: 'destructive',
  review: 'destructive',
}

export function isPaymentStatus(value: unknown): value is PaymentStatus {
  return typeof value === 'string' && (paymentStatuses as readonly string[]).includes(value)
}

export const paymentMethods = ['pix', 'card', 'manual_confirmation'] as const
export type PaymentMethod = (typeof paymentMethods)[number]

/** "Provisioned": the customer has the service (the platform is told active); past_due keeps it until period end. */
const provisioned: Record<SubscriptionStatus, boolean> = {
  active: true,
  trialing: true,
  past_due: true,
  canceled: false,
  pending_pix: false,
}

/** The statuses whose customers have the service, in tuple order (for SQL `in` lists). */
export const provisionedStatuses = subscriptionStatuses.filter((s) => provisioned[s])

/** True while the customer has the service: active, trialing or past_due (the platform is told 'activated'). */
export function isProvisioned(status: SubscriptionStatus): boolean {
  return provisioned[status]
}

/** "Open": an invoice still waiting for its money (the customer can pay it, the lifecycle can void it). */
const openPayment: Record<PaymentStatus, boolean> = {
  pending: true,
  pending_pix: true,
  paid: false,
  failed: false,
  void: false,
  review: false,
}

/** pending and pending_pix, in tuple order (for SQL `in` lists). */
export const openPaymentStatuses = paymentStatuses.filter((s) => openPayment[s])

/** An invoice still waiting for its money: pending or pending_pix. */
export function isOpenPayment(status: PaymentStatus): boolean {
  return openPayment[status]
}

/** "Unsettled": open, or in review (money arrived that an admin must still decide on). */
const unsettledPayment: Record<PaymentStatus, boolean> = { ...openPayment, review: true }

/** pending, pending_pix and review, in tuple order (for SQL `in` lists). */
export const unsettledPaymentStatuses = paymentStatuses.filter((s) => unsettledPayment[s])

/** Open or in review: an admin can still confirm it, and an account with one cannot be deleted. */
export function isUnsettledPayment(status: PaymentStatus): boolean {
  return unsettledPayment[status]
}
