// PIX renewals: the invoice for the next period, created once, 3 days before the period ends.
import { and, asc, eq, inArray, lte, notInArray, sql } from 'drizzle-orm'
import { addDays } from '../../../domain/billing-period'
import { payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import { audit, systemActor } from '../audit/audit'
import { issuePixInvoice } from '../billing/pix-invoice'
import { enqueue, renderInvoiceCreated } from './notifications.service'
import { claimCursor, forEachClaimed, type LifecycleDeps, type PassResult } from './pass-runner'

/** The renewal invoice is issued this many days before the period ends, and is due when it ends. */
export const renewalLeadDays = 3

const actor = systemActor('billing')

/**
 * For every active (or trialing) PIX subscription not set to cancel, whose period ends within renewalLeadDays:
 * a pending_pix invoice of type 'renewal' for the plan price, due at the period end. The partial unique index
 * payments_one_renewal_per_period_idx (subscription, due date, voided ones excluded) makes it once, whatever the
 * number of workers; the invoice_created notification is enqueued in the same transaction. A plan switch while it
 * is open re-issues it at the new price (billing/upgrade.service.ts); a voided renewal is never issued again here.
 */
export async function createRenewalInvoices(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const horizon = addDays(now, renewalLeadDays)
  const noRenewalYet = sql`not exists (
    select 1 from ${payments}
    where ${payments.subscriptionId} = ${subscriptions.id}
      and ${payments.type} = 'renewal'
      and ${payments.dueDate} = ${subscriptions.currentPeriodEnd})`
  const cursor = claimCursor()
  const processed = await forEachClaimed(
    deps,
    'renewals',
    async (tx, seen) => {
      const [row] = await tx
        .select()
        .from(subscriptions)
        .where(
          and(
            eq(subscriptions.billingMethod, 'pix'),
            inArray(subscriptions.status, ['active', 'trialing']),
            eq(subscriptions.cancelAtPeriodEnd, false),
            lte(subscriptions.currentPeriodEnd, horizon),
            noRenewalYet,
            cursor.from(),
            notInArray(subscriptions.id, seen),
          ),
        )
        .orderBy(asc(subscriptions.currentPeriodEnd), asc(subscriptions.id))
        .limit(1)
        .for('update', { skipLocked: true })
      return cursor.moved(row)
    },
    async (tx, subscription) => {
      const [plan] = await tx.select().from(plans).where(eq(plans.id, subscription.planId)).limit(1)
      if (!plan) throw new Error(`plan ${subscription.planId} of subscription ${subscription.id} is missing`)
      const payment = await issuePixInvoice(tx, {
        subscriptionId: subscription.id,
        type: 'renewal',
        amountCents: plan.priceCents,
        dueDate: subscription.currentPeriodEnd,
        now,
        oncePerPeriod: true,
      })
      if (!payment) return false // another worker issued it between our claim and our insert
      await audit(tx, actor, 'payment.renewal_invoice', 'payment', payment.id, {
        after: {
          subscriptionId: subscription.id,
          planId: plan.id,
          amountCents: payment.amountCents,
          dueDate: payment.dueDate.toISOString(),
          by: 'billing',
        },
      })
      // API Pix: the notification waits for the PSP charge (pix_reconcile, next pass) and goes out with its code.
      const rendered = deps.pix ? null : await renderInvoiceCreated(tx, deps, payment.id)
      if (rendered) await enqueue(tx, now, rendered)
      return true
    },
  )
  return { processed }
}
