// PIX settings as the other modules use them: the configured charge (requirePixConfig), the static BR Code of an
// invoice (pixChargeFor) and the settings row. The query itself lives in pix-settings.repo.ts.
import type { PixCharge } from '../../../domain/contracts/billing'
import { DomainError } from '../../../domain/errors'
import { buildPixBrCode, pixKeyKind } from '../../../domain/pix'
import type { Executor } from '../../db/client'
import type { PaymentRow, PixSettingsRow } from '../../db/schema/billing'
import * as repo from './pix-settings.repo'

/** The spec's "SELECT where id 1"; null only before start-up has created the row. */
export function getPixSettings(db: Executor): Promise<PixSettingsRow | null> {
  return repo.getPixSettings(db)
}

export type PixConfig = { key: string; beneficiaryName: string; beneficiaryCity: string; description?: string }

/**
 * The settings a charge can be built from, or DomainError 'pix_not_configured' when an admin has not filled them
 * in (blank key, name or city, or a key that is no valid DICT key). Checked before anything is written, so a
 * customer never gets an invoice nobody can pay.
 */
export function requirePixConfig(settings: PixSettingsRow | null): PixConfig {
  const key = settings?.pixKey.trim() ?? ''
  const beneficiaryName = settings?.beneficiaryName.trim() ?? ''
  const beneficiaryCity = settings?.beneficiaryCity.trim() ?? ''
  if (!key || !beneficiaryName || !beneficiaryCity || pixKeyKind(key) === null) {
    throw new DomainError('pix_not_configured')
  }
  const config: PixConfig = { key, beneficiaryName, beneficiaryCity }
  const description = settings?.description?.trim()
  if (description) config.description = description
  // A name or city made only of characters the BR Code cannot carry would still fail: find out now.
  pixChargeFor(config, { id: 'check', amountCents: 1, pixReference: 'CHECK', dueDate: new Date(0), type: 'new' }, '')
  return config
}

type ChargeablePayment = Pick<PaymentRow, 'id' | 'amountCents' | 'pixReference' | 'dueDate' | 'type'>

/** The "copia e cola" of one invoice: the amount in centavos and the payment's reference as the txid. */
export function pixChargeFor(
  settings: PixConfig | PixSettingsRow,
  payment: ChargeablePayment,
  planName: string,
): PixCharge {
  const config = 'pixKey' in settings ? requirePixConfig(settings) : settings
  let brCode: string
  try {
    brCode = buildPixBrCode({
      key: config.key,
      beneficiaryName: config.beneficiaryName,
      beneficiaryCity: config.beneficiaryCity,
      amountCents: payment.amountCents,
      txid: payment.pixReference ?? '',
      ...(config.description ? { description: config.description } : {}),
    })
  } catch (error) {
    throw new DomainError('pix_not_configured', undefined, { cause: error })
  }
  return {
    paymentId: payment.id,
    brCode,
    amountCents: payment.amountCents,
    dueDate: payment.dueDate.toISOString(),
    beneficiaryName: config.beneficiaryName,
    reference: payment.pixReference ?? '***',
    type: payment.type,
    planName,
  }
}
