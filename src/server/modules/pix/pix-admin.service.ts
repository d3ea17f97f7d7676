// API Pix for the admin: registering the webhook, refunding a PIX received, and the confirmation figures.
import { randomUUID } from 'node:crypto'
import { DomainError } from '../../../domain/errors'
import { pixTxidFor } from '../../../domain/pix-txid'
import { type Actor, audit } from '../audit/audit'
import { ApiPixError } from './api-pix-client'
import type { PixDeps } from '../billing/pix-invoice'
import {
  insertRefund,
  lockPayment,
  pixPaidSince,
  pixWaiting,
  refundedSums,
  refundsOf,
  updateRefund,
} from './pix-admin.repo'
import { getPixSettings } from './pix-settings.repo'
import type { PixRefundRow as RefundRow } from '../../db/schema/billing'

/** Where the PSP must call (it appends '/pix'). */
export function pixWebhookUrl(deps: Pick<PixDeps, 'config'>): string {
  return `${deps.config.appUrl.replace(/\/+$/, '')}/api/webhooks/pix`
}

/** `PUT /webhook/{chave}` with APP_URL + '/api/webhooks/pix' for the key of the PIX settings. */
export async function registerPixWebhook(deps: PixDeps): Promise<{ chave: string; webhookUrl: string }> {
  if (!deps.pix) throw new DomainError('pix_api_disabled')
  const chave = (await getPixSettings(deps.db))?.pixKey.trim() ?? ''
  if (!chave) throw new DomainError('pix_not_configured')
  const webhookUrl = pixWebhookUrl(deps)
  try {
    await deps.pix.putWebhook(chave, webhookUrl)
  } catch (error) {
    if (error instanceof ApiPixError) throw new DomainError('pix_provider_error', undefined, { cause: error })
    throw error
  }
  return { chave, webhookUrl }
}

/** At start-up: best effort, logged either way. */
export async function registerPixWebhookAtStartup(
  deps: PixDeps & { log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void } },
): Promise<void> {
  if (!deps.pix) return
  try {
    const done = await registerPixWebhook(deps)
    deps.log.info(done, 'pix: webhook registered at the PSP')
  } catch (error) {
    deps.log.warn({ err: error }, 'pix: webhook not registered at start-up; use the admin PIX settings to retry')
  }
}

/** PIX may be refunded up to 90 days after it was paid (API Pix, MED rules). */
export const refundWindowDays = 90

export type PixRefundView = {
  id: string
  amountCents: number
  reason: string
  status: RefundRow['status']
  createdAt: string
}

export function toRefundView(row: RefundRow): PixRefundView {
  return {
    id: row.id,
    amountCents: row.amountCents,
    reason: row.reason,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
  }
}

/** Refunded so far (requests that did not fail), per payment. */
export async function refundedCentsByPayment(deps: Pick<PixDeps, 'db'>, ids: string[]): Promise<Map<string, number>> {
  return refundedSums(deps.db, ids)
}

/**
 * Refunds `amountCents` of a paid PIX (full or partial) with a reason: the refund row and its audit row are written
 * with the payment locked (so two refunds cannot exceed the amount received), then `PUT /pix/{e2eid}/devolucao/{id}`
 * with the row's id as the PSP's idempotency key; the PSP's answer updates the row.
 */
export async function refundPix(
  deps: PixDeps,
  actor: Actor,
  paymentId: string,
  input: { amount_cents: number; reason: string },
): Promise<{ refund: PixRefundView; refundedCents: number }> {
  const client = deps.pix
  if (!client) throw new DomainError('pix_api_disabled')
  const now = deps.now()
  const created = await deps.db.transaction(async (tx) => {
    const payment = await lockPayment(tx, paymentId)
    if (!payment) throw new DomainError('payment_not_found')
    const paidAt = payment.paidAt
    if (
      payment.status !== 'paid' ||
      !payment.pixEndToEndId ||
      !paidAt ||
      now.getTime() - paidAt.getTime() > refundWindowDays * 24 * 60 * 60 * 1000
    ) {
      throw new DomainError('pix_refund_not_allowed')
    }
    const already = (await refundedSums(tx, [payment.id])).get(payment.id) ?? 0
    const received = payment.amountReceivedCents ?? payment.amountCents
    if (already + input.amount_cents > received) throw new DomainError('pix_refund_too_much')
    const id = randomUUID()
    const row = await insertRefund(tx, {
      id,
      paymentId: payment.id,
      refundId: pixTxidFor(id),
      endToEndId: payment.pixEndToEndId,
      amountCents: input.amount_cents,
      reason: input.reason,
      status: 'EM_PROCESSAMENTO',
      createdBy: actor.id,
      createdAt: now,
      updatedAt: now,
    })
    await audit(tx, actor, 'payment.pix_refund', 'payment', payment.id, {
      before: { refundedCents: already, amountReceivedCents: received },
      after: {
        refundId: row.refundId,
        amountCents: input.amount_cents,
        refundedCents: already + input.amount_cents,
        reason: input.reason,
        full: already + input.amount_cents === received,
      },
    })
    return { row, already }
  })
  try {
    const devolucao = await client.putDevolucao(created.row.endToEndId, created.row.refundId, input.amount_cents, {
      descricao: input.reason,
    })
    const status = devolucao.status === 'DEVOLVIDO' || devolucao.status === 'NAO_REALIZADO' ? devolucao.status : null
    const updated = await updateRefund(deps.db, created.row.id, {
      rtrId: devolucao.rtrId ?? null,
      ...(status ? { status } : {}),
      updatedAt: deps.now(),
    })
    return { refund: toRefundView(updated ?? created.row), refundedCents: created.already + input.amount_cents }
  } catch (error) {
    if (!(error instanceof ApiPixError)) throw error
    // The PSP refused (or could not be reached): nothing was refunded; the row says so, with its audit row.
    await deps.db.transaction(async (tx) => {
      await updateRefund(tx, created.row.id, { status: 'NAO_REALIZADO', updatedAt: deps.now() })
      await audit(tx, actor, 'payment.pix_refund_failed', 'payment', paymentId, {
        after: { refundId: created.row.refundId, error: error.message.slice(0, 300) },
      })
    })
    throw new DomainError('pix_provider_error', undefined, { cause: error })
  }
}

export async function listRefunds(deps: Pick<PixDeps, 'db'>, paymentId: string): Promise<PixRefundView[]> {
  return (await refundsOf(deps.db, paymentId)).map(toRefundView)
}

/** The refund label of a paid payment: 'Devolvido' (all of it) or 'Devolvido parcialmente', else null. */
export function refundLabel(refundedCents: number, receivedCents: number): string | null {
  if (refundedCents <= 0) return null
  return refundedCents >= receivedCents ? 'Devolvido' : 'Devolvido parcialmente'
}

export type PixOverview = {
  provider: 'manual' | 'api-pix'
  /** Seconds from invoice creation to confirmation of PIX invoices paid in the last 30 days. */
  latencyP50Seconds: number | null
  latencyP95Seconds: number | null
  confirmedLast30Days: number
  confirmedAutomatically: number
  /** Open PIX invoices created more than 12 hours ago (waiting for a manual confirmation). */
  waitingOver12h: number
  oldestWaiting: Array<{ id: string; amountCents: number; createdAt: string }>
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index] ?? null
}

export async function pixOverview(deps: Pick<PixDeps, 'db' | 'now' | 'config'>): Promise<PixOverview> {
  const now = deps.now()
  const since = new Date(now.getTime() - 30 * 24 * 60 * 60 * 1000)
  const paid = await pixPaidSince(deps.db, since)
  const seconds = paid
    .map((p) => Math.max(0, Math.round(((p.paidAt?.getTime() ?? 0) - p.createdAt.getTime()) / 1000)))
    .sort((a, b) => a - b)
  const cutoff = new Date(now.getTime() - 12 * 60 * 60 * 1000)
  const waiting = await pixWaiting(deps.db, cutoff, deps.config.PIX_PROVIDER)
  return {
    provider: deps.config.PIX_PROVIDER,
    latencyP50Seconds: percentile(seconds, 50),
    latencyP95Seconds: percentile(seconds, 95),
    confirmedLast30Days: paid.length,
    confirmedAutomatically: paid.filter((p) => p.via === 'api_pix').length,
    waitingOver12h: waiting.count,
    oldestWaiting: waiting.oldest.map((o) => ({
      id: o.id,
      amountCents: o.amountCents,
      createdAt: o.createdAt.toISOString(),
    })),
  }
}
