import { eq } from 'drizzle-orm'
import { roleIds } from '../domain/contracts/auth'
import type { AppContext } from './context'
import type { Database } from './db/client'
import { profiles } from './db/schema/auth'
import { ensurePixSettingsRow, isEmpty, seedDemo } from './db/seed'
import { audit, systemActor } from './modules/audit/audit'

/** Migrations, then (embedded database only, and only when empty) the demo data. */
export async function prepareDatabase(database: Database, log: (msg: string) => void): Promise<void> {
  await database.migrate()
  if (database.kind === 'pglite' && (await isEmpty(database.db))) {
    await seedDemo(database.db)
    log('Banco embutido novo: planos de demonstração e configurações PIX criados.')
  }
  await ensurePixSettingsRow(database.db)
}

/** ADMIN_EMAIL/ADMIN_PASSWORD: the account exists, is verified and is an admin (its password is set only on creation). */
export async function ensureAdmin(ctx: AppContext, log: (msg: string) => void): Promise<void> {
  const { ADMIN_EMAIL: email, ADMIN_PASSWORD: password } = ctx.config
  if (!email || !password) return
  const normalized = email.toLowerCase()
  const [existing] = await ctx.db.select({ id: profiles.id }).from(profiles).where(eq(profiles.email, normalized))
  if (!existing) {
    try {
      await ctx.auth.api.signUpEmail({ body: { name: 'Administrador', email: normalized, password } })
      log(`Conta de administrador criada: ${normalized}`)
    } catch (error) {
      // Another instance starting at the same time created it first: promoting it below is all that is left.
      const [created] = await ctx.db.select({ id: profiles.id }).from(profiles).where(eq(profiles.email, normalized))
      if (!created) throw error
    }
  }
  // A promotion is an access change: locked, audited, and a no-op when the account is already a verified admin.
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ id: profiles.id, roleId: profiles.roleId, emailVerified: profiles.emailVerified })
      .from(profiles)
      .where(eq(profiles.email, normalized))
      .for('update')
    if (!row || (row.roleId === roleIds.admin && row.emailVerified)) return
    await tx
      .update(profiles)
      .set({ roleId: roleIds.admin, emailVerified: true, updatedAt: ctx.now() })
      .where(eq(profiles.id, row.id))
    if (row.roleId !== roleIds.admin) {
      await audit(tx, systemActor('bootstrap'), 'user.role', 'user', row.id, {
        before: { roleId: row.roleId },
        after: { roleId: roleIds.admin, by: 'bootstrap' },
      })
    }
  })
}
