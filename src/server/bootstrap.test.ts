import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureAdmin, prepareDatabase } from './bootstrap'
import { ConfigError } from './config'
import { profiles } from './db/schema/auth'
import { pixSettings } from './db/schema/billing'
import { plans } from './db/schema/plans'
import { auditLog } from './db/schema/platform'
import { createTestApp, type TestApp } from './test/test-app'
import { createUser, get, post } from './test/users'

const adminEmail = 'dona@example.com'
const adminPassword = 'senha-do-admin-123'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { ADMIN_EMAIL: 'Dona@Example.com', ADMIN_PASSWORD: adminPassword } })
})
afterAll(async () => {
  await t?.close()
})

async function adminRows() {
  return t.database.db.select().from(profiles).where(eq(profiles.email, adminEmail))
}

async function signIn(email: string, password: string) {
  return post(t.app, '/api/auth/sign-in', { email, password })
}

function cookieOf(response: { headers: Record<string, unknown> }): string {
  const value = response.headers['set-cookie']
  const cookies = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : []
  return cookies.map((c) => c.split(';')[0]).join('; ')
}

describe('ensureAdmin', () => {
  it('creates a verified admin from ADMIN_EMAIL/ADMIN_PASSWORD who can sign in at once', async () => {
    const logs: string[] = []
    await ensureAdmin(t.app.ctx, (m) => logs.push(m))
    const rows = await adminRows()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ roleId: 1, emailVerified: true })
    expect(logs).toEqual([`Conta de administrador criada: ${adminEmail}`])

    const response = await signIn(adminEmail, adminPassword)
    expect(response.statusCode, response.body).toBe(200)
    const session = await get(t.app, '/api/auth/session', cookieOf(response))
    expect(session.json().user).toMatchObject({ email: adminEmail, roleId: 1, isAdmin: true })

    const audits = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, rows[0]!.id), eq(auditLog.action, 'user.role')))
    expect(audits).toHaveLength(1)
    expect(audits[0]).toMatchObject({ actorId: null, before: { roleId: 2 }, after: { roleId: 1, by: 'bootstrap' } })
  })

  it('is idempotent: a second start changes nothing, not even the password', async () => {
    const [before] = await adminRows()
    const logs: string[] = []
    const changedPassword = { ...t.app.ctx, config: { ...t.app.ctx.config, ADMIN_PASSWORD: 'outra-senha-qualquer' } }
    await ensureAdmin(changedPassword, (m) => logs.push(m))
    await ensureAdmin(t.app.ctx, (m) => logs.push(m))
    const after = await adminRows()
    expect(after).toEqual([before])
    expect(logs).toEqual([])
    expect((await signIn(adminEmail, adminPassword)).statusCode).toBe(200)
    expect((await signIn(adminEmail, 'outra-senha-qualquer')).statusCode).toBe(401)
    const audits = await t.database.db.select().from(auditLog).where(eq(auditLog.entityId, before!.id))
    expect(audits).toHaveLength(1)
  })

  it('leaves an existing admin alone: no password change, no re-verification', async () => {
    await t.database.db.update(profiles).set({ emailVerified: false }).where(eq(profiles.email, adminEmail))
    const [before] = await adminRows()
    const changedPassword = { ...t.app.ctx, config: { ...t.app.ctx.config, ADMIN_PASSWORD: 'outra-senha-qualquer' } }
    await ensureAdmin(changedPassword, () => {})
    expect(await adminRows()).toEqual([before])
    expect(before).toMatchObject({ roleId: 1, emailVerified: false })
    await t.database.db.update(profiles).set({ emailVerified: true }).where(eq(profiles.email, adminEmail))
  })

  it('refuses to start when the address belongs to a non-admin account, and changes nothing', async () => {
    // Someone registered the address first, hoping the operator's ADMIN_EMAIL would promote them.
    const user = await createUser(t, { email: 'socio@example.com' })
    const unverified = await t.database.db
      .update(profiles)
      .set({ emailVerified: false })
      .where(eq(profiles.id, user.id))
      .returning()
    const everyone = async () => t.database.db.select().from(profiles).orderBy(profiles.id)
    const audits = async () => t.database.db.select().from(auditLog).orderBy(auditLog.id)
    const [usersBefore, auditsBefore] = [await everyone(), await audits()]
    const ctx = {
      ...t.app.ctx,
      config: { ...t.app.ctx.config, ADMIN_EMAIL: 'Socio@example.com', ADMIN_PASSWORD: 'senha-do-operador-123' },
    }
    const logs: string[] = []
    const refusal = await ensureAdmin(ctx, (m) => logs.push(m)).then(
      () => null,
      (error: unknown) => error,
    )
    expect(refusal).toBeInstanceOf(ConfigError)
    expect((refusal as Error).message).toBe(
      'Configuração inválida: ADMIN_EMAIL socio@example.com já pertence a uma conta que não é de administrador; ' +
        'nada foi alterado. Use outro e-mail ou, se a conta for sua, promova-a com: ' +
        'npm run user:role -- socio@example.com admin',
    )
    expect((refusal as Error).message).not.toContain('\n')
    expect(logs).toEqual([])
    // Database diff: no profile row changed (role, verification), no audit row written.
    expect(await everyone()).toEqual(usersBefore)
    expect(await audits()).toEqual(auditsBefore)
    expect(unverified[0]).toMatchObject({ roleId: 2, emailVerified: false })
    // Neither password makes an admin: the squatter stays a user, the operator's password does not work.
    expect((await signIn('socio@example.com', 'senha-do-operador-123')).statusCode).toBe(401)
  })

  it('does nothing without ADMIN_EMAIL and ADMIN_PASSWORD', async () => {
    const count = (await t.database.db.select({ id: profiles.id }).from(profiles)).length
    const ctx = { ...t.app.ctx, config: { ...t.app.ctx.config, ADMIN_EMAIL: undefined, ADMIN_PASSWORD: undefined } }
    await ensureAdmin(ctx, () => {})
    expect((await t.database.db.select({ id: profiles.id }).from(profiles)).length).toBe(count)
  })
})

describe('prepareDatabase', () => {
  it('seeds demo plans only into an empty embedded database, once, and keeps the PIX settings row', async () => {
    // This file's database already holds accounts: nothing is seeded, on either kind of database.
    const logs: string[] = []
    await prepareDatabase(t.database, (m) => logs.push(m))
    expect(await t.database.db.select().from(plans)).toHaveLength(0)
    expect(logs).toEqual([])
    expect(await t.database.db.select().from(pixSettings).where(eq(pixSettings.id, 1))).toHaveLength(1)
  })

  it('seeds the demo plans into a fresh embedded database, but never into PostgreSQL', async () => {
    const fresh = await createTestApp()
    try {
      const logs: string[] = []
      await prepareDatabase(fresh.database, (m) => logs.push(m))
      await prepareDatabase(fresh.database, (m) => logs.push(m))
      const rows = await fresh.database.db.select({ id: plans.id, popular: plans.popular }).from(plans)
      if (fresh.database.kind === 'pglite') {
        expect(rows.map((p) => p.id).sort()).toEqual(['plan_basic', 'plan_business', 'plan_pro'])
        expect(rows.find((p) => p.popular)?.id).toBe('plan_pro')
        expect(logs).toHaveLength(1)
      } else {
        expect(rows).toHaveLength(0)
        expect(logs).toEqual([])
      }
    } finally {
      await fresh.close()
    }
  }, 120_000)
})
