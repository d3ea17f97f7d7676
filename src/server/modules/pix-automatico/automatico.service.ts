// PIX Automático (PIX_PROVIDER=api-pix and PIX_AUTOMATICO=true): the customer authorises monthly debits once in the
// bank app, and each cycle's renewal is a recurring charge (cobr) the PSP debits.
//
// - Authorisation (Journey 3 at checkout, an upgrade; Journey 2 to turn it on later): the invoice's immediate
//   charge (cob, ensurePixCharge) + a location (locrec) + the recurrence (rec: contract = subscription id, object =
//   plan name, payer = name + CPF/CNPJ, fixed amount, first date = the period end, retries allowed); the customer
//   gets the PSP's composite code. Paying it confirms the invoice through the ordinary PIX path (cob webhook →
//   re-read → confirmPayment) and approves the recurrence (rec webhook → re-read here).
// - PSP callbacks are triggers only: every rec and cobr is re-read (GET) before anything changes, and each change is
//   applied under the row lock only when the status machine allows it (domain/pix-automatico.ts), so duplicates,
//   late callbacks and the reconciliation are harmless.
// - Money moves only through confirmPayment (the admin's confirmation, actor system 'api-pix'): a settled cobr is
//   confirmed exactly like a PIX paid by code, with its endToEndId unique in the database.
import { randomUUID } from 'node:crypto'
import type { SessionUser } from '../../../domain/contracts/auth'
import { DomainError } from '../../../domain/errors'
import {
  autoRenewalState,
  autoRenewalStateLabel,
  canMoveCobr,
  canMoveRec,
  type CobrStatus,
  isCobrStatus,
  isoDay,
  isRecStatus,
  type RecStatus,
  rejectionInWords,
} from '../../../domain/pix-automatico'
import { parseTaxId } from '../../../domain/cpf-cnpj'
import { pixValor } from '../pix/api-pix-types'
import type { Tx } from '../../db/client'
import type { CobrAttempt, StatusChange } from '../../db/schema/pix-automatico'
import { audit } from '../audit/audit'
import { ApiPixError } from '../pix/api-pix-client'
import { ensurePixCharge } from '../billing/pix-invoice'
import { apiPixActor } from '../pix/pix-confirm.service'
import { pixAutomaticoRevokedMessage } from '../lifecycle/notification-templates'
import { enqueue, renderInvoiceCreated } from '../lifecycle/notifications.service'
import type { LifecycleDeps } from '../lifecycle/pass-runner'
import {
  type ChargeRow,
  chargesOf,
  currentRecurrence,
  customerOf,
  insertRecurrence,
  lockOpenChargesOf,
  lockRecurrence,
  nextOpenChargeOf,
  otherLiveRecurrences,
  profileById,
  profileTaxId,
  type RecurrenceRow,
  recurrenceByIdRec,
  recurrencesOf,
  reopenAsPixInvoice,
  setProfileTaxId,
  subscriptionById,
  updateCharge,
  updateRecurrence,
  userSubscriptionWithPlan,
  waitingRecurrence,
} from './automatico.repo'
import { cancelRec, getRec, postLocrec, postRec, putRecWebhooks, type Rec } from './rec-client'

export type AutomaticoDeps = LifecycleDeps

/** True when PIX Automático is on: the PSP's API Pix and PIX_AUTOMATICO=true. */
export function automaticoEnabled(deps: Pick<AutomaticoDeps, 'pix' | 'config'>): boolean {
  return Boolean(deps.pix) && deps.config.PIX_AUTOMATICO === true
}

export function requireClient(deps: Pick<AutomaticoDeps, 'pix' | 'config'>) {
  if (!deps.pix || !automaticoEnabled(deps)) throw new DomainError('pix_automatico_disabled')
  return deps.pix
}

export function change(status: string, now: Date, source: string, detail?: string): StatusChange {
  return { status, at: now.toISOString(), source, ...(detail ? { detail } : {}) }
}

/** Any PSP failure of a customer's request: 502 with the Portuguese message, the cause logged by the caller. */
export async function psp<T>(deps: AutomaticoDeps, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (!(error instanceof ApiPixError)) throw error
    deps.log.warn({ err: error }, `pix automático: ${what} failed at the PSP`)
    throw new DomainError('pix_provider_error', undefined, { cause: error })
  }
}

// ---- CPF/CNPJ ----

/** The customer's CPF/CNPJ: the one given now (validated and kept on the profile), else the stored one. */
export async function ensureTaxId(deps: AutomaticoDeps, userId: string, input: string | undefined): Promise<string> {
  if (input !== undefined && input.trim() !== '') {
    const parsed = parseTaxId(input)
    if (!parsed) throw new DomainError('tax_id_invalid')
    await setProfileTaxId(deps.db, userId, parsed.digits)
    return parsed.digits
  }
  const taxId = await profileTaxId(deps.db, userId)
  if (!taxId) throw new DomainError('tax_id_required')
  return taxId
}

// ---- authorisation (rec) ----

export type AuthorisationInput = {
  subscriptionId: string
  /** The invoice paid as the immediate charge (Journey 3); none for Journey 2 (turning it on later). */
  paymentId: string | null
  planId: string
  planName: string
  amountCents: number
  firstDate: Date
  payerName: string
  taxId: string
}

/**
 * Creates a recurrence at the PSP and records it (status CRIADA, with the composite code). A recurrence already
 * waiting for this invoice is returned as it is (double click, retry). Throws pix_provider_error when the PSP fails.
 */
export async function requestAuthorisation(deps: AutomaticoDeps, input: AuthorisationInput): Promise<RecurrenceRow> {
  const client = requireClient(deps)
  const pending = await waitingRecurrence(deps.db, input.subscriptionId)
  if (pending && pending.firstPaymentId === input.paymentId && pending.amountCents === input.amountCents) return pending
  if (pending) {
    // A request for another invoice or amount replaces the one still waiting (it can no longer be approved).
    await psp(deps, 'cancel the waiting recurrence', () => cancelRec(client, pending.idRec)).catch(() => undefined)
    await applyRecStatus(deps, pending, 'CANCELADA', 'USUARIO_RECEBEDOR', 'SLCR', 'replaced')
  }

  let journeyTxid: string | undefined
  if (input.paymentId) {
    const payment = await ensurePixCharge(deps, input.paymentId)
    if (!payment?.pixTxid || payment.pixChargeStatus !== 'active') throw new DomainError('pix_provider_error')
    journeyTxid = payment.pixTxid
  }
  const now = deps.now()
  const devedor =
    input.taxId.length === 11
      ? { cpf: input.taxId, nome: input.payerName }
      : { cnpj: input.taxId, nome: input.payerName }
  const firstDate = [isoDay(input.firstDate), isoDay(now)].sort().at(-1) ?? isoDay(now)
  const rec = await psp(deps, 'create the recurrence', async () => {
    const loc = await postLocrec(client)
    const created = await postRec(client, {
      contrato: input.subscriptionId.replace(/-/g, ''),
      objeto: input.planName,
      devedor,
      dataInicial: firstDate,
      valorRec: pixValor(input.amountCents),
      politicaRetentativa: 'PERMITE_3R_7D',
      loc: loc.id,
      ...(journeyTxid ? { journeyTxid } : {}),
    })
    return getRec(client, created.idRec, journeyTxid)
  })
  if (!rec.dadosQR?.pixCopiaECola) throw new DomainError('pix_provider_error')
  return deps.db.transaction(async (tx) => {
    const row = await insertRecurrence(tx, {
      id: randomUUID(),
      subscriptionId: input.subscriptionId,
      idRec: rec.idRec,
      status: 'CRIADA',
      planId: input.planId,
      amountCents: input.amountCents,
      retryPolicy: 'PERMITE_3R_7D',
      firstPaymentId: input.paymentId,
      journeyTxid: journeyTxid ?? null,
      copiaECola: rec.dadosQR?.pixCopiaECola ?? null,
      payerTaxId: input.taxId,
      history: [change('CRIADA', now, 'checkout', journeyTxid ? 'JORNADA_3' : 'JORNADA_2')],
      createdAt: now,
      updatedAt: now,
    })
    if (!row) {
      // Another request recorded one first: that one is shown; ours expires unused at the PSP.
      const other = await waitingRecurrence(tx, input.subscriptionId)
      if (!other) throw new DomainError('pix_provider_error')
      return other
    }
    await audit(tx, apiPixActor, 'pix_automatico.rec_requested', 'subscription', input.subscriptionId, {
      after: {
        idRec: rec.idRec,
        planId: input.planId,
        amountCents: input.amountCents,
        firstDate,
        paymentId: input.paymentId,
      },
    })
    return row
  })
}

/**
 * Writes a new status of a recurrence (re-read from the PSP, or our own cancellation) under its lock, when the
 * status machine allows the move. Returns the row after, or null when nothing changed.
 */
export async function applyRecStatus(
  deps: AutomaticoDeps,
  row: RecurrenceRow,
  status: RecStatus,
  cancelledBy: string | null,
  endCode: string | null,
  source: string,
): Promise<RecurrenceRow | null> {
  const now = deps.now()
  const updated = await deps.db.transaction(async (tx) => {
    const locked = await lockRecurrence(tx, row.id)
    if (!locked || locked.status === status || !canMoveRec(locked.status, status)) return null
    const after = await updateRecurrence(tx, row.id, {
      status,
      history: [...locked.history, change(status, now, source, endCode ?? undefined)],
      ...(status === 'APROVADA' ? { approvedAt: now } : { endedAt: now, cancelledBy, endCode }),
      updatedAt: now,
    })
    if (!after) return null
    await audit(tx, apiPixActor, `pix_automatico.rec_${status.toLowerCase()}`, 'subscription', row.subscriptionId, {
      before: { idRec: row.idRec, status: locked.status },
      after: { idRec: row.idRec, status, cancelledBy, endCode, source },
    })
    const byPayer = status === 'CANCELADA' && (cancelledBy === 'USUARIO_PAGADOR' || cancelledBy === 'PSP_PAGADOR')
    if (status !== 'APROVADA') await releaseOpenCharges(tx, deps, now, row, source)
    if (byPayer) await notifyRevoked(tx, deps, now, row)
    return after
  })
  if (updated?.status === 'APROVADA') await retireOlderRecurrences(deps, updated)
  return updated
}

/**
 * The charges of a recurrence that ended: their invoices become ordinary PIX invoices again (pending_pix, with the
 * PSP charge made by the reconciliation), and the customer gets the invoice as usual. The PSP cancels a cobr
 * itself when its recurrence ends.
 */
async function releaseOpenCharges(tx: Tx, deps: AutomaticoDeps, now: Date, rec: RecurrenceRow, source: string) {
  const open = await lockOpenChargesOf(tx, rec.id)
  for (const charge of open) {
    await updateCharge(tx, charge.id, {
      status: 'CANCELADA',
      history: [...charge.history, change('CANCELADA', now, source, 'autorização encerrada')],
      closedAt: now,
      updatedAt: now,
    })
    await backToInvoice(tx, deps, now, charge.paymentId)
  }
}

/** An automatic renewal invoice becomes an ordinary PIX invoice (and the customer is sent it). */
export async function backToInvoice(tx: Tx, deps: AutomaticoDeps, now: Date, paymentId: string): Promise<boolean> {
  if (!(await reopenAsPixInvoice(tx, paymentId, now))) return false
  const rendered = await renderInvoiceCreated(tx, deps, paymentId)
  if (rendered) await enqueue(tx, now, rendered)
  return true
}

async function notifyRevoked(tx: Tx, deps: AutomaticoDeps, now: Date, rec: RecurrenceRow) {
  const row = await customerOf(tx, rec.subscriptionId)
  if (!row) return
  await enqueue(tx, now, {
    kind: 'pix_automatico_revoked',
    ref: rec.idRec,
    user: row.profile,
    subscriptionId: rec.subscriptionId,
    paymentId: null,
    message: pixAutomaticoRevokedMessage({
      name: row.profile.name,
      planName: row.plan.name,
      paymentsUrl: `${deps.config.appUrl}/dashboard/payments`,
    }),
  })
}

/** A newer recurrence was approved (upgrade, turned on again): the older approved ones are cancelled at the PSP. */
async function retireOlderRecurrences(deps: AutomaticoDeps, approved: RecurrenceRow) {
  const older = await otherLiveRecurrences(deps.db, approved.subscriptionId, approved.id)
  for (const row of older) await cancelRecurrence(deps, row, 'replaced')
}

/** Our cancellation of a recurrence (PATCH status CANCELADA at the PSP), recorded once the PSP accepted it. */
export async function cancelRecurrence(deps: AutomaticoDeps, row: RecurrenceRow, source: string) {
  const client = requireClient(deps)
  let rec: Rec
  try {
    rec = await cancelRec(client, row.idRec)
  } catch (error) {
    if (!(error instanceof ApiPixError) || error.status !== 400) throw error
    rec = await getRec(client, row.idRec) // already final at the PSP: take what it says
  }
  if (!isRecStatus(rec.status)) return null
  return applyRecStatus(
    deps,
    row,
    rec.status,
    rec.encerramento?.cancelamento?.solicitante ?? 'USUARIO_RECEBEDOR',
    rec.encerramento?.cancelamento?.codigo ?? rec.encerramento?.rejeicao?.codigo ?? null,
    source,
  )
}

export type RecOutcome = 'unknown' | 'same' | 'applied' | 'ignored' | 'not_found'

/** Re-reads one recurrence at the PSP and applies its status (webhook trigger, reconciliation). */
export async function refreshRec(deps: AutomaticoDeps, idRec: string, source: string): Promise<RecOutcome> {
  const client = deps.pix
  if (!client) return 'ignored'
  const row = await recurrenceByIdRec(deps.db, idRec)
  if (!row) return 'unknown'
  let rec: Rec
  try {
    rec = await getRec(client, idRec)
  } catch (error) {
    if (error instanceof ApiPixError && error.status === 404) return 'not_found'
    throw error
  }
  if (!isRecStatus(rec.status)) return 'ignored'
  if (rec.status === row.status) return 'same'
  const applied = await applyRecStatus(
    deps,
    row,
    rec.status,
    rec.encerramento?.cancelamento?.solicitante ?? null,
    rec.encerramento?.rejeicao?.codigo ?? rec.encerramento?.cancelamento?.codigo ?? null,
    source,
  )
  return applied ? 'applied' : 'ignored'
}

// ---- what people see ----

export type AutomaticoView = {
  state: ReturnType<typeof autoRenewalState>
  label: string
  idRec: string
  amountCents: number
  /** The next debit: the open charge's due date, else the period end while the authorisation is on. */
  nextDebitDate: string | null
  dayOfMonth: number | null
  /** The code to pay/approve while the authorisation waits. */
  copiaECola: string | null
}

export async function viewOf(deps: Pick<AutomaticoDeps, 'db'>, subscriptionId: string): Promise<AutomaticoView | null> {
  const rec = await currentRecurrence(deps.db, subscriptionId)
  if (!rec) return null
  const subscription = await subscriptionById(deps.db, subscriptionId)
  const open = await nextOpenChargeOf(deps.db, rec.id)
  const state = autoRenewalState(rec.status, rec.cancelledBy)
  const next =
    open?.dueDate ??
    (state === 'ativa' && subscription && subscription.status !== 'canceled' && !subscription.cancelAtPeriodEnd
      ? subscription.currentPeriodEnd
      : null)
  return {
    state,
    label: autoRenewalStateLabel[state],
    idRec: rec.idRec,
    amountCents: rec.amountCents,
    nextDebitDate: next ? next.toISOString() : null,
    dayOfMonth: subscription ? (subscription.anchorDay ?? subscription.currentPeriodEnd.getUTCDate()) : null,
    copiaECola: rec.status === 'CRIADA' ? rec.copiaECola : null,
  }
}

/** The admin's view: every recurrence and recurring charge of a subscription with its history, codes in words. */
export async function adminView(deps: Pick<AutomaticoDeps, 'db'>, subscriptionId: string) {
  const recs = await recurrencesOf(deps.db, subscriptionId)
  const charges = await chargesOf(deps.db, subscriptionId)
  return {
    recurrences: recs.map((r) => ({
      id: r.id,
      idRec: r.idRec,
      status: r.status,
      state: autoRenewalStateLabel[autoRenewalState(r.status, r.cancelledBy)],
      amountCents: r.amountCents,
      planId: r.planId,
      cancelledBy: r.cancelledBy,
      endReason: r.endCode ? rejectionInWords(r.endCode) : null,
      createdAt: r.createdAt.toISOString(),
      approvedAt: r.approvedAt?.toISOString() ?? null,
      endedAt: r.endedAt?.toISOString() ?? null,
      history: r.history,
    })),
    charges: charges.map((c) => ({
      id: c.id,
      txid: c.txid,
      paymentId: c.paymentId,
      dueDate: c.dueDate.toISOString(),
      amountCents: c.amountCents,
      status: c.status,
      rejection: c.rejectCode ? rejectionInWords(c.rejectCode) : null,
      retryDates: c.retryDates,
      attempts: c.attempts.map((a) => ({ ...a, reason: a.code ? rejectionInWords(a.code) : null })),
      fallbackAt: c.fallbackAt?.toISOString() ?? null,
      history: c.history,
    })),
  }
}

// ---- customer actions ----

/** The payer's name at the PSP: the person for a CPF, the company for a CNPJ. */
function payerNameFor(profile: { name: string; companyName: string } | null, user: SessionUser, taxId: string) {
  const name = taxId.length === 11 ? profile?.name : profile?.companyName || profile?.name
  return (name || user.name).slice(0, 140)
}

/** Journey 3 at checkout: the first invoice's charge and the recurrence, answered with the composite code. */
export async function authoriseForInvoice(
  deps: AutomaticoDeps,
  user: SessionUser,
  subscriptionId: string,
  paymentId: string,
  target: { planId: string; planName: string; amountCents: number },
  taxId: string,
): Promise<RecurrenceRow> {
  const subscription = await subscriptionById(deps.db, subscriptionId)
  if (!subscription || subscription.userId !== user.id) throw new DomainError('subscription_not_found')
  const profile = await profileById(deps.db, user.id)
  return requestAuthorisation(deps, {
    subscriptionId,
    paymentId,
    planId: target.planId,
    planName: target.planName,
    amountCents: target.amountCents,
    firstDate: subscription.currentPeriodEnd,
    payerName: payerNameFor(profile, user, taxId),
    taxId,
  })
}

async function ownSubscription(deps: AutomaticoDeps, user: SessionUser, subscriptionId: string) {
  const row = await userSubscriptionWithPlan(deps.db, user.id, subscriptionId)
  if (!row) throw new DomainError('subscription_not_found')
  return row
}

/** 'Desativar renovação automática': the recurrence is cancelled at the PSP; renewals become monthly invoices. */
export async function turnOff(deps: AutomaticoDeps, user: SessionUser, subscriptionId: string) {
  requireClient(deps)
  await ownSubscription(deps, user, subscriptionId)
  const rec = await currentRecurrence(deps.db, subscriptionId)
  if (!rec || (rec.status !== 'APROVADA' && rec.status !== 'CRIADA')) throw new DomainError('pix_automatico_not_found')
  await psp(deps, 'cancel the recurrence', () => cancelRecurrence(deps, rec, 'customer'))
  return viewOf(deps, subscriptionId)
}

/** Turning it on later (Journey 2): a new authorisation, without payment, from the next renewal on. */
export async function turnOn(deps: AutomaticoDeps, user: SessionUser, subscriptionId: string, taxInput?: string) {
  requireClient(deps)
  const { subscription, plan } = await ownSubscription(deps, user, subscriptionId)
  if (
    subscription.billingMethod !== 'pix' ||
    subscription.cancelAtPeriodEnd ||
    !['active', 'trialing', 'past_due'].includes(subscription.status)
  )
    throw new DomainError('pix_automatico_not_allowed')
  const current = await currentRecurrence(deps.db, subscriptionId)
  if (current?.status === 'APROVADA') throw new DomainError('pix_automatico_not_allowed')
  const taxId = await ensureTaxId(deps, user.id, taxInput)
  const profile = await profileById(deps.db, user.id)
  await requestAuthorisation(deps, {
    subscriptionId,
    paymentId: null,
    planId: plan.id,
    planName: plan.name,
    amountCents: plan.priceCents,
    firstDate: subscription.currentPeriodEnd,
    payerName: payerNameFor(profile, user, taxId),
    taxId,
  })
  return viewOf(deps, subscriptionId)
}

// ---- recurring charges: applying what the PSP says ----

export function attemptsOf(
  tentativas: Array<{ dataLiquidacao: string; tipo?: string; status: string; rejeicao?: { codigo?: string } }>,
): CobrAttempt[] {
  return tentativas.map((t) => ({
    date: t.dataLiquidacao,
    type: t.tipo ?? '',
    status: t.status,
    ...(t.rejeicao?.codigo ? { code: t.rejeicao.codigo } : {}),
  }))
}

/** The status a charge row may take from the PSP's answer (PENDENTE → any; then the machine's moves). */
export function chargeMove(from: ChargeRow['status'], to: string): CobrStatus | null {
  if (!isCobrStatus(to)) return null
  if (from === to) return null
  if (from === 'PENDENTE') return to
  return canMoveCobr(from, to) ? to : null
}

/** At start-up with PIX_AUTOMATICO=true: PUT /webhookrec and /webhookcobr (best effort, logged either way). */
export async function registerAutomaticoWebhooksAtStartup(deps: AutomaticoDeps): Promise<void> {
  if (!deps.pix || !automaticoEnabled(deps)) return
  const webhookUrl = `${deps.config.appUrl.replace(/\/+$/, '')}/api/webhooks/pix`
  try {
    await putRecWebhooks(deps.pix, webhookUrl)
    deps.log.info({ webhookUrl }, 'pix automático: rec/cobr webhooks registered at the PSP')
  } catch (error) {
    deps.log.warn({ err: error }, 'pix automático: rec/cobr webhooks not registered; the reconciliation still applies')
  }
}
