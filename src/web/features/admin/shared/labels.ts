import type { PaymentMethod } from '@/domain/subscription-status'

export const paymentMethodLabel: Record<PaymentMethod, string> = {
  pix: 'PIX',
  card: 'Cartão',
  manual_confirmation: 'Confirmação manual',
}

export const billingMethodLabel: Record<'pix' | 'card', string> = { pix: 'PIX', card: 'Cartão' }

export const paymentTypeLabel: Record<'new' | 'upgrade' | 'renewal', string> = {
  new: 'Nova assinatura',
  upgrade: 'Upgrade',
  renewal: 'Renovação',
}

export function roleLabel(roleId: number): string {
  return roleId === 1 ? 'Administrador' : 'Cliente'
}

/** Record → select options, in the table's order. */
export function optionsOf<K extends string>(labels: Record<K, string>): Array<{ value: K; label: string }> {
  return (Object.keys(labels) as K[]).map((value) => ({ value, label: labels[value] }))
}
