import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { profiles } from '../../db/schema/auth'
import { createTestApp, type TestApp } from '../../test/test-app'
import { createUser, get, lastEmailLink, post, signIn, uniquePhone, verifyPhone } from '../../test/users'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

describe('sign-up', () => {
  it('signs up with a verified number, confirms the e-mail and signs in', async () => {
    const user = await createUser(t, { email: 'joana@example.com', name: 'Joana' })
    const session = await get(t.app, '/api/auth/session', user.cookie)
    expect(session.json().user).toMatchObject({
      email: 'joana@example.com',
      name: 'Joana',
      companyName: 'Loja da Maria',
      whatsappNumber: user.phone,
      roleId: 2,
      isAdmin: false,
    })
  })

  it('refuses a sign-up whose number was never verified', async () => {
    const response = await post(t.app, '/api/auth/sign-up', {
      name: 'Sem Código',
      companyName: 'Empresa',
      whatsappNumber: uniquePhone(),
      email: 'semcodigo@example.com',
      password: 'senha-segura-123',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({
      code: 'whatsapp_not_verified',
      message: 'Por favor, verifique seu número de WhatsApp antes de continuar.',
    })
    const rows = await t.database.db.select().from(profiles).where(eq(profiles.email, 'semcodigo@example.com'))
    expect(rows).toHaveLength(0)
  })

  it('refuses a role sent in the sign-up body', async () => {
    const phone = uniquePhone()
    const browser = await verifyPhone(t, phone)
    const response = await post(
      t.app,
      '/api/auth/sign-up',
      {
        name: 'Esperto',
        companyName: 'Empresa',
        whatsappNumber: phone,
        email: 'esperto@example.com',
        password: 'senha-segura-123',
        roleId: 1,
      },
      browser,
    )
    expect(response.statusCode).toBe(400)
    const rows = await t.database.db.select().from(profiles).where(eq(profiles.email, 'esperto@example.com'))
    expect(rows).toHaveLength(0)
  })

  it('blocks sign-in until the e-mail is confirmed, with a clear message', async () => {
    const phone = uniquePhone()
    const browser = await verifyPhone(t, phone)
    const email = 'pendente@example.com'
    const signUp = await post(
      t.app,
      '/api/auth/sign-up',
      { name: 'Pendente', companyName: 'Empresa', whatsappNumber: phone, email, password: 'senha-segura-123' },
      browser,
    )
    expect(signUp.statusCode).toBe(201)
    const response = await post(t.app, '/api/auth/sign-in', { email, password: 'senha-segura-123' })
    expect(response.statusCode).toBe(403)
    expect(response.json().code).toBe('email_not_verified')
    const link = await lastEmailLink(t.outboxPath, email, /verify-email/)
    const confirm = await get(t.app, new URL(link).pathname + new URL(link).search)
    expect(confirm.headers.location).toBe('/login?verified=1')
    expect(await signIn(t.app, email, 'senha-segura-123')).toContain('session_token')
  })
})
