// Sign-in lockout that nobody can aim at someone else: only wrong passwords count, and they count per
// (account, network). A stranger's failures lock the stranger's pair; the owner, from an address that has not
// failed, still signs in. Only a flood (100 failures in an hour, from everywhere) locks the account as a whole,
// and then its owner is told once.
import { DomainError } from '../../../domain/errors'
import type { LifecycleDeps } from '../lifecycle/pass-runner'
import { sendAccountEmail } from '../lifecycle/notifications.service'
import { accountLockedEmail } from '../messaging/templates'
import { clientKey, countHit, currentCount, hitRateLimit, rateRules } from '../rate-limit/rate-limit'
import { accountOwner } from './auth.repo'

export type SignInGuardDeps = LifecycleDeps

const pairKey = (email: string, ip: string) => `sign-in:fail:${email}:${clientKey(ip)}`
const accountKey = (email: string) => `sign-in:fail:${email}`

/** Before the password is checked: the per-IP budget, then the pair's and the account's locks. */
export async function assertSignInAllowed(deps: SignInGuardDeps, email: string, ip: string): Promise<void> {
  const now = deps.now()
  await hitRateLimit(deps.db, `sign-in:ip:${clientKey(ip)}`, rateRules.signInPerIp, now)
  const account = rateRules.signInFailuresPerAccount
  if ((await currentCount(deps.db, accountKey(email), account, now)) >= account.limit)
    throw new DomainError('account_locked')
  const pair = rateRules.signInFailuresPerAccountAndIp
  if ((await currentCount(deps.db, pairKey(email, ip), pair, now)) >= pair.limit) throw new DomainError('rate_limited')
}

/** After a wrong password. The failure that reaches the account limit mails the owner (once per window). */
export async function recordSignInFailure(deps: SignInGuardDeps, email: string, ip: string): Promise<void> {
  const now = deps.now()
  await countHit(deps.db, pairKey(email, ip), rateRules.signInFailuresPerAccountAndIp, now)
  const failures = await countHit(deps.db, accountKey(email), rateRules.signInFailuresPerAccount, now)
  if (failures !== rateRules.signInFailuresPerAccount.limit) return
  const owner = await accountOwner(deps.db, email)
  if (!owner) return
  const message = accountLockedEmail({ name: owner.name, url: `${deps.config.appUrl}/forgot-password` })
  try {
    // Through the outbox: a failing SMTP server delays the notice, it does not lose it.
    await sendAccountEmail(deps, { kind: 'account_locked', userId: owner.id, to: owner.email, message })
  } catch (error) {
    // The lock holds either way; a notice not even queued must not turn the wrong-password answer into a 500.
    deps.log.error({ err: error }, 'account lock notice not queued')
  }
}
