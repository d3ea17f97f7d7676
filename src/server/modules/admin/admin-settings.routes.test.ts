import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { parsePixBrCode } from '../../../domain/pix'
import { pixSettings } from '../../db/schema/billing'
import { auditLog } from '../../db/schema/platform'
import { createTestApp, type TestApp } from '../../test/test-app'
import { createUser, get, reauthenticate, type TestUser } from '../../test/users'
import { send } from './admin-fixtures'

let t: TestApp
let admin: TestUser

beforeAll(async () => {
  t = await createTestApp({ env: { APP_URL: 'https://assinaturas.example.com.br' } })
  admin = await createUser(t, { admin: true })
})
afterAll(async () => {
  await t.close()
})
// The PIX key and beneficiary need the password again within 5 minutes (step-up; two-factor.routes.test.ts).
beforeEach(async () => {
  await reauthenticate(t, admin)
})

describe('PIX settings', () => {
  it('has no settings and no sample before the first save', async () => {
    const response = await get(t.app, '/api/admin/pix-settings', admin.cookie)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({ settings: null, preview: null })
  })

  it('saves the key in its DICT form, stamps updated_at and answers a R$ 1,00 sample BR Code', async () => {
    t.clock.set('2026-03-11T08:00:00.000Z')
    await reauthenticate(t, admin)
    const response = await send(t.app, 'PUT', '/api/admin/pix-settings', {
      cookie: admin.cookie,
      body: {
        pix_key: '+55 (85) 99999-0000',
        beneficiary_name: 'Atendimento Multicanal',
        beneficiary_city: 'Itaitinga',
        description: 'Assinatura',
      },
    })
    expect(response.statusCode, response.body).toBe(200)
    const body = response.json()
    expect(body.settings).toEqual({
      pixKey: '+5585999990000',
      beneficiaryName: 'Atendimento Multicanal',
      beneficiaryCity: 'Itaitinga',
      description: 'Assinatura',
      updatedAt: '2026-03-11T08:00:00.000Z',
    })
    const parsed = parsePixBrCode(body.preview.brCode)
    expect(parsed).toMatchObject({
      key: '+5585999990000',
      amountCents: 100,
      beneficiaryName: 'Atendimento Multicanal',
      beneficiaryCity: 'Itaitinga',
      crcValid: true,
    })
    expect((await get(t.app, '/api/admin/pix-settings', admin.cookie)).json()).toEqual(body)
    const [row] = await t.database.db.select().from(pixSettings).where(eq(pixSettings.id, 1))
    expect(row?.pixKey).toBe('+5585999990000')
    const [entry] = await t.database.db.select().from(auditLog).where(eq(auditLog.entity, 'pix_settings'))
    expect(entry).toMatchObject({
      action: 'pix_settings.update',
      actorId: admin.id,
      after: { pixKey: '+5585999990000' },
    })
  })

  it('refuses an invalid key or a name longer than the BR Code holds', async () => {
    const base = { pix_key: 'financeiro@example.com', beneficiary_name: 'Empresa', beneficiary_city: 'Fortaleza' }
    const badKey = await send(t.app, 'PUT', '/api/admin/pix-settings', {
      cookie: admin.cookie,
      body: { ...base, pix_key: '123' },
    })
    expect(badKey.statusCode).toBe(400)
    expect(badKey.json().detail).toBe('Chave PIX inválida: use CPF, CNPJ, e-mail, telefone com +55 ou chave aleatória.')
    const longName = await send(t.app, 'PUT', '/api/admin/pix-settings', {
      cookie: admin.cookie,
      body: { ...base, beneficiary_name: 'N'.repeat(26) },
    })
    expect(longName.statusCode).toBe(400)
    const [row] = await t.database.db.select().from(pixSettings).where(eq(pixSettings.id, 1))
    expect(row?.pixKey).toBe('+5585999990000')
  })
})

describe('GET /api/admin/card-info', () => {
  it('names the checkout function and the webhook the admin registers at the provider', async () => {
    const response = await get(t.app, '/api/admin/card-info', admin.cookie)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({
      mode: 'simulator',
      checkoutFunction: 'create-checkout-session',
      webhookUrl: 'https://assinaturas.example.com.br/api/webhooks/stripe',
      events: expect.arrayContaining(['checkout.session.completed', 'invoice.paid', 'customer.subscription.deleted']),
    })
  })
})
