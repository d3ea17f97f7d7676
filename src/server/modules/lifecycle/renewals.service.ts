// PIX renewals: the invoice for the next period, created once, 3 days before the period ends.
import { and, eq, lte } from 'drizzle-orm'
import { addDays } from '../../../domain/billing-period'
import { subscriptions } from '../../db/schema/billing'
import { auditMany, systemActor } from '../audit/audit'
import { issuePixRenewals } from '../billing/pix-invoice'
import { noRenewalYet, plansByIds } from './lifecycle.repo'
import { isLateRenewal } from './notification-templates'
import { renderInvoicesCreated } from './notifications.render'
import { enqueueMany } from './notifications.service'
import { claimPix, forEachClaimed, type LifecycleDeps, type PassResult } from './pass-runner'
import { markLateRenewalsOverdue } from './period-end.service'

/** The renewal invoice is issued this many days before the period ends, and is due when it ends. */
export const renewalLeadDays = 3

const actor = systemActor('billing')

/**
 * For every active (or trialing) PIX subscription not set to cancel, whose period ends within renewalLeadDays:
 * a pending_pix invoice of type 'renewal' for the plan price, due at the period end. The partial unique index
 * payments_one_renewal_per_period_idx (subscription, due date, voided ones excluded) makes it once, whatever the
 * number of workers; the invoice_created notification is enqueued in the same transaction. A plan switch while it
 * is open re-issues it at the new price (billing/upgrade.service.ts); a voided renewal is never issued again here.
 * A batch is one INSERT of invoices, one of audit rows and one of notifications.
 */
export async function createRenewalInvoices(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  const horizon = addDays(now, renewalLeadDays)
  const processed = await forEachClaimed(
    deps,
    'renewals',
    claimPix(
      ['active', 'trialing'],
      and(eq(subscriptions.cancelAtPeriodEnd, false), lte(subscriptions.currentPeriodEnd, horizon), noRenewalYet),
    ),
    async (tx, batch) => {
      const plans = await plansByIds(
        tx,
        batch.map((s) => s.planId),
      )
      const inputs = batch.map((subscription) => {
        const plan = plans.get(subscription.planId)
        if (!plan) throw new Error(`plan ${subscription.planId} of subscription ${subscription.id} is missing`)
        return {
          subscriptionId: subscription.id,
          type: 'renewal' as const,
          amountCents: plan.priceCents,
          dueDate: subscription.currentPeriodEnd,
          now,
        }
      })
      // One already issued (another worker, between our claim and our insert) is not in the answer.
      const issued = await issuePixRenewals(tx, inputs)
      const planOf = new Map(batch.map((s) => [s.id, s.planId]))
      await auditMany(
        tx,
        actor,
        issued.map((payment) => ({
          action: 'payment.renewal_invoice',
          entity: 'payment',
          entityId: payment.id,
          after: {
            subscriptionId: payment.subscriptionId,
            planId: planOf.get(payment.subscriptionId),
            amountCents: payment.amountCents,
            dueDate: payment.dueDate.toISOString(),
            by: 'billing',
          },
        })),
      )
      // API Pix: the notification waits for the PSP charge (pix_reconcile, next pass) and goes out with its code.
      // A renewal issued already due (the jobs were down past the period end) is announced by the overdue message
      // instead, in this same batch, which carries the invoice and its code.
      const announced = issued.filter((p) => !isLateRenewal(p.dueDate, now))
      if (!deps.pix && announced.length > 0)
        await enqueueMany(
          tx,
          now,
          await renderInvoicesCreated(
            tx,
            deps,
            announced.map((p) => p.id),
          ),
        )
      // Last: a renewal issued already due makes its subscription past_due in this same batch (see there).
      const issuedFor = new Set(issued.map((p) => p.subscriptionId))
      await markLateRenewalsOverdue(
        tx,
        deps,
        now,
        batch.filter((s) => issuedFor.has(s.id)),
      )
      return [...issuedFor]
    },
  )
  return { processed }
}
