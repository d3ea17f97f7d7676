// The customer's own profile. The id always comes from the session, never from the request, and only name,
// company and (with a fresh WhatsApp verification of the new number) the WhatsApp number can change here:
// e-mail and role_id are not writable by any customer request.
import type { SessionUser } from '../../../domain/contracts/auth'
import type { Profile } from '../../../domain/contracts/billing'
import { DomainError } from '../../../domain/errors'
import type { AppContext } from '../../context'
import { audit } from '../audit/audit'
import { consumeVerification } from '../whatsapp/verification.service'
import { findProfile, lockProfile, toProfile, updateProfileRow } from './profile.repo'

export type ProfileDeps = Pick<AppContext, 'db' | 'now'>

export async function getProfile(deps: ProfileDeps, user: SessionUser): Promise<Profile> {
  const row = await findProfile(deps.db, user.id)
  if (!row) throw new DomainError('unauthenticated') // the session outlived its account
  return toProfile(row)
}

export async function updateProfile(
  deps: ProfileDeps,
  user: SessionUser,
  input: { name: string; company_name: string },
): Promise<Profile> {
  const now = deps.now()
  return deps.db.transaction(async (tx) => {
    const before = await lockProfile(tx, user.id)
    if (!before) throw new DomainError('unauthenticated')
    const after = await updateProfileRow(tx, user.id, {
      name: input.name,
      companyName: input.company_name,
      updatedAt: now,
    })
    await audit(tx, { id: user.id, roleId: user.roleId }, 'profile.update', 'profile', user.id, {
      before: { name: before.name, companyName: before.companyName },
      after: { name: after.name, companyName: after.companyName },
    })
    return toProfile(after)
  })
}

/**
 * The new number must have been verified by a code sent to it (POST /api/whatsapp/send-code + verify-code) within
 * the last 30 minutes, from this same browser (its verification cookie); the verification is used up in the same
 * transaction, so it serves one change only.
 */
export async function changeWhatsapp(
  deps: ProfileDeps,
  user: SessionUser,
  whatsappNumber: string,
  browserToken: string | undefined,
): Promise<Profile> {
  const now = deps.now()
  return deps.db.transaction(async (tx) => {
    const before = await lockProfile(tx, user.id)
    if (!before) throw new DomainError('unauthenticated')
    await consumeVerification(tx, whatsappNumber, browserToken, now)
    const after = await updateProfileRow(tx, user.id, { whatsappNumber, updatedAt: now })
    await audit(tx, { id: user.id, roleId: user.roleId }, 'profile.whatsapp_change', 'profile', user.id, {
      before: { whatsappNumber: before.whatsappNumber },
      after: { whatsappNumber: after.whatsappNumber },
    })
    return toProfile(after)
  })
}
