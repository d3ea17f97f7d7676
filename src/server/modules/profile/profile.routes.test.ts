import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Profile } from '../../../domain/contracts/billing'
import { profiles } from '../../db/schema/auth'
import { auditLog } from '../../db/schema/platform'
import { createTestApp, type TestApp } from '../../test/test-app'
import { createUser, get, origin, post, type TestUser, uniquePhone, verifyPhone } from '../../test/users'

let t: TestApp
let user: TestUser

beforeAll(async () => {
  t = await createTestApp()
  user = await createUser(t, { name: 'Carla Perfil' })
})
afterAll(async () => {
  await t.close()
})

function patch(url: string, payload: Record<string, unknown>, cookie?: string) {
  return t.app.inject({ method: 'PATCH', url, payload, headers: { origin, ...(cookie ? { cookie } : {}) } })
}

async function row() {
  const [found] = await t.database.db.select().from(profiles).where(eq(profiles.id, user.id))
  return found!
}

describe('profile', () => {
  it('shows the signed-in user own profile', async () => {
    const response = await get(t.app, '/api/profile', user.cookie)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      id: user.id,
      name: 'Carla Perfil',
      email: user.email,
      companyName: 'Loja da Maria',
      whatsappNumber: user.phone,
      roleId: 2,
    })
  })

  it('updates name and company, with an audit row', async () => {
    const response = await patch('/api/profile', { name: 'Carla Souza', company_name: 'Souza ME' }, user.cookie)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({ name: 'Carla Souza', companyName: 'Souza ME' })
    expect(await row()).toMatchObject({ name: 'Carla Souza', companyName: 'Souza ME' })
    const audits = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, user.id), eq(auditLog.action, 'profile.update')))
    expect(audits).toHaveLength(1)
  })

  it.each([
    { name: 'Esperta', company_name: 'X', role_id: 1 },
    { name: 'Esperta', company_name: 'X', roleId: 1 },
    { name: 'Esperta', company_name: 'X', email: 'outra@example.com' },
    { name: 'Esperta', company_name: 'X', whatsapp_number: '5585999990000' },
  ])('refuses %o with 400 and changes nothing', async (body) => {
    const response = await patch('/api/profile', body, user.cookie)
    expect(response.statusCode).toBe(400)
    expect(await row()).toMatchObject({ name: 'Carla Souza', email: user.email, roleId: 2, whatsappNumber: user.phone })
  })

  it('never lets a customer give themself a role, whatever the request', async () => {
    const attempts = await Promise.all([
      post(t.app, '/api/profile/whatsapp', { whatsapp_number: user.phone, role_id: 1 }, user.cookie),
      post(t.app, '/api/auth/update-user', { roleId: 1 }, user.cookie),
      patch('/api/auth/update-user', { roleId: 1 }, user.cookie),
    ])
    for (const response of attempts) expect(response.statusCode).toBeGreaterThanOrEqual(400)
    expect((await row()).roleId).toBe(2)
    const session = await get(t.app, '/api/auth/session', user.cookie)
    expect(session.json().user).toMatchObject({ roleId: 2, isAdmin: false })
  })

  it('refuses an empty name', async () => {
    const response = await patch('/api/profile', { name: '  ', company_name: 'Souza ME' }, user.cookie)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'validation_failed', message: 'Informe seu nome.' })
  })

  it('answers 401 to anonymous changes', async () => {
    const response = await patch('/api/profile', { name: 'A', company_name: 'B' })
    expect(response.statusCode).toBe(401)
    expect(response.json()).toMatchObject({ message: 'Usuário não autenticado' })
  })
})

describe('WhatsApp change', () => {
  it('refuses a new number that was not verified', async () => {
    const response = await post(t.app, '/api/profile/whatsapp', { whatsapp_number: uniquePhone() }, user.cookie)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'whatsapp_not_verified' })
    expect((await row()).whatsappNumber).toBe(user.phone)
  })

  it('refuses a number when only another one was verified', async () => {
    await verifyPhone(t, uniquePhone())
    const response = await post(t.app, '/api/profile/whatsapp', { whatsapp_number: uniquePhone() }, user.cookie)
    expect(response.statusCode).toBe(400)
    expect((await row()).whatsappNumber).toBe(user.phone)
  })

  it('changes the number after a fresh verification of the new number, once per verification', async () => {
    const phone = uniquePhone()
    await verifyPhone(t, phone)
    const response = await post(t.app, '/api/profile/whatsapp', { whatsapp_number: phone }, user.cookie)
    expect(response.statusCode, response.body).toBe(200)
    expect((response.json() as Profile).whatsappNumber).toBe(phone)
    expect((await row()).whatsappNumber).toBe(phone)
    const audits = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, user.id), eq(auditLog.action, 'profile.whatsapp_change')))
    expect(audits).toHaveLength(1)
    expect(audits[0]?.before).toEqual({ whatsappNumber: user.phone })

    const reused = await post(t.app, '/api/profile/whatsapp', { whatsapp_number: phone }, user.cookie)
    expect(reused.statusCode).toBe(400)
    expect(reused.json()).toMatchObject({ code: 'whatsapp_not_verified' })
  })

  it('refuses a verification older than 30 minutes', async () => {
    const phone = uniquePhone()
    await verifyPhone(t, phone)
    t.clock.advance(31 * 60_000)
    const response = await post(t.app, '/api/profile/whatsapp', { whatsapp_number: phone }, user.cookie)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'whatsapp_not_verified' })
  })

  it('refuses a malformed number with the spec message', async () => {
    const response = await post(t.app, '/api/profile/whatsapp', { whatsapp_number: '85 9999-0000' }, user.cookie)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({
      message: 'Por favor, insira um número de WhatsApp válido (apenas números).',
    })
  })
})
