import { createHash, createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto'
import { DomainError } from '../../../domain/errors'
import { whatsappNumberSchema } from '../../../domain/contracts/auth'
import type { Executor } from '../../db/client'
import { type SendResult, sendCodeWith, type WhatsAppSender } from '../messaging/whatsapp'
import { clientKey, hitRateLimit, rateRules } from '../rate-limit/rate-limit'
import { recordCodeMessage } from './messages.repo'
import {
  codesSentSince,
  consumeLatestVerified,
  countAttempt,
  deleteVerification,
  insertVerification,
  latestCodeOfBrowser,
  lockNumberSends,
  markVerified,
  releaseConsumed,
} from './verification.repo'

/**
 * The rules of a code, in one place. Send quotas count per number *and* requester (the requester's network, see
 * clientKey), so a stranger exhausts only their own; the per-number ceilings over every requester are high enough
 * that one stranger cannot reach them, and bound what a number can be sent (harassment, toll fraud).
 */
export const codeRules = {
  validForMs: 10 * 60_000,
  maxAttempts: 5,
  /** Per number and requester. */
  resendAfterMs: 60_000,
  maxPerHour: 5,
  maxPerDay: 10,
  /** Per number, every requester together. */
  numberMaxPerHour: 30,
  numberMaxPerDay: 100,
  verifiedValidForMs: 30 * 60_000,
} as const

/** Only a hash of the browser's token is stored (see browser-token.ts). */
export function hashBrowserToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

export type VerificationDeps = { db: Executor; whatsapp: WhatsAppSender; secret: string; now: () => Date }

function hashCode(secret: string, phone: string, code: string): string {
  return createHmac('sha256', secret).update(`${phone}:${code}`).digest('hex')
}

function parsePhone(phone: string): string {
  const parsed = whatsappNumberSchema.safeParse(phone)
  if (!parsed.success) throw new DomainError('whatsapp_invalid')
  return parsed.data
}

/**
 * Sends a fresh 6-digit code to the number for this browser; that browser's earlier codes for the number stop
 * counting (only its newest is checked). Codes other browsers asked for are untouched.
 */
export async function sendVerificationCode(
  deps: VerificationDeps,
  rawPhone: string,
  ip: string,
  browserToken: string,
): Promise<void> {
  const phone = parsePhone(rawPhone)
  const now = deps.now()
  const requester = clientKey(ip)
  await hitRateLimit(deps.db, `wa-send:ip:${requester}`, rateRules.codeSendPerIp, now)
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
  const id = randomUUID()
  await deps.db.transaction(async (tx) => {
    // Serialises sends for one number, so two parallel requests cannot both pass the limits.
    await lockNumberSends(tx, phone)
    const dayAgo = new Date(now.getTime() - 24 * 60 * 60_000)
    const hourAgo = now.getTime() - 60 * 60_000
    const recent = await codesSentSince(tx, phone, dayAgo)
    const mine = recent.filter((r) => r.ip === requester)
    const last = mine[0]
    if (last && now.getTime() - last.createdAt.getTime() < codeRules.resendAfterMs)
      throw new DomainError('code_resend_too_soon')
    const inLastHour = (rows: typeof recent) => rows.filter((r) => r.createdAt.getTime() > hourAgo).length
    if (inLastHour(mine) >= codeRules.maxPerHour || inLastHour(recent) >= codeRules.numberMaxPerHour)
      throw new DomainError('code_hourly_limit')
    if (mine.length >= codeRules.maxPerDay || recent.length >= codeRules.numberMaxPerDay)
      throw new DomainError('code_daily_limit')
    await insertVerification(tx, {
      id,
      phoneNumber: phone,
      codeHash: hashCode(deps.secret, phone, code),
      ip: requester,
      browserHash: hashBrowserToken(browserToken),
      createdAt: now,
      expiresAt: new Date(now.getTime() + codeRules.validForMs),
    })
  })
  let sent: SendResult
  try {
    // The authentication template with a real provider (Meta drops free-form text outside the 24-hour window).
    sent = await sendCodeWith(deps.whatsapp, phone, code)
  } catch (error) {
    // A code nobody received must not count against the person's limits.
    await deleteVerification(deps.db, id)
    throw new DomainError('whatsapp_send_failed', undefined, { cause: error })
  }
  // Meta's message id, so that its delivery receipt can tell the sign-up page when the code did not arrive.
  await recordCodeMessage(deps.db, { phone, verificationId: id, providerMessageId: sent.id, now })
}

/**
 * Checks the newest code of the number sent for this browser. The sixth attempt is refused even when the code is
 * right. Without the browser's token there is no code to check.
 */
export async function verifyCode(
  deps: VerificationDeps,
  rawPhone: string,
  code: string,
  ip: string,
  browserToken: string | undefined,
): Promise<void> {
  const phone = parsePhone(rawPhone)
  const now = deps.now()
  await hitRateLimit(deps.db, `wa-verify:ip:${clientKey(ip)}`, rateRules.codeVerifyPerIp, now)
  if (!/^\d{6}$/.test(code) || !browserToken) throw new DomainError('code_invalid')
  // The newest code, used or not: once a newer code exists, older ones never count again (not even after the
  // newer one was used for a sign-up).
  const latest = await latestCodeOfBrowser(deps.db, phone, hashBrowserToken(browserToken))
  if (!latest || latest.expiresAt <= now || latest.verifiedAt || latest.consumedAt)
    throw new DomainError('code_invalid')
  // Count the attempt atomically before comparing, so parallel guesses cannot exceed the limit.
  if (!(await countAttempt(deps.db, latest.id, codeRules.maxAttempts))) throw new DomainError('code_attempts_exceeded')
  const expected = Buffer.from(latest.codeHash, 'hex')
  const given = Buffer.from(hashCode(deps.secret, phone, code), 'hex')
  if (!timingSafeEqual(expected, given)) throw new DomainError('code_invalid')
  await markVerified(deps.db, latest.id, now)
}

/** The newest code of the number this browser asked for (what the sign-up page's delivery status reads). */
export function latestCodeForBrowser(db: Executor, phone: string, browserToken: string) {
  return latestCodeOfBrowser(db, phone, hashBrowserToken(browserToken))
}

/**
 * Uses up a verification of the number made by this browser within the last 30 minutes (one verification, one
 * use). Returns its id so a failed sign-up can give it back.
 */
export async function consumeVerification(
  db: Executor,
  rawPhone: string,
  browserToken: string | undefined,
  now: Date,
): Promise<string> {
  const phone = parsePhone(rawPhone)
  if (!browserToken) throw new DomainError('whatsapp_not_verified')
  const since = new Date(now.getTime() - codeRules.verifiedValidForMs)
  const id = await consumeLatestVerified(db, phone, hashBrowserToken(browserToken), since, now)
  if (!id) throw new DomainError('whatsapp_not_verified')
  return id
}

export async function releaseVerification(db: Executor, id: string): Promise<void> {
  await releaseConsumed(db, id)
}
