// Admin subscription changes: create, edit, cancel immediately.
//
// - Saving runs in two steps, as the spec describes: the subscription (one transaction, audited), then, when it is
//   saved as active, the settlement of its pending_pix invoices (a second transaction). When the second step fails
//   the subscription stays saved and the answer carries the spec's warning instead of an error.
// - A double submit of the same creation (same customer, plan, status and period within a minute) answers the row
//   the first one created, serialised by a per-customer advisory lock.
// - A card subscription's edit goes through the card provider first or is refused (admin-card-edits.ts).
// - Before saving as active, the form shows what will be settled (settlementPreview, the same selection as the
//   settlement), and the settlement's audit row on the subscription lists the invoices and the total.
// - Admin cancel calls the card provider first (outside any transaction, so a slow provider holds no row lock);
//   if the provider fails nothing changes here. A second cancel answers the canceled row and writes nothing.
import { randomUUID } from 'node:crypto'
import type { adminSubscriptionInputSchema } from '../../../domain/contracts/admin'
import { addDays } from '../../../domain/billing-period'
import { DomainError } from '../../../domain/errors'
import type { z } from 'zod'
import type { AppContext } from '../../context'
import type { Plan } from '../../../domain/contracts/plans'
import type { Executor, Tx } from '../../db/client'
import { type Actor, audit } from '../audit/audit'
import { pixDueDays } from '../billing/billing.service'
import { applyPaidUpgrade } from '../billing/customer-upgrade.service'
import type { CardGateway } from '../billing/card-gateway'
import { toPlan } from '../plans/plans.service'
import { type CardCall, type CardEditInput, planCardEdit, runCardCalls } from './admin-card-edits'
import { issuePixInvoice } from '../billing/pix-invoice'
import { type AdminSubscription, findAdminSubscription } from './admin-lists.repo'
import {
  findPlanRow,
  findSubscriptionRow,
  findTwinSubscription,
  insertSubscriptionRow,
  lockAdminCreation,
  lockSubscriptionRow,
  markPaidManually,
  profileExists,
  settleableInvoices,
  updateSubscriptionRow,
  voidOpenPayments,
} from './admin.repo'
import type { PaymentRow, SubscriptionRow } from '../../db/schema/billing'
import type { PlanRow } from '../../db/schema/plans'

export type AdminDeps = Pick<AppContext, 'db' | 'now' | 'card' | 'config'> & {
  log?: { warn(obj: object, msg: string): void }
}
export type AdminSubscriptionInput = z.infer<typeof adminSubscriptionInputSchema>
export type SaveResult = { subscription: AdminSubscription; warning: string | null }

/** The spec's warning when the subscription was saved as active but its pending invoices could not be settled. */
export const settleFailedWarning = 'Assinatura ativada, mas não foi possível atualizar as faturas pendentes.'

/** The second step of "save as active": pending_pix invoices → paid by manual confirmation. Replaceable in tests. */
export type SettleInvoices = (deps: AdminDeps, actor: Actor, subscriptionId: string) => Promise<PaymentRow[]>

function snapshot(s: SubscriptionRow) {
  return {
    userId: s.userId,
    planId: s.planId,
    status: s.status,
    currentPeriodStart: s.currentPeriodStart.toISOString(),
    currentPeriodEnd: s.currentPeriodEnd.toISOString(),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    canceledAt: s.canceledAt?.toISOString() ?? null,
  }
}

async function requireRefs(tx: Executor, input: AdminSubscriptionInput) {
  const plan = await findPlanRow(tx, input.plan_id)
  if (!plan) throw new DomainError('plan_not_found')
  if (!(await profileExists(tx, input.user_id))) throw new DomainError('user_not_found')
  return plan
}

/**
 * POST /api/admin/subscriptions (id null) and PUT /api/admin/subscriptions/:id. Creating one as pending_pix also
 * issues its PIX invoice for the plan price (type 'new', due in 3 days); saving as active settles the pending_pix
 * invoices afterwards (see the file comment).
 */
export async function saveSubscription(
  deps: AdminDeps,
  actor: Actor,
  id: string | null,
  input: AdminSubscriptionInput,
  settle: SettleInvoices = settlePendingPixInvoices,
): Promise<SaveResult> {
  const now = deps.now()
  const start = new Date(input.current_period_start)
  const end = new Date(input.current_period_end)
  // A card subscription is changed at the provider first (admin-card-edits.ts), or the edit is refused.
  let cardCalls: CardCall[] = []
  if (id !== null) {
    const current = await findSubscriptionRow(deps.db, id)
    if (current?.billingMethod === 'card') {
      const plan = toPlan(await requireRefs(deps.db, input))
      cardCalls = planCardEdit(current, cardEditOf(input, plan, start, end), deps.card)
      await runCardCalls(deps.card, current.stripeSubscriptionId, plan, cardCalls, deps.log)
    }
  }
  const savedId = await deps.db.transaction(async (tx) => {
    const plan = await requireRefs(tx, input)
    if (id === null) {
      await lockAdminCreation(tx, input.user_id)
      const twin = await findTwinSubscription(tx, {
        userId: input.user_id,
        planId: plan.id,
        status: input.status,
        start,
        end,
        since: addDays(now, -1 / 1440),
      })
      if (twin) return twin

      const created = await insertSubscriptionRow(tx, {
        id: randomUUID(),
        userId: input.user_id,
        planId: plan.id,
        status: input.status,
        billingMethod: 'pix',
        currentPeriodStart: start,
        currentPeriodEnd: end,
        anchorDay: start.getUTCDate(),
        cancelAtPeriodEnd: input.cancel_at_period_end,
        canceledAt: input.status === 'canceled' ? now : null,
        createdAt: now,
        updatedAt: now,
      })
      let invoiceId: string | null = null
      if (created.status === 'pending_pix') {
        const invoice = await issuePixInvoice(tx, {
          subscriptionId: created.id,
          type: 'new',
          amountCents: plan.priceCents,
          dueDate: addDays(now, pixDueDays),
          now,
        })
        invoiceId = invoice.id
      }
      await audit(tx, actor, 'subscription.admin_create', 'subscription', created.id, {
        after: { ...snapshot(created), invoiceId },
      })
      return created.id
    }

    const locked = await lockSubscriptionRow(tx, id)
    if (!locked) throw new DomainError('subscription_not_found')
    if (locked.billingMethod === 'card') {
      return saveCardEdit(tx, { actor, card: deps.card, now }, locked, { input, plan, start, end }, cardCalls)
    }
    const startChanged = locked.currentPeriodStart.getTime() !== start.getTime()
    const updated = await updateSubscriptionRow(tx, id, {
      userId: input.user_id,
      planId: plan.id,
      status: input.status,
      currentPeriodStart: start,
      currentPeriodEnd: end,
      anchorDay: startChanged ? start.getUTCDate() : locked.anchorDay,
      cancelAtPeriodEnd: input.cancel_at_period_end,
      canceledAt: input.status === 'canceled' ? (locked.canceledAt ?? now) : null,
      updatedAt: now,
    })
    await audit(tx, actor, 'subscription.admin_update', 'subscription', id, {
      before: snapshot(locked),
      after: snapshot(updated),
    })
    return id
  })

  let warning: string | null = null
  if (input.status === 'active') {
    try {
      await settle(deps, actor, savedId)
    } catch (error) {
      deps.log?.warn({ err: error, subscriptionId: savedId }, 'settling pending PIX invoices failed')
      warning = settleFailedWarning
    }
  }
  const subscription = await findAdminSubscription(deps.db, savedId)
  if (!subscription) throw new Error(`subscription ${savedId} vanished after its save`)
  return { subscription, warning }
}

function cardEditOf(input: AdminSubscriptionInput, plan: Plan, start: Date, end: Date): CardEditInput {
  return {
    userId: input.user_id,
    plan,
    status: input.status,
    start,
    end,
    cancelAtPeriodEnd: input.cancel_at_period_end,
  }
}

/**
 * The local half of a card subscription edit, after the provider accepted its calls: plan, status and the
 * cancel-at-period-end flag (customer and period cannot change); a cancel also voids the open invoices.
 */
async function saveCardEdit(
  tx: Tx,
  { actor, card, now }: { actor: Actor; card: CardGateway; now: Date },
  locked: SubscriptionRow,
  { input, plan, start, end }: { input: AdminSubscriptionInput; plan: PlanRow; start: Date; end: Date },
  calls: CardCall[],
): Promise<string> {
  // The refusals again, under the lock (the row may have become a card subscription since it was read). The
  // provider's own webhooks may already have recorded what it was asked: that is the state we are writing too.
  planCardEdit(locked, cardEditOf(input, toPlan(plan), start, end), card)
  const canceling = input.status === 'canceled' && locked.status !== 'canceled'
  const updated = await updateSubscriptionRow(tx, locked.id, {
    planId: plan.id,
    status: input.status,
    cancelAtPeriodEnd: canceling ? false : input.cancel_at_period_end,
    canceledAt: input.status === 'canceled' ? (locked.canceledAt ?? now) : null,
    updatedAt: now,
  })
  const voided = canceling ? await voidOpenPayments(tx, locked.id, now) : []
  await audit(tx, actor, 'subscription.admin_update', 'subscription', locked.id, {
    before: snapshot(locked),
    after: {
      ...snapshot(updated),
      provider: calls.map((c) => c.op),
      ...(canceling ? { voidedPaymentIds: voided } : {}),
    },
  })
  return locked.id
}

/** GET /api/admin/subscriptions/:id/settlement-preview: what saving it as active would settle, and the total. */
export async function settlementPreview(
  deps: AdminDeps,
  subscriptionId: string,
): Promise<{ invoices: SettlementInvoice[]; totalCents: number }> {
  if (!(await findSubscriptionRow(deps.db, subscriptionId))) throw new DomainError('subscription_not_found')
  const invoices = (await settleableInvoices(deps.db, subscriptionId, deps.now())).map(settlementInvoice)
  return { invoices, totalCents: invoices.reduce((sum, p) => sum + p.amountCents, 0) }
}

type SettlementInvoice = {
  id: string
  type: PaymentRow['type']
  amountCents: number
  dueDate: string
  pixReference: string | null
}

function settlementInvoice(p: PaymentRow): SettlementInvoice {
  return {
    id: p.id,
    type: p.type,
    amountCents: p.amountCents,
    dueDate: p.dueDate.toISOString(),
    pixReference: p.pixReference,
  }
}

/**
 * The subscription's pending_pix invoices become paid by manual confirmation (spec "Confirm manually"), one audit
 * row each plus one on the subscription listing them all (ids, amounts, total); a paid upgrade invoice also
 * switches the plan, as a confirmed one would. The set is the one the settlement preview showed.
 */
export async function settlePendingPixInvoices(
  deps: AdminDeps,
  actor: Actor,
  subscriptionId: string,
): Promise<PaymentRow[]> {
  const now = deps.now()
  return deps.db.transaction(async (tx) => {
    await lockSubscriptionRow(tx, subscriptionId)
    const due = await settleableInvoices(tx, subscriptionId, now, true)
    if (due.length === 0) return []
    const settled = await markPaidManually(
      tx,
      due.map((p) => p.id),
      now,
    )
    for (const payment of settled) {
      await audit(tx, actor, 'payment.manual_confirmation', 'payment', payment.id, {
        before: { status: 'pending_pix', paymentMethod: 'pix' },
        after: { status: 'paid', paymentMethod: 'manual_confirmation', paidAt: now.toISOString() },
      })
      await applyPaidUpgrade(tx, payment, { actor, now, notify: deps })
    }
    const listed = settled.map(settlementInvoice)
    await audit(tx, actor, 'subscription.invoices_settled', 'subscription', subscriptionId, {
      after: {
        invoices: listed.map(({ id, type, amountCents }) => ({ id, type, amountCents })),
        totalCents: listed.reduce((sum, p) => sum + p.amountCents, 0),
        paymentMethod: 'manual_confirmation',
      },
    })
    return settled
  })
}

/** admin-cancel-subscription: ends the subscription now and voids its open invoices. */
export async function adminCancelSubscription(deps: AdminDeps, actor: Actor, id: string): Promise<AdminSubscription> {
  const current = await findSubscriptionRow(deps.db, id)
  if (!current) throw new DomainError('subscription_not_found')
  if (current.status !== 'canceled') {
    const stripeId = current.stripeSubscriptionId
    if (current.billingMethod === 'card' && stripeId) {
      try {
        await deps.card.cancelNow(stripeId)
      } catch (error) {
        if (error instanceof DomainError) throw error
        deps.log?.warn({ err: error, subscriptionId: id }, 'card provider failed: cancelNow')
        throw new DomainError('card_provider_error', undefined, { cause: error })
      }
    }
    const now = deps.now()
    await deps.db.transaction(async (tx) => {
      const locked = await lockSubscriptionRow(tx, id)
      if (!locked) throw new DomainError('subscription_not_found')
      if (locked.status === 'canceled') return // a concurrent cancel won the lock and did the work
      const updated = await updateSubscriptionRow(tx, id, {
        status: 'canceled',
        canceledAt: now,
        cancelAtPeriodEnd: false,
        updatedAt: now,
      })
      const voided = await voidOpenPayments(tx, id, now)
      await audit(tx, actor, 'subscription.admin_cancel', 'subscription', id, {
        before: snapshot(locked),
        after: { ...snapshot(updated), voidedPaymentIds: voided },
      })
    })
  }
  const subscription = await findAdminSubscription(deps.db, id)
  if (!subscription) throw new DomainError('subscription_not_found')
  return subscription
}
