// Daily housekeeping: what the product keeps only as long as it needs it (README, "Retention of working data").
// - rate_limits windows older than 24 hours (no rule looks back further);
// - whatsapp_verifications and better-auth verifications (e-mail and reset tokens) older than 7 days;
// - accounts whose e-mail was never confirmed, 7 days after sign-up, when they hold nothing else: no subscription
//   (so no payment), and never an admin. Their sessions, login accounts, Stripe customer and notifications go with
//   them (ON DELETE CASCADE); one audit row per removed account.
import { addDays } from '../../../domain/billing-period'
import { audit, systemActor } from '../audit/audit'
import { pruneRateLimits } from '../rate-limit/rate-limit'
import {
  deleteProfiles,
  deleteVerificationsExpiredBefore,
  deleteWhatsappVerificationsBefore,
  lockAbandonedSignUps,
} from './maintenance.repo'
import { claimDailySlot, type LifecycleDeps, type PassResult } from './pass-runner'

const passName = 'maintenance'
export const retention = {
  verificationDays: 7,
  unverifiedAccountDays: 7,
}
/** Accounts removed per run at most; the rest goes the next day. */
const maxAccountsPerRun = 500

/** Once a day (slot in lifecycle_pass_runs, claimed atomically): prunes working data and stale sign-ups. */
export async function runMaintenance(deps: LifecycleDeps, now: Date): Promise<PassResult> {
  if (!(await claimDailySlot(deps.db, passName, now))) return { processed: 0 }

  await pruneRateLimits(deps.db, now)
  const verificationCutoff = addDays(now, -retention.verificationDays)
  await deleteWhatsappVerificationsBefore(deps.db, verificationCutoff)
  await deleteVerificationsExpiredBefore(deps.db, verificationCutoff)

  const removed = await deps.db.transaction(async (tx) => {
    const stale = await lockAbandonedSignUps(tx, addDays(now, -retention.unverifiedAccountDays), maxAccountsPerRun)
    if (stale.length === 0) return 0
    await deleteProfiles(
      tx,
      stale.map((p) => p.id),
    )
    for (const p of stale)
      await audit(tx, systemActor('billing'), 'user.unverified_removed', 'user', p.id, {
        before: { createdAt: p.createdAt.toISOString(), emailVerified: false },
        after: { removed: true, by: 'billing' },
      })
    return stale.length
  })
  if (removed > 0) deps.log.info({ pass: passName, removed }, 'maintenance: unverified accounts removed')
  return { processed: removed }
}
