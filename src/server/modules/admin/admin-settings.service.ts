// PIX settings (the single pix_settings row 1) and the card provider facts the admin help text shows.
import type {
  adminPixSettingsResultSchema,
  cardInfoSchema,
  pixSettingsInputSchema,
} from '../../../domain/contracts/admin'
import { DomainError } from '../../../domain/errors'
import { buildPixBrCode, normalizePixKey } from '../../../domain/pix'
import type { z } from 'zod'
import { type Actor, audit } from '../audit/audit'
import type { AdminDeps } from './admin-subscriptions.service'
import { findPixSettingsRow, lockPixSettingsRow, upsertPixSettingsRow } from './admin.repo'
import type { PixSettingsRow } from '../../db/schema/billing'

export type AdminPixSettings = z.infer<typeof adminPixSettingsResultSchema>
export type PixSettingsInput = z.infer<typeof pixSettingsInputSchema>
export type CardInfo = z.infer<typeof cardInfoSchema>

/** The sample in the settings page: R$ 1,00 to the saved key. */
const previewAmountCents = 100
const previewTxid = 'TESTE'

function previewOf(row: Pick<PixSettingsRow, 'pixKey' | 'beneficiaryName' | 'beneficiaryCity' | 'description'>) {
  return buildPixBrCode({
    key: row.pixKey,
    beneficiaryName: row.beneficiaryName,
    beneficiaryCity: row.beneficiaryCity,
    amountCents: previewAmountCents,
    txid: previewTxid,
    ...(row.description ? { description: row.description } : {}),
  })
}

function toResult(row: PixSettingsRow | null): AdminPixSettings {
  if (!row?.pixKey.trim()) return { settings: null, preview: null }
  let preview: AdminPixSettings['preview'] = null
  try {
    preview = { brCode: previewOf(row) }
  } catch {
    // Settings saved before this check existed (or by hand) may not build a code: show them without a sample.
  }
  return {
    settings: {
      pixKey: row.pixKey,
      beneficiaryName: row.beneficiaryName,
      beneficiaryCity: row.beneficiaryCity,
      description: row.description,
      updatedAt: row.updatedAt.toISOString(),
    },
    preview,
  }
}

export async function getAdminPixSettings(deps: AdminDeps): Promise<AdminPixSettings> {
  return toResult(await findPixSettingsRow(deps.db))
}

/**
 * Where the money goes (the key, the beneficiary's name and city) is a step-up change; the description is not.
 * An unreadable key counts as a change: the save refuses it anyway.
 */
export async function pixDestinationChanges(deps: Pick<AdminDeps, 'db'>, input: PixSettingsInput): Promise<boolean> {
  const row = await findPixSettingsRow(deps.db)
  return (
    !row ||
    row.pixKey !== normalizePixKey(input.pix_key) ||
    row.beneficiaryName !== input.beneficiary_name ||
    row.beneficiaryCity !== input.beneficiary_city
  )
}

/** Spec "PIX settings UPDATE": key in its DICT form, updated_at now; refused when no BR Code can be built from it. */
export async function saveAdminPixSettings(
  deps: AdminDeps,
  actor: Actor,
  input: PixSettingsInput,
): Promise<AdminPixSettings> {
  const pixKey = normalizePixKey(input.pix_key)
  if (pixKey === null) throw new DomainError('pix_key_invalid')
  const next = {
    pixKey,
    beneficiaryName: input.beneficiary_name,
    beneficiaryCity: input.beneficiary_city,
    description: input.description ? input.description : null,
  }
  try {
    previewOf(next)
  } catch (error) {
    throw new DomainError(
      'validation_failed',
      'Não foi possível gerar o código PIX com estes dados. Confira o nome e a cidade do beneficiário.',
      { cause: error },
    )
  }
  const now = deps.now()
  const saved = await deps.db.transaction(async (tx) => {
    const before = await lockPixSettingsRow(tx)
    const row = await upsertPixSettingsRow(tx, { ...next, updatedAt: now })
    await audit(tx, actor, 'pix_settings.update', 'pix_settings', '1', {
      before: before
        ? {
            pixKey: before.pixKey,
            beneficiaryName: before.beneficiaryName,
            beneficiaryCity: before.beneficiaryCity,
            description: before.description,
          }
        : null,
      after: next,
    })
    return row
  })
  return toResult(saved)
}

/** The events the webhook handler acts on (modules/stripe/stripe-events.service.ts). */
export const stripeWebhookEvents = [
  'checkout.session.completed',
  'invoice.paid',
  'invoice.payment_succeeded',
  'invoice.payment_failed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
]

export function cardInfo(deps: AdminDeps): CardInfo {
  return {
    mode: deps.card.mode,
    checkoutFunction: 'create-checkout-session',
    webhookUrl: `${deps.config.appUrl}/api/webhooks/stripe`,
    events: stripeWebhookEvents,
  }
}
