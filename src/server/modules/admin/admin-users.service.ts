// Grant or revoke admin ('Tornar Admin' / 'Remover Admin').
//
// The last admin cannot be removed, also under concurrency: every change first locks all admin rows (in id order,
// so two changes never deadlock), then counts them. Two admins demoting each other at the same moment: the second
// waits for the first's locks, re-reads the admin rows after the first commits (READ COMMITTED re-checks a locked
// row that changed), counts one and is refused.
import { type RoleId, roleIds } from '../../../domain/billing-vocabulary'
import { DomainError } from '../../../domain/errors'
import { type Actor, audit } from '../audit/audit'
import { type AdminUser, findAdminUser } from './admin-lists.repo'
import type { AdminDeps } from './admin-subscriptions.service'
import { lockAdminIds, lockProfileRow, setProfileRole } from './admin.repo'

export async function setUserRole(deps: AdminDeps, actor: Actor, userId: string, roleId: RoleId): Promise<AdminUser> {
  await deps.db.transaction(async (tx) => {
    const admins = await lockAdminIds(tx)
    const target = await lockProfileRow(tx, userId)
    if (!target) throw new DomainError('user_not_found')
    if (target.roleId === roleId) return // already so: nothing to change or audit
    if (target.roleId === roleIds.admin && admins.length <= 1) throw new DomainError('last_admin')
    await setProfileRole(tx, userId, roleId, deps.now())
    await audit(tx, actor, 'user.role', 'user', userId, { before: { roleId: target.roleId }, after: { roleId } })
  })
  const user = await findAdminUser(deps.db, userId)
  if (!user) throw new DomainError('user_not_found')
  return user
}
