// Admin subscription changes: create, edit, cancel immediately.
//
// - Saving runs in two steps, as the spec describes: the subscription (one transaction, audited), then, when it is
//   saved as active, the settlement of its pending_pix invoices (a second transaction). When the second step fails
//   the subscription stays saved and the answer carries the spec's warning instead of an error.
// - A double submit of the same creation (same customer, plan, status and period within a minute) answers the row
//   the first one created, serialised by a per-customer advisory lock.
// - Admin cancel calls the card provider first (outside any transaction, so a slow provider holds no row lock);
//   if the provider fails nothing changes here. A second cancel answers the canceled row and writes nothing.
import { randomUUID } from 'node:crypto'
import { and, eq, gt, inArray, sql } from 'drizzle-orm'
import type { adminSubscriptionInputSchema } from '../../../domain/contracts/admin'
import { addDays } from '../../../domain/billing-period'
import { DomainError } from '../../../domain/errors'
import type { z } from 'zod'
import type { AppContext } from '../../context'
import type { Tx } from '../../db/client'
import { profiles } from '../../db/schema/auth'
import { payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import { type Actor, audit } from '../audit/audit'
import { applyPaidUpgrade, pixDueDays } from '../billing/billing.service'
import { newPixReference } from '../pix/pix-settings.repo'
import { type AdminSubscription, findAdminSubscription } from './admin-lists.repo'

export type AdminDeps = Pick<AppContext, 'db' | 'now' | 'card' | 'config'> & {
  log?: { warn(obj: object, msg: string): void }
}
export type AdminSubscriptionInput = z.infer<typeof adminSubscriptionInputSchema>
export type SaveResult = { subscription: AdminSubscription; warning: string | null }

/** The spec's warning when the subscription was saved as active but its pending invoices could not be settled. */
export const settleFailedWarning = 'Assinatura ativada, mas não foi possível atualizar as faturas pendentes.'

type SubscriptionRow = typeof subscriptions.$inferSelect
type PaymentRow = typeof payments.$inferSelect

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

async function requireRefs(tx: Tx, input: AdminSubscriptionInput) {
  const [plan] = await tx.select().from(plans).where(eq(plans.id, input.plan_id)).limit(1)
  if (!plan) throw new DomainError('plan_not_found')
  const [user] = await tx.select({ id: profiles.id }).from(profiles).where(eq(profiles.id, input.user_id)).limit(1)
  if (!user) throw new DomainError('user_not_found')
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
  const savedId = await deps.db.transaction(async (tx) => {
    const plan = await requireRefs(tx, input)
    if (id === null) {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`admin-subscription:${input.user_id}`}))`)
      const [twin] = await tx
        .select({ id: subscriptions.id })
        .from(subscriptions)
        .where(
          and(
            eq(subscriptions.userId, input.user_id),
            eq(subscriptions.planId, plan.id),
            eq(subscriptions.status, input.status),
            eq(subscriptions.currentPeriodStart, start),
            eq(subscriptions.currentPeriodEnd, end),
            gt(subscriptions.createdAt, addDays(now, -1 / 1440)),
          ),
        )
        .limit(1)
      if (twin) return twin.id

      const [created] = await tx
        .insert(subscriptions)
        .values({
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
        .returning()
      if (!created) throw new Error('insert into subscriptions returned nothing')
      let invoiceId: string | null = null
      if (created.status === 'pending_pix') {
        const [invoice] = await tx
          .insert(payments)
          .values({
            id: randomUUID(),
            subscriptionId: created.id,
            amountCents: plan.priceCents,
            status: 'pending_pix',
            paymentMethod: 'pix',
            type: 'new',
            metadata: { type: 'new' },
            dueDate: addDays(now, pixDueDays),
            pixReference: newPixReference('ASS'),
            createdAt: now,
            updatedAt: now,
          })
          .returning({ id: payments.id })
        invoiceId = invoice?.id ?? null
      }
      await audit(tx, actor, 'subscription.admin_create', 'subscription', created.id, {
        after: { ...snapshot(created), invoiceId },
      })
      return created.id
    }

    const [locked] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id)).for('update')
    if (!locked) throw new DomainError('subscription_not_found')
    const startChanged = locked.currentPeriodStart.getTime() !== start.getTime()
    const [updated] = await tx
      .update(subscriptions)
      .set({
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
      .where(eq(subscriptions.id, id))
      .returning()
    if (!updated) throw new Error(`subscription ${id} vanished while locked`)
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

/**
 * The subscription's pending_pix invoices become paid by manual confirmation (spec "Confirm manually"), one audit
 * row each; a paid upgrade invoice also switches the plan, as a confirmed one would.
 */
export async function settlePendingPixInvoices(
  deps: AdminDeps,
  actor: Actor,
  subscriptionId: string,
): Promise<PaymentRow[]> {
  const now = deps.now()
  return deps.db.transaction(async (tx) => {
    const settled = await tx
      .update(payments)
      .set({ status: 'paid', paymentMethod: 'manual_confirmation', paidAt: now, updatedAt: now })
      .where(and(eq(payments.subscriptionId, subscriptionId), eq(payments.status, 'pending_pix')))
      .returning()
    for (const payment of settled) {
      await audit(tx, actor, 'payment.manual_confirmation', 'payment', payment.id, {
        before: { status: 'pending_pix', paymentMethod: 'pix' },
        after: { status: 'paid', paymentMethod: 'manual_confirmation', paidAt: now.toISOString() },
      })
      await applyPaidUpgrade(tx, payment, { actor, now })
    }
    return settled
  })
}

const openStatuses = ['pending', 'pending_pix'] as const

/** admin-cancel-subscription: ends the subscription now and voids its open invoices. */
export async function adminCancelSubscription(deps: AdminDeps, actor: Actor, id: string): Promise<AdminSubscription> {
  const [current] = await deps.db.select().from(subscriptions).where(eq(subscriptions.id, id)).limit(1)
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
      const [locked] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id)).for('update')
      if (!locked) throw new DomainError('subscription_not_found')
      if (locked.status === 'canceled') return // a concurrent cancel won the lock and did the work
      const [updated] = await tx
        .update(subscriptions)
        .set({ status: 'canceled', canceledAt: now, cancelAtPeriodEnd: false, updatedAt: now })
        .where(eq(subscriptions.id, id))
        .returning()
      const voided = await tx
        .update(payments)
        .set({ status: 'void', updatedAt: now })
        .where(and(eq(payments.subscriptionId, id), inArray(payments.status, [...openStatuses])))
        .returning({ id: payments.id })
      await audit(tx, actor, 'subscription.admin_cancel', 'subscription', id, {
        before: snapshot(locked),
        after: { ...(updated ? snapshot(updated) : {}), voidedPaymentIds: voided.map((p) => p.id) },
      })
    })
  }
  const subscription = await findAdminSubscription(deps.db, id)
  if (!subscription) throw new DomainError('subscription_not_found')
  return subscription
}
