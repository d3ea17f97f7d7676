import { and, eq, isNotNull } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Profile } from '../../../domain/contracts/billing'
import { profiles } from '../../db/schema/auth'
import { auditLog, whatsappVerifications } from '../../db/schema/platform'
import { createTestApp, type TestApp } from '../../test/test-app'
import {
  changeWhatsApp,
  cookies,
  createUser,
  get,
  origin,
  post,
  responseCookies,
  type TestUser,
  uniquePhone,
  verifyPhone,
} from '../../test/users'

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
    const browser = await verifyPhone(t, uniquePhone())
    const response = await changeWhatsApp(t, user.cookie, uniquePhone(), browser)
    expect(response.statusCode).toBe(400)
    expect((await row()).whatsappNumber).toBe(user.phone)
  })

  it('changes the number after a fresh verification of the new number, once per verification', async () => {
    const phone = uniquePhone()
    const browser = await verifyPhone(t, phone)
    const response = await changeWhatsApp(t, user.cookie, phone, browser)
    expect(response.statusCode, response.body).toBe(200)
    expect((response.json() as Profile).whatsappNumber).toBe(phone)
    expect((await row()).whatsappNumber).toBe(phone)
    const audits = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.entityId, user.id), eq(auditLog.action, 'profile.whatsapp_change')))
    expect(audits).toHaveLength(1)
    expect(audits[0]?.before).toEqual({ whatsappNumber: user.phone })

    const reused = await changeWhatsApp(t, user.cookie, phone, browser)
    expect(reused.statusCode).toBe(400)
    expect(reused.json()).toMatchObject({ code: 'whatsapp_not_verified' })
  })

  it('refuses a verification older than 30 minutes', async () => {
    const phone = uniquePhone()
    const browser = await verifyPhone(t, phone)
    t.clock.advance(31 * 60_000)
    const response = await changeWhatsApp(t, user.cookie, phone, browser)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'whatsapp_not_verified' })
  })

  it('a number verified in another browser cannot be claimed, with or without a verification cookie', async () => {
    const phone = uniquePhone()
    // The owner of the number verifies it in their browser (say, while signing up).
    const ownerBrowser = await verifyPhone(t, phone)
    // A signed-in stranger polls for it: without a verification cookie, and with one of their own browser
    // (which even asked for a code to that number).
    const strangerSend = await t.app.inject({
      method: 'POST',
      url: '/api/whatsapp/send-code',
      payload: { phone_number: phone },
      headers: { origin, cookie: user.cookie },
      remoteAddress: '10.7.1.1',
    })
    expect(strangerSend.statusCode, strangerSend.body).toBe(200)
    const strangerBrowser = responseCookies(strangerSend)
    expect(strangerBrowser).not.toBe('')
    for (const cookie of [user.cookie, cookies(user.cookie, strangerBrowser)]) {
      const response = await post(t.app, '/api/profile/whatsapp', { whatsapp_number: phone }, cookie)
      expect(response.statusCode).toBe(400)
      expect(response.json()).toMatchObject({ code: 'whatsapp_not_verified' })
    }
    expect((await row()).whatsappNumber).not.toBe(phone)
    const [verification] = await t.database.db
      .select()
      .from(whatsappVerifications)
      .where(and(eq(whatsappVerifications.phoneNumber, phone), isNotNull(whatsappVerifications.verifiedAt)))
    expect(verification?.consumedAt).toBeNull()
    // The owner's verification is still theirs: their sign-up goes through with it.
    const email = `dono${phone}@example.com`
    const signUp = await post(
      t.app,
      '/api/auth/sign-up',
      { name: 'Dono', companyName: 'Dono ME', whatsappNumber: phone, email, password: 'senha-segura-123' },
      ownerBrowser,
    )
    expect(signUp.statusCode, signUp.body).toBe(201)
    const [owner] = await t.database.db.select().from(profiles).where(eq(profiles.email, email))
    expect(owner?.whatsappNumber).toBe(phone)
  })

  it('is rate limited like sign-up: 10 per hour per address and per account', async () => {
    const other = await createUser(t, { name: 'Rita Limite' })
    const change = (ip: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/profile/whatsapp',
        payload: { whatsapp_number: uniquePhone() },
        headers: { origin, cookie: other.cookie },
        remoteAddress: ip,
      })
    for (let i = 0; i < 10; i++) expect((await change('10.7.0.1')).statusCode, `change ${i + 1}`).toBe(400)
    const blocked = await change('10.7.0.1')
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json()).toMatchObject({ code: 'rate_limited' })
    // Another address does not reset the account's own budget.
    expect((await change('10.7.0.2')).statusCode).toBe(429)
    const [found] = await t.database.db.select().from(profiles).where(eq(profiles.id, other.id))
    expect(found?.whatsappNumber).toBe(other.phone)
  })

  it('refuses a malformed number with the spec message', async () => {
    const response = await post(t.app, '/api/profile/whatsapp', { whatsapp_number: '85 9999-0000' }, user.cookie)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({
      message: 'Por favor, insira um número de WhatsApp válido (apenas números).',
    })
  })
})
