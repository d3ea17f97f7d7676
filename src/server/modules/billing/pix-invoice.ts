// A PIX invoice, from issue to the code the customer pays: the one home of both steps, so that a change to how PIX
// is charged (PIX Automático, another PSP) is made here once for the first invoice, the upgrade, the admin's
// creation and the renewal.
//
// 1. Issue (issuePixInvoice, inside the caller's transaction): a pending_pix row of method 'pix', its type echoed in
//    the metadata, due when the caller says, with a fresh BR Code reference whose prefix names the type.
// 2. Charge (ensurePixCharge / withPspCharge, after the commit): with PIX_PROVIDER=api-pix every PIX invoice is a
//    charge (cob) at the PSP, created lazily and idempotently.
//
// - The txid is derived from the payment id (domain/pix-txid.ts), so creating twice (two tabs, a retry after a
//   timeout, the lifecycle pass and the customer's view at once) never makes two charges: ensureCob re-reads the
//   charge the first attempt made. The charge expires at the invoice's due date (expiracao in seconds from now).
// - The customer sees the PSP's pixCopiaECola (or the dynamic BR Code built from its location).
// - When the PSP cannot be reached (or refuses), the invoice keeps the static code with our reference as txid
//   (status 'fallback'): the customer can pay it, the webhook and the reconciliation still match that reference,
//   the admin can confirm it by hand, and the lifecycle pass retries the charge.
// - PIX_PROVIDER=manual (ctx.pix null): step 2 does nothing; the static code is shown.
import { randomInt } from 'node:crypto'
import type { PaymentType } from '../../../domain/billing-vocabulary'
import type { Tx } from '../../db/client'
import { timeOrderedId } from '../../db/ids'
import type { NewPaymentRow, PaymentMetadata } from '../../db/schema/billing'
import type { PixCharge, PixCheckoutResult, UpgradeResult } from '../../../domain/contracts/billing'
import { buildDynamicPixBrCode } from '../../../domain/pix'
import { pixTxidFor } from '../../../domain/pix-txid'
import type { AppContext } from '../../context'
import { ApiPixError } from '../pix/api-pix-client'
import { cobBody, cobExpiresAt } from '../pix/api-pix-types'
import { getPixSettings, requirePixConfig } from '../pix/pix.service'
import type { PaymentRow } from '../../db/schema/billing'
import {
  findPayment,
  insertPayment,
  insertRenewalBatchOncePerPeriod,
  insertRenewalsOncePerPeriod,
  setPixChargeActive,
  setPixChargeFallback,
} from './billing.repo'

/** The BR Code reference's prefix names what the invoice is for (seen in the bank statement and the admin lists). */
export const pixReferencePrefix: Record<PaymentType, string> = { new: 'ASS', upgrade: 'UPG', renewal: 'REN' }

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/**
 * A fresh BR Code txid for an invoice of this type: its 3-letter prefix (pixReferencePrefix) and 22 random base62
 * characters, 25 in all, the most field 62.05 holds (about 131 bits of randomness; the column is unique as well).
 */
export function newPixReference(type: PaymentType): string {
  let reference = pixReferencePrefix[type]
  while (reference.length < 25) reference += base62[randomInt(base62.length)]
  return reference
}

/** The metadata every PIX invoice carries: its type (and an upgrade's target plan) plus what the caller adds. */
export function pixInvoiceMetadata(
  type: PaymentType,
  targetPlanId?: string | null,
  extra: Omit<PaymentMetadata, 'type' | 'targetPlanId'> = {},
): PaymentMetadata {
  return { type, ...(targetPlanId ? { targetPlanId } : {}), ...extra }
}

export type PixInvoiceInput = {
  subscriptionId: string
  type: PaymentType
  amountCents: number
  dueDate: Date
  now: Date
  /** Upgrade invoices: the plan paying switches to, and the end of the period the amount priced. */
  targetPlanId?: string
  pricedPeriodEnd?: Date
  /** Added to the metadata (a re-issued renewal names the invoice it replaces). */
  metadata?: Omit<PaymentMetadata, 'type' | 'targetPlanId'>
  /**
   * A PIX Automático cycle: the invoice is `pending` (the customer's bank debits it; no code is sent) and gets no PSP
   * charge (cob) unless the customer opens it to pay another way.
   */
  debitedByRecurrence?: boolean
}

/**
 * Step 1: inserts a PIX invoice (pending_pix, method pix) in the caller's transaction and returns it. With
 * `oncePerPeriod` (the lifecycle's renewal) an invoice already issued for that subscription and due date (the partial
 * unique index payments_one_renewal_per_period_idx, voided ones excluded) makes it answer null instead.
 */
export async function issuePixInvoice(
  tx: Tx,
  input: PixInvoiceInput & { oncePerPeriod: true },
): Promise<PaymentRow | null>
export async function issuePixInvoice(tx: Tx, input: PixInvoiceInput): Promise<PaymentRow>
export async function issuePixInvoice(
  tx: Tx,
  input: PixInvoiceInput & { oncePerPeriod?: boolean },
): Promise<PaymentRow | null> {
  const values = pixInvoiceValues(input)
  if (!input.oncePerPeriod) return insertPayment(tx, values)
  const [row] = await insertRenewalsOncePerPeriod(tx, [values])
  return row ?? null
}

function pixInvoiceValues(input: PixInvoiceInput): NewPaymentRow {
  const values: NewPaymentRow = {
    id: timeOrderedId(),
    subscriptionId: input.subscriptionId,
    amountCents: input.amountCents,
    status: 'pending_pix',
    paymentMethod: 'pix',
    type: input.type,
    metadata: pixInvoiceMetadata(input.type, input.targetPlanId, input.metadata),
    dueDate: input.dueDate,
    pixReference: newPixReference(input.type),
    createdAt: input.now,
    updatedAt: input.now,
  }
  if (input.targetPlanId !== undefined) values.targetPlanId = input.targetPlanId
  if (input.pricedPeriodEnd !== undefined) values.pricedPeriodEnd = input.pricedPeriodEnd
  if (input.debitedByRecurrence) {
    values.status = 'pending'
    values.pixChargeAttempts = maxChargeAttempts
  }
  return values
}

export type IssuedRenewal = Pick<PaymentRow, 'id' | 'subscriptionId' | 'amountCents' | 'dueDate'>

/**
 * issuePixInvoice with `oncePerPeriod` for many renewals at once: one INSERT; answers the invoices inserted (one
 * already issued for a subscription and due date is left out, as issuePixInvoice answers null for it), in the
 * inputs' order.
 */
export async function issuePixRenewals(tx: Tx, inputs: PixInvoiceInput[]): Promise<IssuedRenewal[]> {
  if (inputs.length === 0) return []
  const values = inputs.map(pixInvoiceValues)
  const inserted = await insertRenewalBatchOncePerPeriod(tx, values)
  return values
    .filter((v) => inserted.has(v.id))
    .map((v) => ({ id: v.id, subscriptionId: v.subscriptionId, amountCents: v.amountCents, dueDate: v.dueDate }))
}

export type PixLog = { info?(obj: object, msg: string): void; warn(obj: object, msg: string): void }

export type PixDeps = Pick<AppContext, 'db' | 'now' | 'config' | 'card' | 'pix'> & { log?: PixLog }

/** The charge is retried by the lifecycle pass at most this many times (then the static code stays). */
export const maxChargeAttempts = 20

/** A charge never expires sooner than this, even for an invoice due in a moment (or overdue and still open). */
const minChargeSeconds = 15 * 60

/** True when the invoice should have a PSP charge: an open PIX invoice without a live one yet. */
function needsCharge(payment: PaymentRow): boolean {
  return (
    payment.paymentMethod === 'pix' &&
    (payment.status === 'pending_pix' || payment.status === 'pending') &&
    (payment.pixChargeStatus === null || payment.pixChargeStatus === 'fallback')
  )
}

/**
 * Creates the PSP charge of an open PIX invoice when it has none (or only the fallback), and returns the payment
 * row as it is afterwards. With PIX_PROVIDER=manual, or for anything but an open PIX invoice, it only reads.
 * Never throws for the PSP: a failure leaves (or puts) the invoice on the static code, to be retried.
 */
export async function ensurePixCharge(
  deps: PixDeps,
  paymentId: string,
  options: { budgetMs?: number } = {},
): Promise<PaymentRow | null> {
  const payment = await findPayment(deps.db, paymentId)
  if (!payment || !deps.pix || !needsCharge(payment)) return payment ?? null
  const settings = await getPixSettings(deps.db)
  let key: string
  try {
    key = requirePixConfig(settings).key
  } catch {
    return payment // not configured: the checkout refuses earlier; nothing to charge
  }
  const now = deps.now()
  const txid = pixTxidFor(payment.id)
  const expiresInSeconds = Math.max(minChargeSeconds, Math.floor((payment.dueDate.getTime() - now.getTime()) / 1000))
  try {
    const cob = await deps.pix.ensureCob(
      txid,
      cobBody({ amountCents: payment.amountCents, key, expiresInSeconds }),
      options,
    )
    const location = cob.loc?.location ?? cob.location ?? null
    let copiaECola = cob.pixCopiaECola ?? null
    if (!copiaECola && location && settings) {
      copiaECola = buildDynamicPixBrCode({
        location,
        beneficiaryName: settings.beneficiaryName,
        beneficiaryCity: settings.beneficiaryCity,
        amountCents: payment.amountCents,
      })
    }
    const updated = await setPixChargeActive(deps.db, payment.id, {
      pixTxid: txid,
      pixCopiaECola: copiaECola,
      pixLocation: location,
      pixChargeCreatedAt: now,
      pixChargeExpiresAt: cobExpiresAt(cob) ?? payment.dueDate,
      updatedAt: now,
    })
    deps.log?.info?.({ paymentId: payment.id, txid }, 'pix: charge created at the PSP')
    return updated ?? (await findPayment(deps.db, payment.id))
  } catch (error) {
    if (!(error instanceof ApiPixError)) throw error
    deps.log?.warn(
      { err: error, paymentId: payment.id, txid, unreachable: error.unreachable },
      'pix: the PSP charge could not be created; the static code is shown and the charge is retried',
    )
    const updated = await setPixChargeFallback(deps.db, payment.id, payment.pixChargeAttempts + 1, now)
    return updated ?? (await findPayment(deps.db, payment.id))
  }
}

/**
 * How long a customer's checkout (or PIX view) waits for the PSP's charge before it shows the static code: the
 * answer stays within 10 s even when the PSP hangs (its calls alone time out after 10 s each; found by
 * test/faults/providers.ts: 20 s with a hung PUT and read-back).
 */
export const customerChargeBudgetMs = 6_000

/** The charge the customer sees: the PSP's code when the invoice has a live charge, else the static one. */
export async function withPspCharge(deps: PixDeps, charge: PixCharge): Promise<PixCharge> {
  if (!deps.pix) return charge
  const payment = await ensurePixCharge(deps, charge.paymentId, { budgetMs: customerChargeBudgetMs })
  const live = payment?.pixChargeStatus === 'active' && payment.pixCopiaECola
  const expired = payment?.pixChargeExpiresAt && payment.pixChargeExpiresAt.getTime() <= deps.now().getTime()
  if (payment && live && !expired && payment.pixCopiaECola) {
    return {
      ...charge,
      brCode: payment.pixCopiaECola,
      reference: payment.pixTxid ?? charge.reference,
      autoConfirm: true,
    }
  }
  // The static code: still confirmed by the PSP's webhook and the reconciliation when it is paid.
  return { ...charge, autoConfirm: true }
}

export async function withPspCheckout(deps: PixDeps, result: PixCheckoutResult): Promise<PixCheckoutResult> {
  if (!deps.pix) return result
  return { ...result, pix: await withPspCharge(deps, result.pix) }
}

export async function withPspUpgrade(deps: PixDeps, result: UpgradeResult): Promise<UpgradeResult> {
  if (!deps.pix || result.kind !== 'pix') return result
  return { ...result, pix: await withPspCharge(deps, result.pix) }
}
