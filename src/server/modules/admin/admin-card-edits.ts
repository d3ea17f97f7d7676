// Admin edits of card subscriptions go through the card provider (README "Admin edits of card subscriptions go
// through Stripe"). Stripe bills a card subscription and its webhooks keep our row in step, so an edit made only
// here would be undone by the next event while the customer keeps being charged. For billing_method = card:
//
// - cancel (status 'Cancelada')          → card.cancelNow, then the row is canceled and its open invoices voided;
// - plan change                          → card.changePlan (a Stripe pending update: prorated charge or credit; a
//                                          declined charge refuses the edit with 'card_declined', plan unchanged);
// - 'Cancelar no fim do período' on/off  → card.cancelAtPeriodEnd / card.resumeRenewal (the reactivation);
// - customer, period dates, any other status change, or any change to a canceled card subscription → refused with
//   a Portuguese message saying what to do instead, and nothing changes.
//
// The provider is called before our transaction and outside it; when it fails nothing changes here.
import type { Plan } from '../../../domain/contracts/plans'
import { DomainError } from '../../../domain/errors'
import type { CardGateway } from '../billing/card-gateway'
import type { SubscriptionRow } from '../../db/schema/billing'

export type CardEditInput = {
  userId: string
  plan: Plan
  status: SubscriptionRow['status']
  start: Date
  end: Date
  cancelAtPeriodEnd: boolean
}

export type CardCall =
  | { op: 'cancelNow' }
  | { op: 'changePlan'; planId: string }
  | { op: 'cancelAtPeriodEnd' }
  | { op: 'resumeRenewal' }

export const cardEditMessages = {
  user: 'Uma assinatura de cartão não pode ser transferida para outro cliente: ela é cobrada no cartão deste cliente. Cancele-a e peça ao outro cliente para assinar com o cartão dele.',
  period:
    'As datas de uma assinatura de cartão são definidas pelo Stripe a cada cobrança e não podem ser alteradas aqui. Para conceder dias ao cliente, ajuste a assinatura no painel do Stripe.',
  status:
    'O status de uma assinatura de cartão acompanha o Stripe. Aqui é possível apenas cancelá-la (status Cancelada ou o botão Cancelar); o restante é atualizado pelos pagamentos no cartão.',
  canceled:
    'Uma assinatura de cartão cancelada não pode ser reativada nem alterada: o cliente deve assinar novamente com o cartão.',
  cancelWithPlan:
    'Para cancelar uma assinatura de cartão, mantenha o plano atual: o cancelamento e a troca de plano são feitos separadamente.',
  notAtProvider:
    'Esta assinatura de cartão ainda não existe no Stripe (o pagamento não foi concluído). Ela só pode ser cancelada.',
  noResume:
    'O provedor de cartão configurado não permite desfazer o cancelamento agendado. Peça ao cliente para assinar novamente no fim do período.',
} as const

function refuse(message: string): never {
  throw new DomainError('card_subscription_managed', message)
}

/**
 * What an admin edit of a card subscription asks the provider, in order; throws 'card_subscription_managed' (409,
 * with what to do instead) for what cannot go through it. An empty list: nothing the provider manages changes.
 */
export function planCardEdit(current: SubscriptionRow, input: CardEditInput, card: CardGateway): CardCall[] {
  const planChanged = input.plan.id !== current.planId
  const statusChanged = input.status !== current.status
  const flagChanged = input.cancelAtPeriodEnd !== current.cancelAtPeriodEnd
  if (input.userId !== current.userId) refuse(cardEditMessages.user)
  if (
    input.start.getTime() !== current.currentPeriodStart.getTime() ||
    input.end.getTime() !== current.currentPeriodEnd.getTime()
  ) {
    refuse(cardEditMessages.period)
  }
  if (current.status === 'canceled') {
    if (planChanged || statusChanged || flagChanged) refuse(cardEditMessages.canceled)
    return []
  }
  if (statusChanged && input.status !== 'canceled') refuse(cardEditMessages.status)
  if (input.status === 'canceled') {
    if (planChanged) refuse(cardEditMessages.cancelWithPlan)
    return current.stripeSubscriptionId ? [{ op: 'cancelNow' }] : []
  }
  if (!(planChanged || flagChanged)) return []
  if (!current.stripeSubscriptionId) refuse(cardEditMessages.notAtProvider)
  const calls: CardCall[] = []
  if (planChanged) calls.push({ op: 'changePlan', planId: input.plan.id })
  if (flagChanged) {
    if (input.cancelAtPeriodEnd) calls.push({ op: 'cancelAtPeriodEnd' })
    else if (card.resumeRenewal) calls.push({ op: 'resumeRenewal' })
    else refuse(cardEditMessages.noResume)
  }
  return calls
}

/** Makes the calls at the provider, in order; a failure stops there (502 card_provider_error, logged). */
export async function runCardCalls(
  card: CardGateway,
  stripeSubscriptionId: string | null,
  plan: Plan,
  calls: CardCall[],
  log?: { warn(obj: object, msg: string): void },
): Promise<void> {
  for (const call of calls) {
    if (!stripeSubscriptionId) throw new Error('a card call without a provider subscription')
    try {
      if (call.op === 'cancelNow') await card.cancelNow(stripeSubscriptionId)
      else if (call.op === 'changePlan') {
        // A pending update (the prorated charge was declined): Stripe keeps the old price, and so do we.
        const outcome = await card.changePlan(stripeSubscriptionId, plan)
        if (outcome?.status === 'pending') throw new DomainError('card_declined')
      } else if (call.op === 'cancelAtPeriodEnd') await card.cancelAtPeriodEnd(stripeSubscriptionId)
      else if (card.resumeRenewal) await card.resumeRenewal(stripeSubscriptionId)
    } catch (error) {
      if (error instanceof DomainError) throw error
      log?.warn({ err: error, stripeSubscriptionId, op: call.op }, `card provider failed: ${call.op}`)
      throw new DomainError('card_provider_error', undefined, { cause: error })
    }
  }
}
