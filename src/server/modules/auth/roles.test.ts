import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { profiles } from '../../db/schema/auth'
import { createTestApp, type TestApp } from '../../test/test-app'
import { createUser, get, post, type TestUser } from '../../test/users'
import { listRoutes } from '../../test/http'

let t: TestApp
let user: TestUser
beforeAll(async () => {
  t = await createTestApp()
  user = await createUser(t, { email: 'comum@example.com' })
}, 120_000)
afterAll(async () => {
  await t?.close()
})

async function roleOf(id: string): Promise<number | undefined> {
  const [row] = await t.database.db.select({ roleId: profiles.roleId }).from(profiles).where(eq(profiles.id, id))
  return row?.roleId
}

const roleFields = {
  roleId: 1,
  role_id: 1,
  role: 'admin',
  isAdmin: true,
  is_admin: true,
  emailVerified: true,
}

describe('roles', () => {
  it('starts every new account as a regular user', async () => {
    expect(await roleOf(user.id)).toBe(2)
  })

  it.each([
    'update-user',
    'sign-up/email',
    'sign-in/email',
    'change-password',
    'change-email',
    'delete-user',
    'update-session',
    'revoke-sessions',
    'admin/set-role',
    'set-password',
  ])("does not expose better-auth's own POST /api/auth/%s (404)", async (path) => {
    const response = await post(t.app, `/api/auth/${path}`, { ...roleFields, name: 'X' }, user.cookie)
    expect(response.statusCode).toBe(404)
    expect(response.json().code).toBe('not_found')
    expect(await roleOf(user.id)).toBe(2)
  })

  it('is never changed by a request of the user to any route the server answers', async () => {
    const writes = listRoutes(t.app).filter(
      (r) =>
        ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) &&
        r.url.startsWith('/api/') &&
        !r.url.startsWith('/api/docs') &&
        r.url !== '/api/auth/sign-out',
    )
    expect(writes.length).toBeGreaterThan(5)
    const bodies = [
      roleFields,
      {
        ...roleFields,
        name: 'Nome Novo',
        companyName: 'Empresa Nova',
        company_name: 'Empresa Nova',
        whatsappNumber: user.phone,
        whatsapp_number: user.phone,
        email: user.email,
      },
    ]
    for (const route of writes) {
      const url = route.url.replace(/:[A-Za-z_]+/g, user.id)
      for (const body of bodies) {
        await t.app.inject({
          method: route.method as 'POST',
          url,
          payload: body,
          headers: { origin: 'http://localhost:3000', cookie: user.cookie },
        })
        expect(await roleOf(user.id), `${route.method} ${route.url}`).toBe(2)
      }
    }
    const session = await get(t.app, '/api/auth/session', user.cookie)
    expect(session.json().user).toMatchObject({ roleId: 2, isAdmin: false })
  }, 120_000)

  it('shows a role change in the session at once, without signing in again', async () => {
    const before = await get(t.app, '/api/auth/session', user.cookie)
    expect(before.json().user).toMatchObject({ roleId: 2, isAdmin: false })
    await t.database.db.update(profiles).set({ roleId: 1 }).where(eq(profiles.id, user.id))
    const promoted = await get(t.app, '/api/auth/session', user.cookie)
    expect(promoted.json().user).toMatchObject({ roleId: 1, isAdmin: true })
    await t.database.db.update(profiles).set({ roleId: 2 }).where(eq(profiles.id, user.id))
    const demoted = await get(t.app, '/api/auth/session', user.cookie)
    expect(demoted.json().user).toMatchObject({ roleId: 2, isAdmin: false })
  })
})
