import { createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto'
import { and, desc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm'
import { DomainError } from '../../../domain/errors'
import { whatsappNumberSchema } from '../../../domain/contracts/auth'
import type { Executor } from '../../db/client'
import { whatsappVerifications } from '../../db/schema/platform'
import { type SendResult, sendCodeWith, type WhatsAppSender } from '../messaging/whatsapp'
import { hitRateLimit, rateRules } from '../rate-limit/rate-limit'
import { recordCodeMessage } from './messages.repo'

/** The rules of a code, in one place. */
export const codeRules = {
  validForMs: 10 * 60_000,
  maxAttempts: 5,
  resendAfterMs: 60_000,
  maxPerHour: 5,
  verifiedValidForMs: 30 * 60_000,
} as const

export type VerificationDeps = { db: Executor; whatsapp: WhatsAppSender; secret: string; now: () => Date }

function hashCode(secret: string, phone: string, code: string): string {
  return createHmac('sha256', secret).update(`${phone}:${code}`).digest('hex')
}

function parsePhone(phone: string): string {
  const parsed = whatsappNumberSchema.safeParse(phone)
  if (!parsed.success) throw new DomainError('whatsapp_invalid')
  return parsed.data
}

/** Sends a fresh 6-digit code; earlier codes for the number stop counting (only the newest is checked). */
export async function sendVerificationCode(deps: VerificationDeps, rawPhone: string, ip: string): Promise<void> {
  const phone = parsePhone(rawPhone)
  const now = deps.now()
  await hitRateLimit(deps.db, `wa-send:ip:${ip}`, rateRules.codeSendPerIp, now)
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
  const id = randomUUID()
  await deps.db.transaction(async (tx) => {
    // Serialises sends for one number, so two parallel requests cannot both pass the limits.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`wa:${phone}`}))`)
    const hourAgo = new Date(now.getTime() - 60 * 60_000)
    const recent = await tx
      .select({ createdAt: whatsappVerifications.createdAt })
      .from(whatsappVerifications)
      .where(and(eq(whatsappVerifications.phoneNumber, phone), gt(whatsappVerifications.createdAt, hourAgo)))
      .orderBy(desc(whatsappVerifications.createdAt))
    const last = recent[0]
    if (last && now.getTime() - last.createdAt.getTime() < codeRules.resendAfterMs)
      throw new DomainError('code_resend_too_soon')
    if (recent.length >= codeRules.maxPerHour) throw new DomainError('code_hourly_limit')
    await tx.insert(whatsappVerifications).values({
      id,
      phoneNumber: phone,
      codeHash: hashCode(deps.secret, phone, code),
      ip,
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
    await deps.db.delete(whatsappVerifications).where(eq(whatsappVerifications.id, id))
    throw new DomainError('whatsapp_send_failed', undefined, { cause: error })
  }
  // Meta's message id, so that its delivery receipt can tell the sign-up page when the code did not arrive.
  await recordCodeMessage(deps.db, { phone, verificationId: id, providerMessageId: sent.id, now })
}

/** Checks the newest code of the number. The sixth attempt is refused even when the code is right. */
export async function verifyCode(deps: VerificationDeps, rawPhone: string, code: string, ip: string): Promise<void> {
  const phone = parsePhone(rawPhone)
  const now = deps.now()
  await hitRateLimit(deps.db, `wa-verify:ip:${ip}`, rateRules.codeVerifyPerIp, now)
  if (!/^\d{6}$/.test(code)) throw new DomainError('code_invalid')
  // The newest code, used or not: once a newer code exists, older ones never count again (not even after the
  // newer one was used for a sign-up).
  const [latest] = await deps.db
    .select()
    .from(whatsappVerifications)
    .where(eq(whatsappVerifications.phoneNumber, phone))
    .orderBy(desc(whatsappVerifications.createdAt))
    .limit(1)
  if (!latest || latest.expiresAt <= now || latest.verifiedAt || latest.consumedAt)
    throw new DomainError('code_invalid')
  // Count the attempt atomically before comparing, so parallel guesses cannot exceed the limit.
  const [counted] = await deps.db
    .update(whatsappVerifications)
    .set({ attempts: sql`${whatsappVerifications.attempts} + 1` })
    .where(
      and(eq(whatsappVerifications.id, latest.id), sql`${whatsappVerifications.attempts} < ${codeRules.maxAttempts}`),
    )
    .returning({ attempts: whatsappVerifications.attempts })
  if (!counted) throw new DomainError('code_attempts_exceeded')
  const expected = Buffer.from(latest.codeHash, 'hex')
  const given = Buffer.from(hashCode(deps.secret, phone, code), 'hex')
  if (!timingSafeEqual(expected, given)) throw new DomainError('code_invalid')
  await deps.db
    .update(whatsappVerifications)
    .set({ verifiedAt: now })
    .where(and(eq(whatsappVerifications.id, latest.id), isNull(whatsappVerifications.verifiedAt)))
}

/**
 * Uses up a verification of the number made within the last 30 minutes (one verification, one use).
 * Returns its id so a failed sign-up can give it back.
 */
export async function consumeVerification(db: Executor, rawPhone: string, now: Date): Promise<string> {
  const phone = parsePhone(rawPhone)
  const since = new Date(now.getTime() - codeRules.verifiedValidForMs)
  const [row] = await db
    .update(whatsappVerifications)
    .set({ consumedAt: now })
    .where(
      sql`${whatsappVerifications.id} = (
        select id from ${whatsappVerifications}
        where ${whatsappVerifications.phoneNumber} = ${phone}
          and ${whatsappVerifications.verifiedAt} > ${since.toISOString()}
          and ${whatsappVerifications.consumedAt} is null
        order by ${whatsappVerifications.verifiedAt} desc limit 1
      ) and ${isNull(whatsappVerifications.consumedAt)}`,
    )
    .returning({ id: whatsappVerifications.id })
  if (!row) throw new DomainError('whatsapp_not_verified')
  return row.id
}

export async function releaseVerification(db: Executor, id: string): Promise<void> {
  await db
    .update(whatsappVerifications)
    .set({ consumedAt: null })
    .where(and(eq(whatsappVerifications.id, id), isNotNull(whatsappVerifications.consumedAt)))
}
