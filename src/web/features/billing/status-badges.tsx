import {
  type PaymentStatus,
  paymentStatusBadge,
  paymentStatusLabel,
  type SubscriptionStatus,
  subscriptionStatusBadge,
  subscriptionStatusLabel,
} from '../../../domain/subscription-status'
import { Badge } from '../../components/ui/badge'

export function SubscriptionStatusBadge({ status }: { status: SubscriptionStatus }) {
  return <Badge variant={subscriptionStatusBadge[status]}>{subscriptionStatusLabel[status]}</Badge>
}

export function PaymentStatusBadge({ status }: { status: PaymentStatus }) {
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
