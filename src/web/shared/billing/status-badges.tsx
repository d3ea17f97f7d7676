import {
  type PaymentStatus,
  paymentStatusBadge,
  paymentStatusLabel,
  type SubscriptionStatus,
  subscriptionStatusBadge,
  subscriptionStatusLabel,
} from '@/domain/subscription-status'
import { Badge } from '@/web/components/ui/badge'

export function SubscriptionStatusBadge({ status }: { status: SubscriptionStatus }) {
  return <Badge variant={subscriptionStatusBadge[status]}>{subscriptionStatusLabel[status]}</Badge>
}

/** 'Devolvido' (all of it) or 'Devolvido parcialmente' for a PIX refunded through the API Pix, else null. */
export function refundLabelOf(p: { refundedCents?: number; amountCents: number; amountReceivedCents?: number | null }) {
  const refunded = p.refundedCents ?? 0
  if (refunded <= 0) return null
  return refunded >= (p.amountReceivedCents ?? p.amountCents) ? 'Devolvido' : 'Devolvido parcialmente'
}

export function PaymentStatusBadge({ status, refunded }: { status: PaymentStatus; refunded?: string | null }) {
  if (refunded) return <Badge variant="destructive">{refunded}</Badge>
  return <Badge variant={paymentStatusBadge[status]}>{paymentStatusLabel[status]}</Badge>
}

/** How a subscription is paid, as the customer reads it. */
export const billingMethodLabel = {
  card: 'Cartão de crédito (Stripe)',
  pix: 'PIX',
} as const

export const billingTexts = {
  cancelScheduled: 'Cancelamento agendado para o fim do período',
  checkoutSuccess: 'Pagamento aprovado! Sua assinatura será ativada em instantes.',
  invoiceCardSuccess: 'Pagamento com cartão aprovado! A fatura será atualizada em instantes.',
  noSubscriptions: 'Você ainda não tem assinaturas.',
  planChanged: 'Plano alterado com sucesso!',
} as const
