import { eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { profiles } from '../../db/schema/auth'
import { auditLog } from '../../db/schema/platform'
import { fileTestApp } from '../../test/http'
import { createUser, get, type TestUser } from '../../test/users'
import { insertCustomer, insertSubscription, seedPlans, send } from './admin-fixtures'
import type { AdminUser } from './admin-lists.repo'

const t = fileTestApp()
beforeAll(() => seedPlans(t.database.db))

/** A role change needs the password again within 5 minutes (step-up): every test user's password is the same. */
async function setRole(userId: string, roleId: number, cookie: string) {
  const password = 'senha-segura-123'
  const stepUp = await send(t.app, 'POST', '/api/auth/reauthenticate', { cookie, body: { password } })
  expect(stepUp.statusCode, stepUp.body).toBe(200)
  return send(t.app, 'PUT', `/api/admin/users/${userId}/role`, { cookie, body: { role_id: roleId } })
}

async function adminCount(): Promise<number> {
  return (await t.database.db.select().from(profiles).where(eq(profiles.roleId, 1))).length
}

describe('PUT /api/admin/users/:id/role', () => {
  let ana: TestUser
  let bia: TestUser
  let carlos: TestUser

  beforeAll(async () => {
    ana = await createUser(t, { admin: true, name: 'Ana Admin' })
    bia = await createUser(t, { name: 'Bia Usuária' })
    carlos = await createUser(t, { admin: true, name: 'Carlos Admin' })
  })

  it('grants admin, which the new admin can use at once, and audits it', async () => {
    expect((await get(t.app, '/api/admin/plans', bia.cookie)).statusCode).toBe(403)
    const response = await setRole(bia.id, 1, ana.cookie)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({ id: bia.id, roleId: 1, name: 'Bia Usuária' })
    expect((await get(t.app, '/api/admin/plans', bia.cookie)).statusCode).toBe(200)
    const [entry] = await t.database.db.select().from(auditLog).where(eq(auditLog.entityId, bia.id))
    expect(entry).toMatchObject({ action: 'user.role', actorId: ana.id, before: { roleId: 2 }, after: { roleId: 1 } })

    // Granting again changes nothing and writes nothing.
    expect((await setRole(bia.id, 1, ana.cookie)).statusCode).toBe(200)
    expect(await t.database.db.select().from(auditLog).where(eq(auditLog.entityId, bia.id))).toHaveLength(1)
  })

  it('revokes admin, and the former admin is refused at once', async () => {
    expect((await setRole(bia.id, 2, carlos.cookie)).statusCode).toBe(200)
    expect((await get(t.app, '/api/admin/plans', bia.cookie)).statusCode).toBe(403)
  })

  it('never removes the last admin, not even when two admins demote each other at once', async () => {
    expect(await adminCount()).toBe(2) // ana and carlos
    const [a, b] = await Promise.all([setRole(carlos.id, 2, ana.cookie), setRole(ana.id, 2, carlos.cookie)])
    const statuses = [a?.statusCode, b?.statusCode].sort()
    // The loser is refused either by the last-admin rule (409) or, if it arrives after the winner committed, by
    // the guard, because its caller is no longer an admin (403).
    expect(statuses[0]).toBe(200)
    expect([403, 409]).toContain(statuses[1])
    expect(await adminCount()).toBe(1)

    const [last] = await t.database.db.select().from(profiles).where(eq(profiles.roleId, 1))
    const lastCookie = last?.id === ana.id ? ana.cookie : carlos.cookie
    const self = await setRole(last!.id, 2, lastCookie)
    expect(self.statusCode).toBe(409)
    expect(self.json()).toMatchObject({ code: 'last_admin', detail: 'Não é possível remover o último administrador.' })
  })

  it('answers 404 for a missing user and 400 for a role that does not exist', async () => {
    const [last] = await t.database.db.select().from(profiles).where(eq(profiles.roleId, 1))
    const cookie = last?.id === ana.id ? ana.cookie : carlos.cookie
    expect((await setRole('missing', 1, cookie)).statusCode).toBe(404)
    expect((await setRole(bia.id, 3, cookie)).statusCode).toBe(400)
  })
})

describe('GET /api/admin/users and /api/admin/customers', () => {
  it('searches name, e-mail, company, WhatsApp and id; filters by role; counts active subscriptions', async () => {
    const admin = await createUser(t, { admin: true, name: 'Lista Admin' })
    const helena = await insertCustomer(t.database.db, {
      name: 'Helena Buscada',
      email: 'helena.buscada@example.com',
      companyName: 'Ótica Visão Clara',
      whatsappNumber: '5585977776666',
      createdAt: new Date('2026-01-01T00:00:00.000Z'),
    })
    const igor = await insertCustomer(t.database.db, {
      name: 'Igor Buscado',
      roleId: 1,
      createdAt: new Date('2026-01-02T00:00:00.000Z'),
    })
    await insertSubscription(t.database.db, { userId: helena.id, status: 'active' })
    await insertSubscription(t.database.db, { userId: helena.id, status: 'trialing' })
    await insertSubscription(t.database.db, { userId: helena.id, status: 'canceled' })

    const list = async (url: string) => {
      const response = await get(t.app, url, admin.cookie)
      expect(response.statusCode, response.body).toBe(200)
      return response.json() as { items: AdminUser[]; total: number }
    }
    const ids = (page: { items: AdminUser[] }) => page.items.map((u) => u.id)

    expect(ids(await list('/api/admin/users?q=buscad'))).toEqual([igor.id, helena.id])
    expect(ids(await list('/api/admin/users?q=buscad&sort=name&dir=asc'))).toEqual([helena.id, igor.id])
    expect(ids(await list('/api/admin/users?q=vis%C3%A3o%20clara'))).toEqual([helena.id])
    expect(ids(await list('/api/admin/users?q=77776666'))).toEqual([helena.id])
    expect(ids(await list(`/api/admin/users?q=${igor.id}`))).toEqual([igor.id])
    expect(ids(await list('/api/admin/users?q=buscad&role=admin'))).toEqual([igor.id])
    expect(ids(await list('/api/admin/customers?q=buscad'))).toEqual([helena.id])
    expect(ids(await list('/api/admin/customers?q=buscad&role=admin'))).toEqual([helena.id])

    const [row] = (await list('/api/admin/customers?q=helena.buscada')).items
    expect(row).toEqual({
      id: helena.id,
      name: 'Helena Buscada',
      email: 'helena.buscada@example.com',
      companyName: 'Ótica Visão Clara',
      whatsappNumber: '5585977776666',
      roleId: 2,
      emailVerified: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      activeSubscriptions: 2,
    })

    const everyone = await list('/api/admin/users?pageSize=2&sort=email&dir=asc')
    const all = await t.database.db.select({ email: profiles.email }).from(profiles)
    expect(everyone.total).toBe(all.length)
    expect(everyone.items.map((u) => u.email)).toEqual(
      all
        .map((u) => u.email)
        .sort()
        .slice(0, 2),
    )
  })
})
