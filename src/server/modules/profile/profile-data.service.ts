// Personal data (LGPD, Lei 13.709/2018, art. 18): the person's own export ('Baixar meus dados') and the erasure of
// their account ('Excluir minha conta'). Rules (README, "Personal data"):
// - the export holds every row about the signed-in person, and never a password hash, token or code hash;
// - deletion needs the password again and is refused while anything still binds the customer (a live subscription or
//   an open invoice) or when they are the last admin;
// - deletion anonymises, it does not delete: subscriptions and payments are fiscal records (5 years, CTN arts. 173 and
//   174) and keep their amounts, dates and ids; the profile becomes a tombstone ('Conta excluída',
//   excluido-<id>@invalid); personal data is scrubbed from audit snapshots, notifications, platform events and
//   provider payloads; credentials, sessions, tokens and verification traces are deleted; one audit row says so.
import { roleIds } from '../../../domain/billing-vocabulary'
import type { SessionUser } from '../../../domain/contracts/auth'
import type { PersonalDataExport } from '../../../domain/contracts/personal-data'
import { DomainError } from '../../../domain/errors'
import {
  erasedEmail,
  piiSubstrings,
  piiValues,
  profileSnapshotKeys,
  providerPayloadKeys,
  removedText,
  type ScrubRules,
  scrubJson,
} from '../../../domain/personal-data'
import type { AppContext } from '../../context'
import { audit } from '../audit/audit'
import { hitRateLimit, type RateRule } from '../rate-limit/rate-limit'
import { deletePersonalMessages, personalMessages } from '../whatsapp/messages.service'
import {
  anonymiseNotifications,
  anonymiseProfile,
  auditRowsAbout,
  credentialHash,
  exportRows,
  lockAdminsAndProfile,
  lockBindingRecords,
  notificationRecipients,
  platformEventsOf,
  removeCredentialsAndSessions,
  removeVerificationTraces,
  stripeCustomerIds,
  updateAuditSnapshots,
  updatePlatformEventBody,
  updateWebhookPayload,
  webhookEventsMentioning,
  whatsappVerificationRows,
} from './profile-data.repo'

export type ProfileDataDeps = Pick<AppContext, 'db' | 'now' | 'auth'>

/** Password guesses through the deletion dialog: as strict as sign-in per account. */
export const accountDeletionRule: RateRule = { limit: 10, windowMs: 15 * 60_000 }

const phoneKeys = ['whatsappNumber', 'whatsapp_number'] as const

/** Every WhatsApp number the person had: the current one and those their profile changes replaced. */
function numbersOf(current: string, profileSnapshots: unknown[]): string[] {
  const numbers = new Set<string>()
  if (current) numbers.add(current)
  for (const snapshot of profileSnapshots) {
    if (!snapshot || typeof snapshot !== 'object') continue
    for (const key of phoneKeys) {
      const value = (snapshot as Record<string, unknown>)[key]
      if (typeof value === 'string' && /^\d{10,15}$/.test(value)) numbers.add(value)
    }
  }
  return [...numbers]
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Everything held about the signed-in person (their own rows only). */
export async function exportPersonalData(deps: ProfileDataDeps, user: SessionUser): Promise<PersonalDataExport> {
  const rows = await exportRows(deps.db, user.id)
  const profile = rows.profile
  if (!profile || profile.deletedAt) throw new DomainError('unauthenticated')
  const profileSnapshots = rows.audit
    .filter(({ row }) => row.entity === 'profile' && row.entityId === user.id)
    .flatMap(({ row }) => [row.before, row.after])
  const verifications = await whatsappVerificationRows(deps.db, numbersOf(profile.whatsappNumber, profileSnapshots))
  return {
    format: 'meus-dados/v1',
    exportedAt: deps.now().toISOString(),
    profile: {
      id: profile.id,
      name: profile.name,
      email: profile.email,
      emailVerified: profile.emailVerified,
      companyName: profile.companyName,
      whatsappNumber: profile.whatsappNumber,
      role: profile.roleId === roleIds.admin ? 'admin' : 'user',
      createdAt: profile.createdAt,
      updatedAt: profile.updatedAt,
    },
    loginMethods: rows.loginMethods.map((m) => ({
      method: m.providerId === 'credential' ? 'email_password' : m.providerId,
      createdAt: m.createdAt,
      updatedAt: m.updatedAt,
    })),
    sessions: rows.sessions,
    subscriptions: rows.subscriptions,
    payments: rows.payments,
    notifications: rows.notifications,
    // Who acted, as the person can know it: themself, our staff or the system. Rows where they acted on someone
    // else (an admin's work) keep only what was done and when: the subject is another person's.
    auditLog: rows.audit.map(({ row, ownSubject }) => ({
      id: row.id,
      createdAt: row.createdAt,
      action: row.action,
      entity: row.entity,
      actor: row.actorId === user.id ? 'self' : row.actorId === null ? 'system' : 'staff',
      ...(ownSubject ? { entityId: row.entityId, before: row.before, after: row.after } : {}),
    })),
    whatsappVerifications: verifications,
    platformEvents: rows.platformEvents.map((e) => ({ ...e, body: parseJson(e.body) })),
    whatsappMessages: await personalMessages(deps.db, user.id, numbersOf(profile.whatsappNumber, profileSnapshots)),
  }
}

/**
 * Erases the signed-in person's account, in one transaction with their rows locked (see the rules at the top).
 * Returns nothing: the caller signs the browser out.
 */
export async function deleteAccount(deps: ProfileDataDeps, user: SessionUser, password: string): Promise<void> {
  const now = deps.now()
  await hitRateLimit(deps.db, `account-delete:user:${user.id}`, accountDeletionRule, now)
  const authContext = await deps.auth.$context
  await deps.db.transaction(async (tx) => {
    const { adminCount, profile } = await lockAdminsAndProfile(tx, user.id)
    if (!profile || profile.deletedAt) throw new DomainError('unauthenticated')
    const hash = await credentialHash(tx, user.id)
    if (!hash || !(await authContext.password.verify({ hash, password }))) throw new DomainError('password_incorrect')
    if (profile.roleId === roleIds.admin && adminCount <= 1) throw new DomainError('last_admin_delete')
    const binding = await lockBindingRecords(tx, user.id)
    if (binding.live > 0) throw new DomainError('account_has_live_subscription')
    if (binding.open > 0) throw new DomainError('account_has_open_invoice')

    const placeholder = erasedEmail(user.id)
    const audits = await auditRowsAbout(tx, user.id)
    const profileSnapshots = audits
      .filter(({ row }) => (row.entity === 'profile' || row.entity === 'user') && row.entityId === user.id)
      .flatMap(({ row }) => [row.before, row.after])
    const historical = profileSnapshots.flatMap((s) =>
      s && typeof s === 'object'
        ? Object.entries(s as Record<string, unknown>)
            .filter(([key]) => profileSnapshotKeys.has(key))
            .map(([, value]) => value)
        : [],
    )
    const recipients = (await notificationRecipients(tx, user.id)).map((r) => r.recipient)
    const values = piiValues([
      profile.name,
      profile.email,
      profile.companyName,
      profile.whatsappNumber,
      ...historical,
      ...recipients,
    ])
    const substrings = piiSubstrings(values)
    const byValue: ScrubRules = { values, substrings, keys: new Set() }
    const aboutProfile: ScrubRules = { values, substrings, keys: profileSnapshotKeys }

    // Audit trail: kept (it proves what happened to the money), without the person in it.
    for (const { row, ownSubject } of audits) {
      const rules = ownSubject && (row.entity === 'profile' || row.entity === 'user') ? aboutProfile : byValue
      const before = scrubJson(row.before, rules)
      const after = scrubJson(row.after, rules)
      if (JSON.stringify(before) !== JSON.stringify(row.before) || JSON.stringify(after) !== JSON.stringify(row.after))
        await updateAuditSnapshots(tx, row.id, before, after)
    }

    await anonymiseNotifications(tx, user.id, placeholder, now)

    for (const event of await platformEventsOf(tx, user.id)) {
      const body = scrubJson(parseJson(event.body), byValue)
      if (body && typeof body === 'object' && 'customer' in body) {
        ;(body as { customer: unknown }).customer = { email: placeholder, company: '' }
      }
      const text = JSON.stringify(body)
      if (text !== event.body) await updatePlatformEventBody(tx, event.id, text)
    }

    const customers = await stripeCustomerIds(tx, user.id)
    const providerRules: ScrubRules = { values, substrings, keys: providerPayloadKeys }
    for (const event of await webhookEventsMentioning(tx, [
      ...substrings.filter((s) => s.includes('@')),
      ...customers,
    ])) {
      const payload = scrubJson(event.payload, providerRules)
      if (JSON.stringify(payload) !== JSON.stringify(event.payload)) await updateWebhookPayload(tx, event.id, payload)
    }

    await deletePersonalMessages(tx, user.id, numbersOf(profile.whatsappNumber, profileSnapshots))
    await removeCredentialsAndSessions(tx, user.id, profile.email)
    await removeVerificationTraces(tx, user.id, numbersOf(profile.whatsappNumber, profileSnapshots), profile.email)
    await anonymiseProfile(tx, user.id, placeholder, now)
    await audit(tx, { id: user.id, roleId: profile.roleId }, 'profile.delete', 'profile', user.id, {
      before: { subscriptions: binding.subscriptions, payments: binding.payments, roleId: profile.roleId },
      after: { email: placeholder, name: removedText, deletedAt: now.toISOString() },
    })
  })
}
