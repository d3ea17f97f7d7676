import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { profiles, sessions, twoFactors } from '../../db/schema/auth'
import { pixSettings } from '../../db/schema/billing'
import { ipSource, postFrom } from '../../test/http'
import { createTestApp, type TestApp } from '../../test/test-app'
import { secretOf, totpCode } from '../../test/totp'
import { createUser, get, origin, reauthenticate, type TestUser, uniquePhone } from '../../test/users'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t?.close()
})
// createUser sends WhatsApp codes from one address (10 an hour): each test starts an hour later.
beforeEach(() => {
  t?.clock.advance(60 * 60_000)
})

const newIp = ipSource(9)

function send(app: TestApp['app'], url: string, payload: Record<string, unknown>, cookie?: string) {
  return postFrom(app, url, payload, newIp(), cookie)
}

function cookiesOf(response: { headers: Record<string, unknown> }): string[] {
  const value = response.headers['set-cookie']
  return Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : []
}

/** The browser's cookie jar after a response: set cookies replace, Max-Age=0 removes. */
function jar(before: string, response: { headers: Record<string, unknown> }): string {
  const cookies = new Map(
    before
      .split('; ')
      .filter(Boolean)
      .map((c) => [c.slice(0, c.indexOf('=')), c] as const),
  )
  for (const set of cookiesOf(response)) {
    const pair = set.split(';')[0]!
    const name = pair.slice(0, pair.indexOf('='))
    if (/max-age=0/i.test(set)) cookies.delete(name)
    else cookies.set(name, pair)
  }
  return [...cookies.values()].join('; ')
}

async function sessionRows(userId: string) {
  return t.database.db.select().from(sessions).where(eq(sessions.userId, userId))
}

/** Enrols TOTP through the API and returns the secret and the recovery codes; the cookie is the renewed session. */
async function enrol(app: TestApp, user: TestUser): Promise<{ secret: string; backupCodes: string[] }> {
  const enabled = await send(app.app, '/api/auth/two-factor/enable', { password: user.password }, user.cookie)
  expect(enabled.statusCode, enabled.body).toBe(200)
  const { totpUri, secret, backupCodes } = enabled.json()
  expect(totpUri).toMatch(/^otpauth:\/\/totp\//)
  expect(secret).toBe(secretOf(totpUri))
  const confirmed = await send(app.app, '/api/auth/two-factor/confirm', { code: totpCode(secret) }, user.cookie)
  expect(confirmed.statusCode, confirmed.body).toBe(200)
  user.cookie = jar(user.cookie, confirmed)
  return { secret, backupCodes }
}

async function signInStep(app: TestApp, email: string, password: string) {
  const response = await send(app.app, '/api/auth/sign-in', { email, password })
  return { response, cookie: jar('', response) }
}

describe('two-factor enrolment', () => {
  it('needs the password, and changes nothing until a first code confirms it', async () => {
    const user = await createUser(t)
    const wrong = await send(t.app, '/api/auth/two-factor/enable', { password: 'nao-e-a-senha' }, user.cookie)
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json()).toMatchObject({
      code: 'password_incorrect',
      message: 'Senha incorreta. Confira e tente novamente.',
    })
    expect(await t.database.db.select().from(twoFactors).where(eq(twoFactors.userId, user.id))).toEqual([])

    const enabled = await send(t.app, '/api/auth/two-factor/enable', { password: user.password }, user.cookie)
    expect(enabled.statusCode, enabled.body).toBe(200)
    expect(enabled.json().backupCodes).toHaveLength(10)
    // Not confirmed yet: the sign-in is still password only.
    const [pending] = await t.database.db.select().from(profiles).where(eq(profiles.id, user.id))
    expect(pending?.twoFactorEnabled).toBe(false)
    expect((await signInStep(t, user.email, user.password)).response.json().user?.email).toBe(user.email)

    const bad = await send(t.app, '/api/auth/two-factor/confirm', { code: '000000' }, user.cookie)
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toMatchObject({ code: 'two_factor_invalid', message: 'Código de verificação inválido.' })
    const secret = enabled.json().secret as string
    const good = await send(t.app, '/api/auth/two-factor/confirm', { code: totpCode(secret) }, user.cookie)
    expect(good.statusCode, good.body).toBe(200)
    const [on] = await t.database.db.select().from(profiles).where(eq(profiles.id, user.id))
    expect(on?.twoFactorEnabled).toBe(true)
    const session = await get(t.app, '/api/auth/session', jar(user.cookie, good))
    expect(session.json().user).toMatchObject({ twoFactorEnabled: true, mustEnableTwoFactor: false })
  })
})

describe('signing in with two-factor', () => {
  it('asks for the code: no session until it is given, a wrong code is refused, the right one signs in', async () => {
    const user = await createUser(t)
    const { secret } = await enrol(t, user)
    const before = await sessionRows(user.id)

    const first = await signInStep(t, user.email, user.password)
    expect(first.response.statusCode, first.response.body).toBe(200)
    expect(first.response.json()).toEqual({ user: null, twoFactorRequired: true })
    expect(first.cookie).not.toMatch(/session_token/)
    expect(await sessionRows(user.id)).toEqual(before)
    // The challenge cookie alone is no session.
    expect((await get(t.app, '/api/auth/session', first.cookie)).json()).toEqual({ user: null })

    const wrongCode = totpCode(secret, Date.now() - 10 * 60_000)
    const wrong = await send(t.app, '/api/auth/two-factor/verify', { code: wrongCode }, first.cookie)
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json()).toMatchObject({ code: 'two_factor_invalid', message: 'Código de verificação inválido.' })
    expect(cookiesOf(wrong).some((c) => c.includes('session_token='))).toBe(false)
    expect(await sessionRows(user.id)).toEqual(before)

    const right = await send(t.app, '/api/auth/two-factor/verify', { code: totpCode(secret) }, first.cookie)
    expect(right.statusCode, right.body).toBe(200)
    expect(right.json().user).toMatchObject({ email: user.email, twoFactorEnabled: true })
    const cookie = jar(first.cookie, right)
    expect((await get(t.app, '/api/auth/session', cookie)).json().user?.email).toBe(user.email)
    expect(await sessionRows(user.id)).toHaveLength(before.length + 1)
  })

  it('refuses a code without the password step first', async () => {
    const user = await createUser(t)
    const { secret } = await enrol(t, user)
    const response = await send(t.app, '/api/auth/two-factor/verify', { code: totpCode(secret) })
    expect(response.statusCode).toBe(400)
    expect(response.json().code).toBe('two_factor_expired')
  })

  it('accepts a recovery code once', async () => {
    const user = await createUser(t)
    const { backupCodes } = await enrol(t, user)
    const code = backupCodes[0]!
    const first = await signInStep(t, user.email, user.password)
    const used = await send(t.app, '/api/auth/two-factor/verify', { code }, first.cookie)
    expect(used.statusCode, used.body).toBe(200)
    expect(used.json().user?.email).toBe(user.email)

    const again = await signInStep(t, user.email, user.password)
    const reused = await send(t.app, '/api/auth/two-factor/verify', { code }, again.cookie)
    expect(reused.statusCode).toBe(400)
    expect(reused.json().code).toBe('two_factor_invalid')
    // Typed without the dash, another one still works.
    const other = backupCodes[1]!.replace('-', '')
    const next = await send(t.app, '/api/auth/two-factor/verify', { code: other }, again.cookie)
    expect(next.statusCode, next.body).toBe(200)
  })

  it('is switched off with the password, and the sign-in is password only again', async () => {
    const user = await createUser(t)
    await enrol(t, user)
    const wrong = await send(t.app, '/api/auth/two-factor/disable', { password: 'nao-e-a-senha' }, user.cookie)
    expect(wrong.statusCode).toBe(400)
    const off = await send(t.app, '/api/auth/two-factor/disable', { password: user.password }, user.cookie)
    expect(off.statusCode, off.body).toBe(200)
    expect(await t.database.db.select().from(twoFactors).where(eq(twoFactors.userId, user.id))).toEqual([])
    expect((await signInStep(t, user.email, user.password)).response.json().user?.email).toBe(user.email)
  })
})

describe('step-up re-authentication', () => {
  it('refuses a role change without the password in the last 5 minutes, and accepts it after', async () => {
    const admin = await createUser(t, { admin: true })
    const other = await createUser(t, { admin: true })
    const rows = async () =>
      t.database.db.select({ id: profiles.id, roleId: profiles.roleId }).from(profiles).orderBy(profiles.id)
    const before = await rows()

    const refused = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${other.id}/role`,
      payload: { role_id: 2 },
      headers: { origin, cookie: admin.cookie },
    })
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({
      code: 'reauthentication_required',
      message: 'Por segurança, confirme sua senha para continuar.',
    })
    expect(await rows()).toEqual(before)

    const wrong = await send(t.app, '/api/auth/reauthenticate', { password: 'nao-e-a-senha' }, admin.cookie)
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json().code).toBe('password_incorrect')

    await reauthenticate(t, admin)
    const accepted = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${other.id}/role`,
      payload: { role_id: 2 },
      headers: { origin, cookie: admin.cookie },
    })
    expect(accepted.statusCode, accepted.body).toBe(200)
    expect((await rows()).find((r) => r.id === other.id)?.roleId).toBe(2)

    // Five minutes later the stamp is stale again.
    t.clock.advance(5 * 60_000 + 1000)
    const stale = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${other.id}/role`,
      payload: { role_id: 1 },
      headers: { origin, cookie: admin.cookie },
    })
    expect(stale.statusCode).toBe(403)
    expect(stale.json().code).toBe('reauthentication_required')
    expect((await rows()).find((r) => r.id === other.id)?.roleId).toBe(2)
  })

  it('belongs to the session that gave the password, not to the account', async () => {
    const admin = await createUser(t, { admin: true })
    const target = await createUser(t)
    const otherBrowser = (await signInStep(t, admin.email, admin.password)).cookie
    await reauthenticate(t, admin)
    const response = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${target.id}/role`,
      payload: { role_id: 1 },
      headers: { origin, cookie: otherBrowser },
    })
    expect(response.statusCode).toBe(403)
    expect(response.json().code).toBe('reauthentication_required')
  })

  it('accepts a TOTP code instead of the password when two-factor is on', async () => {
    const admin = await createUser(t, { admin: true })
    const target = await createUser(t)
    const { secret } = await enrol(t, admin)
    const response = await send(t.app, '/api/auth/reauthenticate', { code: totpCode(secret) }, admin.cookie)
    expect(response.statusCode, response.body).toBe(200)
    const changed = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${target.id}/role`,
      payload: { role_id: 1 },
      headers: { origin, cookie: admin.cookie },
    })
    expect(changed.statusCode, changed.body).toBe(200)
  })

  it('guards the PIX key and beneficiary, not the description alone', async () => {
    const admin = await createUser(t, { admin: true })
    const put = (body: Record<string, unknown>) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/admin/pix-settings',
        payload: body,
        headers: { origin, cookie: admin.cookie },
      })
    const settings = {
      pix_key: 'financeiro@empresa.com.br',
      beneficiary_name: 'Empresa Ltda',
      beneficiary_city: 'Fortaleza',
      description: '',
    }
    const row = async () => (await t.database.db.select().from(pixSettings).where(eq(pixSettings.id, 1)))[0]
    const before = await row()
    const refused = await put(settings)
    expect(refused.statusCode).toBe(403)
    expect(refused.json().code).toBe('reauthentication_required')
    expect(await row()).toEqual(before)

    await reauthenticate(t, admin)
    expect((await put(settings)).statusCode).toBe(200)
    expect(await row()).toMatchObject({ pixKey: 'financeiro@empresa.com.br', beneficiaryName: 'Empresa Ltda' })

    t.clock.advance(10 * 60_000)
    const described = await put({ ...settings, description: 'Assinatura mensal' })
    expect(described.statusCode, described.body).toBe(200)
    for (const change of [
      { pix_key: 'atacante@example.com' },
      { beneficiary_name: 'Outra Pessoa' },
      { beneficiary_city: 'Recife' },
    ]) {
      const response = await put({ ...settings, description: 'Assinatura mensal', ...change })
      expect(response.statusCode, JSON.stringify(change)).toBe(403)
    }
    expect(await row()).toMatchObject({ pixKey: 'financeiro@empresa.com.br', description: 'Assinatura mensal' })
  })
})

describe('ADMIN_MFA=required', () => {
  let strict: TestApp
  beforeAll(async () => {
    strict = await createTestApp({ env: { ADMIN_MFA: 'required' } })
  })
  afterAll(async () => {
    await strict?.close()
  })
  beforeEach(() => {
    strict?.clock.advance(60 * 60_000)
  })

  it('lets an admin without two-factor sign in, closes every admin route until it is enabled', async () => {
    const admin = await createUser(strict, { admin: true })
    const customer = await createUser(strict)
    const session = await get(strict.app, '/api/auth/session', admin.cookie)
    expect(session.json().user).toMatchObject({ isAdmin: true, twoFactorEnabled: false, mustEnableTwoFactor: true })

    const routes = [
      ['GET', '/api/admin/users'],
      ['GET', '/api/admin/subscriptions'],
      ['GET', '/api/admin/pix-settings'],
      ['PUT', `/api/admin/users/${customer.id}/role`],
    ] as const
    for (const [method, url] of routes) {
      const response = await strict.app.inject({
        method,
        url,
        headers: { origin, cookie: admin.cookie },
        ...(method === 'PUT' ? { payload: { role_id: 1 } } : {}),
      })
      expect(response.statusCode, `${method} ${url}`).toBe(403)
      expect(response.json()).toMatchObject({
        code: 'two_factor_setup_required',
        message:
          'Administradores precisam ativar a verificação em duas etapas. Ative-a em Minha conta para acessar o painel administrativo.',
      })
    }
    const [row] = await strict.database.db.select().from(profiles).where(eq(profiles.id, customer.id))
    expect(row?.roleId).toBe(2)

    await enrol(strict, admin)
    expect((await get(strict.app, '/api/admin/users', admin.cookie)).statusCode).toBe(200)
  })

  it('leaves regular users alone', async () => {
    const customer = await createUser(strict)
    const session = await get(strict.app, '/api/auth/session', customer.cookie)
    expect(session.json().user).toMatchObject({ mustEnableTwoFactor: false })
    expect((await get(strict.app, '/api/profile', customer.cookie)).statusCode).toBe(200)
  })
})

describe('the absolute session lifetime', () => {
  it('refuses and deletes a session 30 days after its sign-in, even one kept alive since', async () => {
    const user = await createUser(t)
    const [row] = await sessionRows(user.id)
    expect((await get(t.app, '/api/auth/session', user.cookie)).json().user?.email).toBe(user.email)
    // Signed in 30 days ago (by the app's clock), used every day since: still within the sliding 7 days.
    await t.database.db
      .update(sessions)
      .set({ createdAt: new Date(t.clock.now().getTime() - 30 * 24 * 60 * 60_000) })
      .where(eq(sessions.id, row!.id))
    const response = await get(t.app, '/api/auth/session', user.cookie)
    expect(response.json()).toEqual({ user: null })
    expect(cookiesOf(response).find((c) => c.startsWith('billing.session_token='))).toMatch(/Max-Age=0/i)
    expect(await t.database.db.select().from(sessions).where(eq(sessions.id, row!.id))).toEqual([])
    expect((await get(t.app, '/api/profile', user.cookie)).statusCode).toBe(401)
  })

  it('keeps a session of 29 days', async () => {
    const user = await createUser(t)
    const [row] = await sessionRows(user.id)
    await t.database.db
      .update(sessions)
      .set({ createdAt: new Date(t.clock.now().getTime() - 29 * 24 * 60 * 60_000) })
      .where(and(eq(sessions.id, row!.id)))
    expect((await get(t.app, '/api/auth/session', user.cookie)).json().user?.email).toBe(user.email)
  })
})

describe('sign-up without a verified number', () => {
  it('does not reveal that an e-mail is registered', async () => {
    const owner = await createUser(t)
    const response = await send(t.app, '/api/auth/sign-up', {
      name: 'Curioso',
      companyName: 'Curiosidades',
      whatsappNumber: uniquePhone(),
      email: owner.email,
      password: 'qualquer-senha-123',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'whatsapp_not_verified' })
    const fresh = await send(t.app, '/api/auth/sign-up', {
      name: 'Curioso',
      companyName: 'Curiosidades',
      whatsappNumber: uniquePhone(),
      email: 'ninguem-cadastrado@example.com',
      password: 'qualquer-senha-123',
    })
    expect(fresh.statusCode).toBe(400)
    expect(fresh.json()).toEqual({ ...response.json(), instance: fresh.json().instance })
  })
})

describe('on https', () => {
  it('keeps every cookie of the two steps __Host- prefixed, and the code step works with them', async () => {
    const secure = await createTestApp({ env: { APP_URL: 'https://example.com' } })
    try {
      const user = await createUser(secure)
      expect(user.cookie).toMatch(/^__Host-billing\.session_token=/)
      const { secret } = await enrol(secure, user)
      const first = await secure.app.inject({
        method: 'POST',
        url: '/api/auth/sign-in',
        payload: { email: user.email, password: user.password },
        headers: { origin: 'https://example.com' },
        remoteAddress: newIp(),
      })
      expect(first.json()).toEqual({ user: null, twoFactorRequired: true })
      const challenge = cookiesOf(first).find((c) => c.includes('two_factor='))
      expect(challenge).toMatch(/^__Host-billing\.two_factor=.*; Path=\/;/)
      expect(cookiesOf(first).filter((c) => !c.startsWith('__Host-'))).toEqual([])
      const verified = await secure.app.inject({
        method: 'POST',
        url: '/api/auth/two-factor/verify',
        payload: { code: totpCode(secret) },
        headers: { origin: 'https://example.com', cookie: jar('', first) },
        remoteAddress: newIp(),
      })
      expect(verified.statusCode, verified.body).toBe(200)
      expect(cookiesOf(verified).filter((c) => !c.startsWith('__Host-'))).toEqual([])
      const session = await get(secure.app, '/api/auth/session', jar(jar('', first), verified))
      expect(session.json().user?.email).toBe(user.email)
    } finally {
      await secure.close()
    }
  }, 120_000)
})
