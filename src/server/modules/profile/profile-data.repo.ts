// Queries of the personal-data feature (LGPD export and account deletion). Every query is scoped by the id of the
// signed-in person; nothing here takes an id from a request.
import { and, asc, eq, inArray, isNull, ne, or, type SQL, sql } from 'drizzle-orm'
import type { Executor, Tx } from '../../db/client'
import { accounts, profiles, sessions, twoFactors, verifications } from '../../db/schema/auth'
import { payments, subscriptions } from '../../db/schema/billing'
import { notifications, platformEvents } from '../../db/schema/lifecycle'
import { auditLog, rateLimits, webhookEvents, whatsappVerifications } from '../../db/schema/platform'
import { cardSimulatorSessions } from '../../db/schema/stripe'
import { roleIds } from '../../../domain/billing-vocabulary'
import { unsettledPaymentStatuses } from '../../../domain/subscription-status'

/** Statuses in which a subscription still binds the customer (anything but canceled). */
export const liveSubscriptionStatuses = ['active', 'trialing', 'past_due', 'pending_pix'] as const
/** Invoices not settled yet: awaiting payment, or paid with a difference an admin must review. */

function subscriptionIdsOf(db: Executor, userId: string) {
  return db.select({ id: subscriptions.id }).from(subscriptions).where(eq(subscriptions.userId, userId))
}

function paymentIdsOf(db: Executor, userId: string) {
  return db
    .select({ id: payments.id })
    .from(payments)
    .where(inArray(payments.subscriptionId, subscriptionIdsOf(db, userId)))
}

/** Audit rows whose subject is this person: their profile, their account's role, their subscriptions and payments. */
function auditSubjectIs(db: Executor, userId: string): SQL {
  return or(
    and(inArray(auditLog.entity, ['profile', 'user']), eq(auditLog.entityId, userId)),
    and(eq(auditLog.entity, 'subscription'), inArray(auditLog.entityId, subscriptionIdsOf(db, userId))),
    and(eq(auditLog.entity, 'payment'), inArray(auditLog.entityId, paymentIdsOf(db, userId))),
  ) as SQL
}

export async function exportRows(db: Executor, userId: string) {
  const [profile] = await db.select().from(profiles).where(eq(profiles.id, userId))
  const loginMethods = await db
    .select({ providerId: accounts.providerId, createdAt: accounts.createdAt, updatedAt: accounts.updatedAt })
    .from(accounts)
    .where(eq(accounts.userId, userId))
    .orderBy(asc(accounts.createdAt))
  const sessionRows = await db
    .select({
      createdAt: sessions.createdAt,
      updatedAt: sessions.updatedAt,
      expiresAt: sessions.expiresAt,
      ipAddress: sessions.ipAddress,
      userAgent: sessions.userAgent,
    })
    .from(sessions)
    .where(eq(sessions.userId, userId))
    .orderBy(asc(sessions.createdAt))
  const subscriptionRows = await db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.userId, userId))
    .orderBy(asc(subscriptions.createdAt), asc(subscriptions.id))
  const paymentRows = await db
    .select()
    .from(payments)
    .where(inArray(payments.subscriptionId, subscriptionIdsOf(db, userId)))
    .orderBy(asc(payments.createdAt), asc(payments.id))
  const notificationRows = await db
    .select({
      id: notifications.id,
      kind: notifications.kind,
      channel: notifications.channel,
      subscriptionId: notifications.subscriptionId,
      paymentId: notifications.paymentId,
      recipient: notifications.recipient,
      subject: notifications.subject,
      body: notifications.body,
      status: notifications.status,
      sentAt: notifications.sentAt,
      createdAt: notifications.createdAt,
    })
    .from(notifications)
    .where(eq(notifications.userId, userId))
    .orderBy(asc(notifications.createdAt), asc(notifications.id))
  const subject = auditSubjectIs(db, userId)
  const auditRows = await db
    .select({ row: auditLog, ownSubject: sql<boolean>`coalesce(${subject}, false)` })
    .from(auditLog)
    .where(or(eq(auditLog.actorId, userId), subject))
    .orderBy(asc(auditLog.id))
  const eventRows = await db
    .select({
      id: platformEvents.id,
      subscriptionId: platformEvents.subscriptionId,
      type: platformEvents.type,
      body: platformEvents.body,
      status: platformEvents.status,
      deliveredAt: platformEvents.deliveredAt,
      createdAt: platformEvents.createdAt,
    })
    .from(platformEvents)
    .where(inArray(platformEvents.subscriptionId, subscriptionIdsOf(db, userId)))
    .orderBy(asc(platformEvents.seq))
  return {
    profile: profile ?? null,
    loginMethods,
    sessions: sessionRows,
    subscriptions: subscriptionRows,
    payments: paymentRows,
    notifications: notificationRows,
    audit: auditRows,
    platformEvents: eventRows,
  }
}

/** Verification attempts of these numbers (the code hash is never read). */
export function whatsappVerificationRows(db: Executor, phones: string[]) {
  if (phones.length === 0) return Promise.resolve([])
  return db
    .select({
      phoneNumber: whatsappVerifications.phoneNumber,
      ip: whatsappVerifications.ip,
      attempts: whatsappVerifications.attempts,
      createdAt: whatsappVerifications.createdAt,
      expiresAt: whatsappVerifications.expiresAt,
      verifiedAt: whatsappVerifications.verifiedAt,
      consumedAt: whatsappVerifications.consumedAt,
    })
    .from(whatsappVerifications)
    .where(inArray(whatsappVerifications.phoneNumber, phones))
    .orderBy(asc(whatsappVerifications.createdAt))
}

// ---- deletion -------------------------------------------------------------------------------------------------

/** Admin rows in id order (the order setUserRole locks them in, so the two never deadlock), then the person. */
export async function lockAdminsAndProfile(tx: Tx, userId: string) {
  const admins = await tx
    .select({ id: profiles.id })
    .from(profiles)
    .where(and(eq(profiles.roleId, roleIds.admin), isNull(profiles.deletedAt)))
    .orderBy(asc(profiles.id))
    .for('update')
  const [profile] = await tx.select().from(profiles).where(eq(profiles.id, userId)).for('update')
  return { adminCount: admins.length, profile: profile ?? null }
}

export async function credentialHash(tx: Tx, userId: string): Promise<string | null> {
  const [row] = await tx
    .select({ password: accounts.password })
    .from(accounts)
    .where(and(eq(accounts.userId, userId), eq(accounts.providerId, 'credential')))
    .limit(1)
  return row?.password ?? null
}

/** Locks the person's subscriptions and reports what still binds them. */
export async function lockBindingRecords(tx: Tx, userId: string) {
  const subs = await tx
    .select({ id: subscriptions.id, status: subscriptions.status })
    .from(subscriptions)
    .where(eq(subscriptions.userId, userId))
    .orderBy(asc(subscriptions.id))
    .for('update')
  const live = subs.filter((s) => (liveSubscriptionStatuses as readonly string[]).includes(s.status))
  const open =
    subs.length === 0
      ? []
      : await tx
          .select({ id: payments.id })
          .from(payments)
          .where(
            and(
              inArray(
                payments.subscriptionId,
                subs.map((s) => s.id),
              ),
              inArray(payments.status, [...unsettledPaymentStatuses]),
            ),
          )
          .for('update')
  const paymentCount = subs.length === 0 ? 0 : (await paymentIdsOf(tx, userId)).length
  return { subscriptions: subs.length, live: live.length, open: open.length, payments: paymentCount }
}

/** Every audit row that mentions the person (subject or actor), with whether the subject is theirs. */
export function auditRowsAbout(tx: Tx, userId: string) {
  const subject = auditSubjectIs(tx, userId)
  return tx
    .select({ row: auditLog, ownSubject: sql<boolean>`coalesce(${subject}, false)` })
    .from(auditLog)
    .where(or(eq(auditLog.actorId, userId), subject))
    .orderBy(asc(auditLog.id))
}

export async function updateAuditSnapshots(tx: Tx, id: number, before: unknown, after: unknown) {
  await tx.update(auditLog).set({ before, after }).where(eq(auditLog.id, id))
}

export function notificationRecipients(tx: Tx, userId: string) {
  return tx
    .selectDistinct({ recipient: notifications.recipient })
    .from(notifications)
    .where(eq(notifications.userId, userId))
}

/**
 * Messages keep what they were about (kind, channel, invoice, dates: proof that the customer was told) but lose
 * who and what they said; anything still waiting is never sent.
 */
export async function anonymiseNotifications(tx: Tx, userId: string, placeholder: string, now: Date) {
  await tx
    .update(notifications)
    .set({
      recipient: placeholder,
      subject: null,
      body: '[removido: conta excluída]',
      html: null,
      template: null, // its parameters hold the name
      status: sql`case when ${notifications.status} = 'pending' then 'failed' else ${notifications.status} end`,
      lastError: sql`case when ${notifications.status} = 'pending' then 'conta excluída' else ${notifications.lastError} end`,
      updatedAt: now,
    })
    .where(eq(notifications.userId, userId))
}

export function platformEventsOf(tx: Tx, userId: string) {
  return tx
    .select({ id: platformEvents.id, body: platformEvents.body })
    .from(platformEvents)
    .where(inArray(platformEvents.subscriptionId, subscriptionIdsOf(tx, userId)))
}

export async function updatePlatformEventBody(tx: Tx, id: string, body: string) {
  await tx.update(platformEvents).set({ body }).where(eq(platformEvents.id, id))
}

/** Provider events whose payload names the person (their e-mail or one of their Stripe customers). */
export async function webhookEventsMentioning(tx: Tx, needles: string[]) {
  if (needles.length === 0) return []
  return tx
    .select({ id: webhookEvents.id, payload: webhookEvents.payload })
    .from(webhookEvents)
    .where(or(...needles.map((n) => sql`strpos(${webhookEvents.payload}::text, ${n}) > 0`)))
}

export async function updateWebhookPayload(tx: Tx, id: string, payload: unknown) {
  await tx.update(webhookEvents).set({ payload }).where(eq(webhookEvents.id, id))
}

export async function stripeCustomerIds(tx: Tx, userId: string): Promise<string[]> {
  const rows = await tx
    .selectDistinct({ id: subscriptions.stripeCustomerId })
    .from(subscriptions)
    .where(and(eq(subscriptions.userId, userId), sql`${subscriptions.stripeCustomerId} is not null`))
  return rows.flatMap((r) => (r.id ? [r.id] : []))
}

/** The profile becomes a tombstone: no name, a non-routable unique e-mail, no number, no company, no role. */
export async function anonymiseProfile(tx: Tx, userId: string, placeholderEmail: string, now: Date) {
  await tx
    .update(profiles)
    .set({
      name: 'Conta excluída',
      email: placeholderEmail,
      image: null,
      companyName: '',
      whatsappNumber: '',
      roleId: roleIds.user,
      twoFactorEnabled: false,
      deletedAt: now,
      updatedAt: now,
    })
    .where(eq(profiles.id, userId))
}

/** Password credential, every session, pending e-mail tokens, checkout sessions: nothing left to sign in with. */
export async function removeCredentialsAndSessions(tx: Tx, userId: string, email: string) {
  await tx.delete(accounts).where(eq(accounts.userId, userId))
  await tx.delete(twoFactors).where(eq(twoFactors.userId, userId))
  await tx.delete(sessions).where(eq(sessions.userId, userId))
  await tx
    .delete(verifications)
    .where(
      or(
        eq(verifications.value, userId),
        sql`strpos(${verifications.value}, ${userId}) > 0`,
        sql`strpos(${verifications.identifier}, ${email}) > 0`,
      ),
    )
  await tx.delete(cardSimulatorSessions).where(eq(cardSimulatorSessions.userId, userId))
}

/** Verification rows and rate-limit counters of the person's numbers, e-mail and id (numbers now someone else's stay). */
export async function removeVerificationTraces(tx: Tx, userId: string, phones: string[], email: string) {
  if (phones.length > 0) {
    const reused = await tx
      .select({ phone: profiles.whatsappNumber })
      .from(profiles)
      .where(and(inArray(profiles.whatsappNumber, phones), ne(profiles.id, userId)))
    const taken = reused.map((r) => r.phone)
    const mine = phones.filter((p) => !taken.includes(p))
    if (mine.length > 0) {
      await tx.delete(whatsappVerifications).where(inArray(whatsappVerifications.phoneNumber, mine))
      await tx.delete(rateLimits).where(or(...mine.map((p) => sql`strpos(${rateLimits.key}, ${p}) > 0`)))
    }
  }
  await tx
    .delete(rateLimits)
    .where(or(sql`strpos(${rateLimits.key}, ${email}) > 0`, sql`strpos(${rateLimits.key}, ${userId}) > 0`))
}
