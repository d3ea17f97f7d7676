import { DomainError } from '../../../domain/errors'
import { isChargeTxid, paymentIdFromTxid, pixTxidFor } from '../../../domain/pix-txid'
import { audit, systemActor } from '../audit/audit'
import { confirmPayment } from '../admin/admin-payments.service'
import { ApiPixError } from './api-pix-client'
import { centsFromPixValor, type Pix } from './api-pix-types'
import type { PixCallbackItem } from './pix-callback'
import { ensurePixCharge, maxChargeAttempts, type PixDeps } from '../billing/pix-invoice'
import {
  endCharge,
  endToEndRecorded,
  expiredCharges,
  invoicesToCharge,
  markChargePaid,
  openInvoicesByTxids,
  paymentByTxid,
  processingRefunds,
  recordedEndToEnds,
  settleRefund,
} from './pix-confirm.repo'
import { getPixSettings } from './pix-settings.repo'
import type { PaymentRow } from '../../db/schema/billing'

export const apiPixActor = systemActor('api-pix')

export type ConfirmOutcome =
  | 'paid'
  | 'review'
  | 'duplicate'
  | 'unknown_txid'
  | 'not_received'
  | 'not_ours'
  | 'not_open'
  | 'error'

/** The payer's name, where PSPs put it (not in the BCB schema: `pagador` or Efí's `gnExtras.pagador`). */
function payerNameOf(pix: Pix): string | null {
  const record = pix as Record<string, unknown>
  const pagador = (record.pagador ?? (record.gnExtras as Record<string, unknown> | undefined)?.pagador) as
    | { nome?: unknown }
    | undefined
  return typeof pagador?.nome === 'string' && pagador.nome.trim() ? pagador.nome.trim() : null
}

/** Our payment a txid names: the derived charge txid, or the static code's reference. */
async function paymentForTxid(deps: PixDeps, txid: string): Promise<PaymentRow | null> {
  return paymentByTxid(deps.db, txid, paymentIdFromTxid(txid))
}

const inFlight = new WeakMap<object, Map<string, Promise<ConfirmOutcome>>>()

/**
 * Re-reads one notified PIX at the PSP and confirms the invoice it pays. Calls for the same endToEndId in this
 * process run one after the other (the database's unique endToEndId covers other processes).
 */
export function confirmFromPsp(deps: PixDeps, item: PixCallbackItem): Promise<ConfirmOutcome> {
  let byE2e = inFlight.get(deps.db)
  if (!byE2e) {
    byE2e = new Map()
    inFlight.set(deps.db, byE2e)
  }
  const previous = byE2e.get(item.endToEndId) ?? Promise.resolve('duplicate' as ConfirmOutcome)
  const current = previous.catch(() => 'error' as const).then(() => confirmOnce(deps, item))
  byE2e.set(item.endToEndId, current)
  void current.finally(() => {
    if (byE2e.get(item.endToEndId) === current) byE2e.delete(item.endToEndId)
  })
  return current
}

async function confirmOnce(deps: PixDeps, item: PixCallbackItem): Promise<ConfirmOutcome> {
  const client = deps.pix
  if (!client) return 'error'
  const { endToEndId } = item
  // Already recorded: a duplicate or a late callback, or the reconciliation after the webhook.
  if (await endToEndRecorded(deps.db, endToEndId)) {
    // PSPs notify again when a refund of this PIX reaches its final state: record it.
    await settleRefunds(deps, endToEndId)
    return 'duplicate'
  }

  // Only a txid naming one of our open invoices is worth a call to the PSP: a flood of made-up callbacks costs
  // one indexed query each, never a PSP request.
  if (!item.txid) return 'unknown_txid'
  const payment = await paymentForTxid(deps, item.txid)
  if (!payment) return 'unknown_txid'
  if (payment.status === 'paid' || (payment.status === 'review' && payment.pixEndToEndId)) {
    // A second PIX for an invoice already settled (a static code paid twice?): the admin sees it at the PSP.
    deps.log?.warn({ paymentId: payment.id, endToEndId }, 'pix: a PIX notified for an invoice already settled')
    return 'not_open'
  }
  if (payment.status !== 'pending_pix' && payment.status !== 'pending' && payment.status !== 'review') {
    deps.log?.warn({ paymentId: payment.id, endToEndId, status: payment.status }, 'pix: a PIX for a closed invoice')
    return 'not_open'
  }

  const settings = await getPixSettings(deps.db)
  const key = settings?.pixKey.trim() ?? ''
  let pix: Pix | undefined
  try {
    if (isChargeTxid(item.txid)) {
      const cob = await client.getCob(item.txid)
      if (cob.chave !== key) return 'not_ours'
      pix = cob.pix?.find((p) => p.endToEndId === endToEndId)
      if (pix) pix = { ...pix, txid: pix.txid ?? cob.txid }
    } else {
      pix = await client.getPix(endToEndId)
      if (pix.chave !== undefined && pix.chave !== key) return 'not_ours'
    }
  } catch (error) {
    if (error instanceof ApiPixError && (error.status === 404 || error.status === 400)) return 'not_received'
    throw error
  }
  // Only what the PSP itself says was received for this very txid confirms anything.
  if (!pix || pix.txid !== item.txid || pix.endToEndId !== endToEndId) return 'not_received'

  try {
    const result = await confirmPayment(
      deps,
      apiPixActor,
      payment.id,
      { amount_received_cents: centsFromPixValor(pix.valor), end_to_end_id: endToEndId },
      { via: 'api_pix', payerName: payerNameOf(pix) },
    )
    if (result.flagged) return 'review'
  } catch (error) {
    if (error instanceof DomainError && (error.code === 'e2e_id_taken' || error.code === 'payment_not_pending')) {
      return 'duplicate'
    }
    throw error
  }
  await markChargePaid(deps.db, payment.id)
  return 'paid'
}

/** Refund rows of this PIX still in processing take the state the PSP reports (`GET /pix/{e2eid}`). */
async function settleRefunds(deps: PixDeps, endToEndId: string): Promise<void> {
  const open = await processingRefunds(deps.db, endToEndId)
  if (open.length === 0 || !deps.pix) return
  const pix = await deps.pix.getPix(endToEndId)
  for (const refund of open) {
    const reported = pix.devolucoes?.find((d) => d.id === refund.refundId)
    if (!reported || (reported.status !== 'DEVOLVIDO' && reported.status !== 'NAO_REALIZADO')) continue
    await deps.db.transaction(async (tx) => {
      const updated = await settleRefund(tx, refund.id, reported.status as 'DEVOLVIDO' | 'NAO_REALIZADO', deps.now())
      if (!updated) return
      await audit(tx, apiPixActor, 'payment.pix_refund_settled', 'payment', refund.paymentId, {
        before: { refundId: refund.refundId, status: 'EM_PROCESSAMENTO' },
        after: { refundId: refund.refundId, status: updated.status, motivo: reported.motivo ?? null },
      })
    })
  }
}

/** Each notified PIX, one after the other; a failure is logged and left to the reconciliation. */
export async function confirmNotified(deps: PixDeps, items: PixCallbackItem[]): Promise<ConfirmOutcome[]> {
  const outcomes: ConfirmOutcome[] = []
  for (const item of items) {
    try {
      outcomes.push(await confirmFromPsp(deps, item))
    } catch (error) {
      deps.log?.warn({ err: error, endToEndId: item.endToEndId }, 'pix: confirmation failed; reconciliation retries')
      outcomes.push('error')
    }
  }
  return outcomes
}

/** How far back each reconciliation lists PIX received (overlapping runs; the endToEndId dedupes). */
export const reconcileWindowMs = 24 * 60 * 60 * 1000

/**
 * The reconciliation pass (billing tick): (1) lists the PIX received in the last day and confirms those the webhook
 * missed, (2) retries charges of open invoices left on the static code (or issued without one: renewals), (3) re-reads charges past their expiry
 * and marks them expired although the PSP still says ATIVA (the invoice follows the overdue rules).
 */
export async function reconcilePix(deps: PixDeps, now: Date): Promise<{ processed: number }> {
  const client = deps.pix
  if (!client) return { processed: 0 }
  let processed = 0

  // (1) PIX received that no invoice recorded yet.
  let received: Pix[] = []
  try {
    received = await client.listAllPix({ inicio: new Date(now.getTime() - reconcileWindowMs), fim: now })
  } catch (error) {
    deps.log?.warn({ err: error }, 'pix: reconciliation could not list the PIX received; next tick retries')
  }
  const withTxid = received.filter((p): p is Pix & { txid: string } => typeof p.txid === 'string')
  if (withTxid.length > 0) {
    const e2es = withTxid.map((p) => p.endToEndId)
    const known = await recordedEndToEnds(deps.db, e2es)
    const txids = [...new Set(withTxid.map((p) => p.txid))]
    const derivedIds = txids.map(paymentIdFromTxid).filter((id): id is string => id !== null)
    const ours = await openInvoicesByTxids(deps.db, txids, derivedIds)
    const ourTxids = new Set<string>()
    for (const row of ours) {
      ourTxids.add(pixTxidFor(row.id))
      if (row.pixTxid) ourTxids.add(row.pixTxid)
      if (row.pixReference) ourTxids.add(row.pixReference)
    }
    for (const p of withTxid) {
      if (known.has(p.endToEndId) || !ourTxids.has(p.txid)) continue
      const [outcome] = await confirmNotified(deps, [{ endToEndId: p.endToEndId, txid: p.txid }])
      if (outcome === 'paid' || outcome === 'review') processed += 1
    }
  }

  // (2) Charges to (re)try, after the listing so that a static code just paid is confirmed rather than charged:
  // open PIX invoices without a live charge, not yet due.
  const toCharge = await invoicesToCharge(deps.db, now, maxChargeAttempts)
  for (const row of toCharge) {
    const after = await ensurePixCharge(deps, row.id)
    if (after?.pixChargeStatus === 'active') processed += 1
  }

  // (3) Charges past their expiry: paid after all (callback and listing both missed)? Otherwise expired.
  const expiring = await expiredCharges(deps.db, now)
  for (const payment of expiring) {
    if (!payment.pixTxid) continue
    try {
      const cob = await client.getCob(payment.pixTxid)
      const paid = cob.status === 'CONCLUIDA' ? cob.pix?.[0] : undefined
      if (paid) {
        await confirmNotified(deps, [{ endToEndId: paid.endToEndId, txid: payment.pixTxid }])
        processed += 1
        continue
      }
      const status = cob.status.startsWith('REMOVIDA') ? 'removed' : 'expired'
      await endCharge(deps.db, payment.id, status, now)
      processed += 1
    } catch (error) {
      deps.log?.warn({ err: error, paymentId: payment.id }, 'pix: could not re-read an expired charge; retried')
    }
  }
  return { processed }
}
