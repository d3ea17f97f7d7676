import { eq } from 'drizzle-orm'
import { roleIds } from '../domain/billing-vocabulary'
import { ConfigError } from './config'
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

/**
 * ADMIN_EMAIL/ADMIN_PASSWORD create the first admin, and only ever promote the account they created. An account that
 * already holds the address is never touched: an admin is left as it is (password and verification included), anyone
 * else stops the start-up with one line (someone may have registered the address first to be promoted with their own
 * password). Promoting an existing account is `npm run user:role`.
 */
export async function ensureAdmin(ctx: AppContext, log: (msg: string) => void): Promise<void> {
  const { ADMIN_EMAIL: email, ADMIN_PASSWORD: password } = ctx.config
  if (!email || !password) return
  const normalized = email.toLowerCase()
  const existing = await findRole(ctx, normalized)
  if (existing !== null) {
    if (existing === roleIds.admin) return
    throw squatted(normalized)
  }
  let createdId: string
  try {
    const created = await ctx.auth.api.signUpEmail({ body: { name: 'Administrador', email: normalized, password } })
    createdId = created.user.id
  } catch (error) {
    // Another instance starting at the same time created it a moment ago and is promoting it: wait for that.
    for (let i = 0; i < 20; i++) {
      const role = await findRole(ctx, normalized)
      if (role === roleIds.admin) return
      if (role === null) throw error
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    throw squatted(normalized)
  }
  // The account created just now: verified (the operator typed the address) and admin, audited.
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(profiles)
      .set({ roleId: roleIds.admin, emailVerified: true, updatedAt: ctx.now() })
      .where(eq(profiles.id, createdId))
    await audit(tx, systemActor('bootstrap'), 'user.role', 'user', createdId, {
      before: { roleId: roleIds.user },
      after: { roleId: roleIds.admin, by: 'bootstrap' },
    })
  })
  log(`Conta de administrador criada: ${normalized}`)
}

async function findRole(ctx: AppContext, email: string): Promise<number | null> {
  const [row] = await ctx.db.select({ roleId: profiles.roleId }).from(profiles).where(eq(profiles.email, email))
  return row ? row.roleId : null
}

function squatted(email: string): ConfigError {
  return new ConfigError(
    `Configuração inválida: ADMIN_EMAIL ${email} já pertence a uma conta que não é de administrador; nada foi ` +
      `alterado. Use outro e-mail ou, se a conta for sua, promova-a com: npm run user:role -- ${email} admin`,
  )
}
