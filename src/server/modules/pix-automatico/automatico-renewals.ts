// PIX Automático renewals: one recurring charge (cobr) per subscription and cycle, sent D-8 to D-3; settlement,
// failures with retries (D+1, D+3, D+7), fallback to an ordinary PIX invoice; and the reconciliation pass.
//
// Exactly once: the pass claims a subscription with SELECT … FOR UPDATE SKIP LOCKED, and the charge row is unique
// on (subscription, due date) — the same due date as the renewal invoice's unique index — so several workers make
// one row; its txid is derived from the invoice (PA + the invoice's txid), so a PUT sent twice (two workers, a
// retry after a timeout) is one cobr at the PSP.
import { randomUUID } from 'node:crypto'
import { addDays } from '../../../domain/billing-period'
import { DomainError } from '../../../domain/errors'
import {
  cobrSendClosesDays,
  cobrSendOpensDays,
  cobrTxidFor,
  dayMonthBR,
  daysBetween,
  isoDay,
  nextRetryDate,
} from '../../../domain/pix-automatico'
import type { Tx } from '../../db/client'
import { audit } from '../audit/audit'
import { confirmPayment } from '../admin/admin-payments.service'
import { ApiPixError } from '../pix/api-pix-client'
import { centsFromPixValor, pixValor } from '../pix/api-pix-types'
import { issuePixInvoice } from '../billing/pix-invoice'
import { apiPixActor } from '../pix/pix-confirm.service'
import {
  formatDateBR,
  overdueGraceDays,
  pixAutomaticoFailedMessage,
  pixAutomaticoNoticeMessage,
} from '../lifecycle/notification-templates'
import { enqueue } from '../lifecycle/notifications.service'
import { eachRow, forEachClaimed, type PassResult } from '../lifecycle/pass-runner'
import {
  type AutomaticoDeps,
  attemptsOf,
  automaticoEnabled,
  backToInvoice,
  cancelRecurrence,
  change,
  chargeMove,
  refreshRec,
} from './automatico.service'
import {
  type ChargeRow,
  chargeByTxid,
  chargeHoldsCycle,
  chargesByTxids,
  chargesToSend,
  claimRenewalCandidates,
  customerOf,
  insertCharge,
  latestApprovedRecurrence,
  liveRecurrencesOfCanceledSubscriptions,
  lockCharge,
  lockSubscription,
  markSubscriptionPastDue,
  orphanedDebitInvoices,
  paymentById,
  recurrenceById,
  recurrenceStatuses,
  renewalInvoiceOf,
  subscriptionGoesOn,
  unneededCharges,
  updateCharge,
  updateChargeReturning,
} from './automatico.repo'
import { type Cobr, cancelCobr, getCobr, listCobrs, listRecs, putCobr, retryCobr } from './rec-client'

const dayMs = 86_400_000
const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()))

/** How far back the reconciliation lists recs and cobrs changed at the PSP. */
export const automaticoReconcileWindowMs = 2 * dayMs

/**
 * SQL for the overdue passes: the subscription's current cycle is still in PIX Automático's hands (a charge not
 * final, or one that fell back to an invoice less than the grace period ago), so the ordinary overdue rules wait.
 */
export function automaticoHoldsCycle(now: Date) {
  return chargeHoldsCycle(addDays(now, -overdueGraceDays))
}

/**
 * The account the debits land in (the cobr's `recebedor`, required by the API). Without PIX_AUTOMATICO_ACCOUNT no
 * cobr can be sent: each cycle then falls back to an ordinary invoice when the BCB window closes (and a warning says
 * why on every tick), instead of the server refusing to start.
 */
function receivingAccount(deps: AutomaticoDeps) {
  if (!deps.config.PIX_AUTOMATICO_ACCOUNT) return null
  const [agencia = '', conta = '', tipo = 'CORRENTE'] = deps.config.PIX_AUTOMATICO_ACCOUNT.split(':')
  return { agencia, conta, tipoConta: tipo as 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO' }
}

// ---- the daily renewal pass ----

/**
 * For each subscription with an approved recurrence whose period ends in 3 to 8 days: the renewal invoice (status
 * 'pending': the PSP debits it, no code is sent) and its recurring charge, once; the customer is told the date.
 * Then every charge not yet accepted by the PSP is sent.
 */
export async function issueAutomaticoRenewals(deps: AutomaticoDeps, now: Date): Promise<PassResult> {
  if (!automaticoEnabled(deps)) return { processed: 0 }
  const today = startOfDay(now)
  const from = new Date(today.getTime() + cobrSendClosesDays * dayMs)
  const until = new Date(today.getTime() + (cobrSendOpensDays + 1) * dayMs)
  const processed = await forEachClaimed(
    deps,
    'pix_automatico_renewals',
    async (tx, seen, limit) => claimRenewalCandidates(tx, from, until, seen, limit),
    eachRow(async (tx, subscription) => {
      const rec = await latestApprovedRecurrence(tx, subscription.id)
      if (!rec) return false
      const due = subscription.currentPeriodEnd
      let invoice = await renewalInvoiceOf(tx, subscription.id, due)
      if (!invoice) {
        invoice = await issuePixInvoice(tx, {
          subscriptionId: subscription.id,
          type: 'renewal',
          amountCents: rec.amountCents,
          dueDate: due,
          now,
          metadata: { pixAutomatico: rec.idRec },
          debitedByRecurrence: true,
          oncePerPeriod: true,
        })
        if (!invoice) return false
        await audit(tx, apiPixActor, 'payment.renewal_invoice', 'payment', invoice.id, {
          after: {
            subscriptionId: subscription.id,
            amountCents: invoice.amountCents,
            dueDate: due.toISOString(),
            by: 'pix_automatico',
          },
        })
      }
      // Only an invoice issued for the debit ('pending'). Already paid, at another price (plan changed without a new
      // authorisation), or an ordinary invoice whose PIX code already went out ('pending_pix': the recurrence was
      // approved after the ordinary renewal): that cycle is paid the ordinary way. A debit scheduled beside a code in
      // the customer's hands could take the money twice: a code paid on the due date is past the PSP's cancel window.
      if (invoice.status !== 'pending' || invoice.amountCents !== rec.amountCents) return false
      const charge = await insertCharge(tx, {
        id: randomUUID(),
        subscriptionId: subscription.id,
        recurrenceId: rec.id,
        paymentId: invoice.id,
        txid: cobrTxidFor(invoice.id),
        dueDate: due,
        amountCents: rec.amountCents,
        status: 'PENDENTE',
        history: [change('PENDENTE', now, 'renewal_pass')],
        createdAt: now,
        updatedAt: now,
      })
      if (!charge) return false
      await audit(tx, apiPixActor, 'pix_automatico.cobr_scheduled', 'subscription', subscription.id, {
        after: { txid: charge.txid, paymentId: invoice.id, dueDate: due.toISOString(), amountCents: rec.amountCents },
      })
      await notifyNotice(tx, deps, now, subscription.id, invoice.id, rec.amountCents, due)
      return true
    }),
  )
  await sendPendingCharges(deps, now)
  return { processed }
}

async function notifyNotice(
  tx: Tx,
  deps: AutomaticoDeps,
  now: Date,
  subscriptionId: string,
  paymentId: string,
  amountCents: number,
  due: Date,
) {
  const row = await customerOf(tx, subscriptionId)
  if (!row) return
  await enqueue(tx, now, {
    kind: 'pix_automatico_notice',
    ref: paymentId,
    user: row.profile,
    subscriptionId,
    paymentId,
    message: pixAutomaticoNoticeMessage({
      name: row.profile.name,
      planName: row.plan.name,
      paymentsUrl: `${deps.config.appUrl}/dashboard/subscriptions`,
      amountCents,
      debitOn: due,
      dayMonth: dayMonthBR(due),
    }),
  })
}

/** How many times a charge is sent (PUT /cobr) before its cycle falls back to an ordinary invoice. */
const maxSendAttempts = 20

/** Sends (PUT /cobr) every charge recorded but not yet accepted by the PSP; idempotent by txid. */
export async function sendPendingCharges(deps: AutomaticoDeps, now: Date): Promise<number> {
  const client = deps.pix
  if (!client) return 0
  const pending = await chargesToSend(deps.db, maxSendAttempts)
  let sent = 0
  for (const { charge, idRec } of pending) {
    const late = daysBetween(now, charge.dueDate) < 2
    let cobr: Cobr | null = null
    let failure: string | null = null
    const account = receivingAccount(deps)
    if (!late && !account) {
      failure = 'PIX_AUTOMATICO_ACCOUNT não configurada'
      deps.log.warn({ txid: charge.txid }, 'pix automático: PIX_AUTOMATICO_ACCOUNT is not set; the cobr cannot be sent')
    } else if (!late && account) {
      try {
        cobr = await putCobr(client, charge.txid, {
          idRec,
          dataDeVencimento: isoDay(charge.dueDate),
          valor: pixValor(charge.amountCents),
          infoAdicional: `Renovação da assinatura ${charge.subscriptionId}`,
          conta: account,
        })
      } catch (error) {
        if (!(error instanceof ApiPixError)) throw error
        failure = error.message
        deps.log.warn({ err: error, txid: charge.txid }, 'pix automático: cobr not accepted; retried next tick')
      }
    }
    await deps.db.transaction(async (tx) => {
      const locked = await lockCharge(tx, charge.id)
      if (locked?.status !== 'PENDENTE') return
      if (cobr) {
        const status = chargeMove('PENDENTE', cobr.status) ?? 'CRIADA'
        await updateCharge(tx, charge.id, {
          status,
          attempts: attemptsOf(cobr.tentativas),
          history: [...locked.history, change(status, now, 'put_cobr')],
          sendAttempts: locked.sendAttempts + 1,
          updatedAt: now,
        })
        sent += 1
        return
      }
      if (late || locked.sendAttempts + 1 >= maxSendAttempts) {
        // Too late for the BCB window: this cycle is an ordinary invoice.
        await updateCharge(tx, charge.id, {
          status: 'CANCELADA',
          history: [...locked.history, change('CANCELADA', now, 'put_cobr', failure ?? 'fora do prazo de envio')],
          fallbackAt: now,
          closedAt: now,
          updatedAt: now,
        })
        await backToInvoice(tx, deps, now, locked.paymentId)
        return
      }
      await updateCharge(tx, charge.id, { sendAttempts: locked.sendAttempts + 1, updatedAt: now })
    })
  }
  return sent
}

// ---- applying a re-read cobr ----

export type CobrOutcome = 'unknown' | 'same' | 'applied' | 'paid' | 'retry' | 'fallback' | 'ignored' | 'not_found'

const inFlight = new WeakMap<object, Map<string, Promise<CobrOutcome>>>()

/** Re-reads one recurring charge at the PSP and applies it; calls for one txid in this process run in turn. */
export function refreshCobr(deps: AutomaticoDeps, txid: string, source: string): Promise<CobrOutcome> {
  let byTxid = inFlight.get(deps.db)
  if (!byTxid) {
    byTxid = new Map()
    inFlight.set(deps.db, byTxid)
  }
  const previous = byTxid.get(txid) ?? Promise.resolve('same' as CobrOutcome)
  const current = previous.catch(() => 'ignored' as const).then(() => refreshCobrOnce(deps, txid, source))
  byTxid.set(txid, current)
  void current
    .finally(() => {
      if (byTxid.get(txid) === current) byTxid.delete(txid)
    })
    .catch(() => {})
  return current
}

async function refreshCobrOnce(deps: AutomaticoDeps, txid: string, source: string): Promise<CobrOutcome> {
  const client = deps.pix
  if (!client) return 'ignored'
  const row = await chargeByTxid(deps.db, txid)
  if (!row) return 'unknown'
  let cobr: Cobr
  try {
    cobr = await getCobr(client, txid)
  } catch (error) {
    if (error instanceof ApiPixError && error.status === 404) return 'not_found'
    throw error
  }
  if (cobr.idRec === undefined || cobr.txid !== txid) return 'ignored'
  const now = deps.now()
  const attempts = attemptsOf(cobr.tentativas)
  const last = attempts.at(-1)
  const waiting = attempts.some((a) => a.status === 'AGENDADA' || a.status === 'SOLICITADA')

  // 1. The row takes the PSP's status and attempts (under its lock, only moves the machine allows).
  const applied = await deps.db.transaction(async (tx) => {
    const locked = await lockCharge(tx, row.id)
    if (!locked) return null
    const move = chargeMove(locked.status, cobr.status)
    const attemptsChanged = JSON.stringify(locked.attempts) !== JSON.stringify(attempts)
    if (!move && !attemptsChanged) return { row: locked, changed: false }
    const code = cobr.encerramento?.rejeicao?.codigo ?? last?.code ?? locked.rejectCode
    const history = [...locked.history]
    if (move) history.push(change(move, now, source, code && move !== 'CONCLUIDA' ? code : undefined))
    else if (last && attemptsChanged)
      history.push(change(`tentativa ${last.date} ${last.status}`, now, source, last.code))
    const final = move && ['CONCLUIDA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'].includes(move)
    const after = await updateChargeReturning(tx, row.id, {
      ...(move ? { status: move } : {}),
      attempts,
      rejectCode: code ?? null,
      history,
      ...(final ? { closedAt: now } : {}),
      updatedAt: now,
    })
    if (move) {
      await audit(tx, apiPixActor, `pix_automatico.cobr_${move.toLowerCase()}`, 'payment', locked.paymentId, {
        before: { txid, status: locked.status },
        after: { txid, status: move, rejectCode: code ?? null, source },
      })
    }
    return { row: after ?? locked, changed: true }
  })
  if (!applied) return 'ignored'
  const charge = applied.row

  // 2. What the new state means for the invoice and the subscription.
  if (charge.status === 'CONCLUIDA') {
    const pix = cobr.pix[0]
    if (!pix) return 'applied'
    try {
      await confirmPayment(
        deps,
        apiPixActor,
        charge.paymentId,
        { amount_received_cents: centsFromPixValor(pix.valor), end_to_end_id: pix.endToEndId },
        { via: 'api_pix', payerName: null },
      )
    } catch (error) {
      if (error instanceof DomainError && (error.code === 'e2e_id_taken' || error.code === 'payment_not_pending'))
        return 'same'
      throw error
    }
    return 'paid'
  }
  if (charge.status === 'ATIVA' && !waiting && last && (last.status === 'REJEITADA' || last.status === 'EXPIRADA')) {
    return (await askRetry(deps, charge, now)) ? 'retry' : 'applied'
  }
  if (
    (charge.status === 'REJEITADA' || charge.status === 'EXPIRADA' || charge.status === 'CANCELADA') &&
    !charge.fallbackAt
  ) {
    await fallBack(deps, charge, now)
    return 'fallback'
  }
  return applied.changed ? 'applied' : 'same'
}

/** A failed attempt: the subscription is past due, and the next retry date (D+1, D+3, D+7) is asked for. */
async function askRetry(deps: AutomaticoDeps, charge: ChargeRow, now: Date): Promise<boolean> {
  const client = deps.pix
  if (!client) return false
  const rec = await recurrenceById(deps.db, charge.recurrenceId)
  const next = rec?.retryPolicy === 'PERMITE_3R_7D' ? nextRetryDate(charge.dueDate, now, charge.retryDates) : null
  if (!next) return false
  try {
    await retryCobr(client, charge.txid, next)
  } catch (error) {
    if (!(error instanceof ApiPixError)) throw error
    deps.log.warn({ err: error, txid: charge.txid, next }, 'pix automático: retry refused; reconciliation retries')
    return false
  }
  await deps.db.transaction(async (tx) => {
    const locked = await lockCharge(tx, charge.id)
    if (!locked || locked.retryDates.includes(next)) return
    await updateCharge(tx, charge.id, {
      retryDates: [...locked.retryDates, next],
      history: [...locked.history, change('RETENTATIVA', now, 'retry', next)],
      updatedAt: now,
    })
    await markPastDue(tx, now, charge.subscriptionId)
    const row = await customerOf(tx, charge.subscriptionId)
    if (row) {
      await enqueue(tx, now, {
        kind: 'pix_automatico_failed',
        ref: `${charge.paymentId}:${next}`,
        user: row.profile,
        subscriptionId: charge.subscriptionId,
        paymentId: charge.paymentId,
        message: pixAutomaticoFailedMessage({
          name: row.profile.name,
          planName: row.plan.name,
          paymentsUrl: `${deps.config.appUrl}/dashboard/payments`,
          amountCents: charge.amountCents,
          retryOn: formatDateBR(new Date(`${next}T12:00:00Z`)),
        }),
      })
    }
  })
  return true
}

async function markPastDue(tx: Tx, now: Date, subscriptionId: string) {
  const before = await lockSubscription(tx, subscriptionId)
  if (!before || !['active', 'trialing'].includes(before.status) || before.currentPeriodEnd > now) return
  await markSubscriptionPastDue(tx, subscriptionId, now)
  await audit(tx, apiPixActor, 'subscription.past_due', 'subscription', subscriptionId, {
    before: { status: before.status },
    after: { status: 'past_due', by: 'pix_automatico' },
  })
}

/**
 * The cycle could not be debited (rejected, expired after the retries, cancelled by the payer): the renewal is an
 * ordinary PIX invoice sent by e-mail and WhatsApp, and the ordinary overdue rules take over. Not when the
 * subscription is set to end or ended: the cycle is not owed (our own cancellation of its charge, whose callback may
 * come before the cancelling transaction commits, lands here too), so it stays 'pending' and nobody is told to pay.
 */
async function fallBack(deps: AutomaticoDeps, charge: ChargeRow, now: Date) {
  await deps.db.transaction(async (tx) => {
    const locked = await lockCharge(tx, charge.id)
    if (!locked || locked.fallbackAt) return
    await updateCharge(tx, charge.id, {
      fallbackAt: now,
      history: [...locked.history, change('FATURA', now, 'fallback')],
      updatedAt: now,
    })
    const payment = await paymentById(tx, charge.paymentId)
    if (payment?.status !== 'pending') return
    if (!(await subscriptionGoesOn(tx, charge.subscriptionId))) return
    await markPastDue(tx, now, charge.subscriptionId)
    // The ordinary invoice with its PIX code (the 'overdue' notice went out when the subscription became past_due).
    await backToInvoice(tx, deps, now, payment.id)
  })
}

// ---- reconciliation ----

/**
 * The reconciliation pass: sends charges not accepted yet; lists the recs and cobrs changed at the PSP lately and
 * applies what a lost callback missed; asks for retries a failure left without one; cancels the cycle's charge of
 * an invoice paid some other way before its date, and the charges and recurrences of subscriptions that end.
 */
export async function reconcileAutomatico(deps: AutomaticoDeps, now: Date): Promise<PassResult> {
  const client = deps.pix
  if (!client || !automaticoEnabled(deps)) return { processed: 0 }
  let processed = await sendPendingCharges(deps, now)
  const since = new Date(now.getTime() - automaticoReconcileWindowMs)

  try {
    const recs = await listRecs(client, since, now)
    if (recs.length > 0) {
      const known = await recurrenceStatuses(
        deps.db,
        recs.map((r) => r.idRec),
      )
      const local = new Map(known.map((k) => [k.idRec, k.status]))
      for (const rec of recs) {
        const status = local.get(rec.idRec)
        if (status === undefined || status === rec.status) continue
        if ((await refreshRec(deps, rec.idRec, 'reconcile')) === 'applied') processed += 1
      }
    }
  } catch (error) {
    deps.log.warn({ err: error }, 'pix automático: could not list recurrences; next tick retries')
  }

  try {
    const cobrs = await listCobrs(client, since, now)
    if (cobrs.length > 0) {
      const known = await chargesByTxids(
        deps.db,
        cobrs.map((c) => c.txid),
      )
      const local = new Map(known.map((k) => [k.txid, k]))
      for (const cobr of cobrs) {
        const row = local.get(cobr.txid)
        if (!row) continue
        const same =
          row.status === cobr.status && JSON.stringify(row.attempts) === JSON.stringify(attemptsOf(cobr.tentativas))
        const needsRetry =
          row.status === 'ATIVA' &&
          row.attempts.length > 0 &&
          row.attempts.every((a) => a.status !== 'AGENDADA' && a.status !== 'SOLICITADA')
        if (same && !needsRetry) continue
        const outcome = await refreshCobr(deps, cobr.txid, 'reconcile')
        if (outcome !== 'same' && outcome !== 'ignored') processed += 1
      }
    }
  } catch (error) {
    deps.log.warn({ err: error }, 'pix automático: could not list recurring charges; next tick retries')
  }

  processed += await cancelUnneededCharges(deps, now)
  processed += await reopenOrphanedDebits(deps, now)
  processed += await endRecurrencesOfEndedSubscriptions(deps)
  return { processed }
}

/** A cycle paid some other way, or a subscription set to end: its charge is cancelled before the first attempt. */
async function cancelUnneededCharges(deps: AutomaticoDeps, now: Date): Promise<number> {
  const client = deps.pix
  if (!client) return 0
  const charges = await unneededCharges(deps.db)
  let done = 0
  for (const charge of charges) {
    if (charge.attempts.some((a) => a.status === 'PAGA')) continue
    if (daysBetween(now, charge.dueDate) < 1 && charge.status !== 'PENDENTE') continue // the PSP refuses from the date on
    try {
      if (charge.status !== 'PENDENTE') await cancelCobr(client, charge.txid)
    } catch (error) {
      if (!(error instanceof ApiPixError)) throw error
      deps.log.warn({ err: error, txid: charge.txid }, 'pix automático: could not cancel a charge no longer needed')
      continue
    }
    await deps.db.transaction(async (tx) => {
      const locked = await lockCharge(tx, charge.id)
      if (!locked || !['PENDENTE', 'CRIADA', 'ATIVA'].includes(locked.status)) return
      await updateCharge(tx, charge.id, {
        status: 'CANCELADA',
        fallbackAt: now, // nothing to fall back to: paid or ending; also keeps the overdue passes out
        history: [...locked.history, change('CANCELADA', now, 'reconcile', 'fatura paga ou assinatura encerrando')],
        closedAt: now,
        updatedAt: now,
      })
      await audit(tx, apiPixActor, 'pix_automatico.cobr_cancelada', 'payment', charge.paymentId, {
        before: { txid: charge.txid, status: locked.status },
        after: { txid: charge.txid, status: 'CANCELADA', by: 'receiver' },
      })
    })
    done += 1
  }
  return done
}

/**
 * A cycle whose debit we cancelled because the subscription was set to end, and whose subscription goes on after all
 * (the cancellation taken back): its invoice is an ordinary PIX invoice again, sent to the customer with its code.
 * Without this it stayed 'pending' with no debit and no code until the overdue rules reached it.
 */
async function reopenOrphanedDebits(deps: AutomaticoDeps, now: Date): Promise<number> {
  let done = 0
  for (const invoice of await orphanedDebitInvoices(deps.db)) {
    const reopened = await deps.db.transaction(async (tx) => {
      if (!(await backToInvoice(tx, deps, now, invoice.id))) return false
      await audit(tx, apiPixActor, 'pix_automatico.back_to_invoice', 'payment', invoice.id, {
        before: { status: 'pending' },
        after: { status: 'pending_pix', reason: 'debit cancelled, subscription goes on' },
      })
      return true
    })
    if (reopened) done += 1
  }
  return done
}

/** A subscription that ended (canceled): its recurrence is cancelled at the PSP after the last paid cycle. */
async function endRecurrencesOfEndedSubscriptions(deps: AutomaticoDeps): Promise<number> {
  const recs = await liveRecurrencesOfCanceledSubscriptions(deps.db)
  let done = 0
  for (const rec of recs) {
    try {
      if (await cancelRecurrence(deps, rec, 'subscription_ended')) done += 1
    } catch (error) {
      deps.log.warn({ err: error, idRec: rec.idRec }, 'pix automático: could not cancel the recurrence; retried')
    }
  }
  return done
}
