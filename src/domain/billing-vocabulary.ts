// The billing words besides the statuses (subscription-status.ts): one tuple each, exhaustive label tables, so
// adding a value breaks the build wherever it is not handled yet. The database enums (db/schema/billing.ts) and the
// zod contracts (contracts/billing.ts) are built from these tuples.
import type { PaymentMethod } from './subscription-status'

/** What an invoice pays for: the first period, an upgrade's difference, or the next period. */
export const paymentTypes = ['new', 'upgrade', 'renewal'] as const
export type PaymentType = (typeof paymentTypes)[number]

export const paymentTypeLabel: Record<PaymentType, string> = {
  new: 'Nova assinatura',
  upgrade: 'Upgrade',
  renewal: 'Renovação',
}

export function isPaymentType(value: unknown): value is PaymentType {
  return typeof value === 'string' && (paymentTypes as readonly string[]).includes(value)
}

/** How a subscription is billed (a payment's method adds 'manual_confirmation'). */
export const billingMethods = ['pix', 'card'] as const
export type BillingMethod = (typeof billingMethods)[number]

export const billingMethodLabel: Record<BillingMethod, string> = { pix: 'PIX', card: 'Cartão' }

export function isBillingMethod(value: unknown): value is BillingMethod {
  return typeof value === 'string' && (billingMethods as readonly string[]).includes(value)
}

export const paymentMethodLabel: Record<PaymentMethod, string> = {
  pix: 'PIX',
  card: 'Cartão',
  manual_confirmation: 'Confirmação manual',
}

/** profiles.role_id: 1 admin, 2 user (the spec's numbers; the database checks them). */
export const roleIds = { admin: 1, user: 2 } as const
export type RoleName = keyof typeof roleIds
export type RoleId = (typeof roleIds)[RoleName]
export const roleIdList = [roleIds.admin, roleIds.user] as const

export const roleLabel: Record<RoleId, string> = { 1: 'Administrador', 2: 'Cliente' }

export function isRoleId(value: unknown): value is RoleId {
  return value === roleIds.admin || value === roleIds.user
}

export function isAdminRole(roleId: number): boolean {
  return roleId === roleIds.admin
}

/** Our own receipt page (dashboard route) of one of the customer's paid invoices. */
export function ownReceiptPath(paymentId: string): string {
  return `/dashboard/payments/${encodeURIComponent(paymentId)}/receipt`
}

/**
 * Whether an invoice's receipt is ours (a paid PIX or manually confirmed invoice) rather than the card provider's:
 * the payment's `receiptUrl` is then ownReceiptPath(id).
 */
export function hasOwnReceipt(payment: { status: string; paymentMethod: PaymentMethod }): boolean {
  return payment.status === 'paid' && payment.paymentMethod !== 'card'
}
