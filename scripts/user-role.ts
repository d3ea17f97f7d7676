// `npm run user:role -- <e-mail> admin|user`: grants or revokes admin (role_id 1 or 2) from the shell, e.g. for
// the first admin of a PostgreSQL deployment. One transaction, an audit row by 'cli', and never the last admin
// demoted. With the embedded database, stop the server first: PGlite is used by one process at a time.
import { eq, or } from 'drizzle-orm'
import { roleIds } from '../src/domain/billing-vocabulary'
import { emailSchema } from '../src/domain/contracts/auth'
import { DomainError } from '../src/domain/errors'
import { profiles } from '../src/server/db/schema/auth'
import { audit, systemActor } from '../src/server/modules/audit/audit'
import { runScript, ScriptError } from './run-script'

const usage = 'Uso: npm run user:role -- <e-mail> admin|user'
const roles = { admin: roleIds.admin, user: roleIds.user } as const
const roleNames: Record<number, string> = { [roleIds.admin]: 'administrador', [roleIds.user]: 'usuário comum' }

function parseArgs(args: string[]): { email: string; roleId: number } {
  const [rawEmail, rawRole, ...rest] = args
  if (rawEmail === undefined || rawRole === undefined || rest.length > 0) throw new ScriptError(usage)
  const email = emailSchema.safeParse(rawEmail)
  if (!email.success) throw new ScriptError(`E-mail inválido: ${rawEmail}. ${usage}`)
  if (rawRole !== 'admin' && rawRole !== 'user') throw new ScriptError(`Papel inválido: ${rawRole}. ${usage}`)
  return { email: email.data, roleId: roles[rawRole] }
}

let parsed: { email: string; roleId: number }
try {
  parsed = parseArgs(process.argv.slice(2))
} catch (error) {
  console.error(error instanceof Error ? error.message : usage)
  process.exit(1)
}
const { email, roleId } = parsed

await runScript('alterar o papel', async ({ database, log }) => {
  const changed = await database.db.transaction(async (tx) => {
    // The target and every admin, locked in one statement (id order), so two demotions at once cannot both
    // see another admin left.
    const locked = await tx
      .select({ id: profiles.id, email: profiles.email, roleId: profiles.roleId })
      .from(profiles)
      .where(or(eq(profiles.email, email), eq(profiles.roleId, roleIds.admin)))
      .orderBy(profiles.id)
      .for('update')
    const target = locked.find((p) => p.email === email)
    if (!target) throw new ScriptError(`Nenhuma conta com o e-mail ${email}.`)
    if (target.roleId === roleId) return false
    if (target.roleId === roleIds.admin && locked.filter((p) => p.roleId === roleIds.admin).length <= 1)
      throw new DomainError('last_admin')
    await tx.update(profiles).set({ roleId, updatedAt: new Date() }).where(eq(profiles.id, target.id))
    await audit(tx, systemActor('cli'), 'user.role', 'user', target.id, {
      before: { roleId: target.roleId },
      after: { roleId, by: 'cli' },
    })
    return true
  })
  const name = roleNames[roleId] ?? `role_id ${roleId}`
  log(changed ? `${email} agora é ${name} (role_id ${roleId}).` : `${email} já é ${name}; nada mudou.`)
})
