import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { sessions } from '../../db/schema/auth'
import { readOutbox } from '../messaging/outbox'
import { fileTestApp, ipSource, postFrom, getSession } from '../../test/http'
import { createTestApp, type TestApp } from '../../test/test-app'
import { lastEmailLink, lastWhatsAppCode, uniquePhone } from '../../test/users'

const password = 'senha-segura-123'

const t = fileTestApp()

/** Each test speaks from its own address, so the per-IP limits of one test never leak into another. */
const newIp = ipSource(3)

const post = postFrom

const session = getSession

function setCookies(response: { headers: Record<string, unknown> }): string[] {
  const value = response.headers['set-cookie']
  return Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : []
}

function cookieHeader(response: { headers: Record<string, unknown> }): string {
  return setCookies(response)
    .map((c) => c.split(';')[0])
    .join('; ')
}

async function emailsTo(app: TestApp, to: string) {
  return (await readOutbox(app.outboxPath)).filter((m) => m.channel === 'email' && m.to === to)
}

/** Signs up through the API from its own address; confirms the e-mail unless told not to. */
async function createAccount(app: TestApp, options: { confirm?: boolean } = {}): Promise<{ email: string }> {
  const ip = newIp()
  const phone = uniquePhone()
  const email = `conta${phone}@example.com`
  const sent = await post(app.app, '/api/whatsapp/send-code', { phone_number: phone }, ip)
  expect(sent.statusCode).toBe(200)
  const browser = cookieHeader(sent)
  const code = await lastWhatsAppCode(app.outboxPath, phone)
  const verified = await post(app.app, '/api/whatsapp/verify-code', { phone_number: phone, code }, ip, browser)
  expect(verified.statusCode).toBe(200)
  const body = { name: 'Carlos Lima', companyName: 'Lima & Filhos', whatsappNumber: phone, email, password }
  const signUp = await post(app.app, '/api/auth/sign-up', body, ip, browser)
  expect(signUp.statusCode, signUp.body).toBe(201)
  if (options.confirm !== false) {
    const link = new URL(await lastEmailLink(app.outboxPath, email, /verify-email/))
    const confirmed = await app.app.inject({ method: 'GET', url: link.pathname + link.search })
    expect(confirmed.headers.location).toBe('/login?verified=1')
  }
  return { email }
}

function sessionToken(response: { headers: Record<string, unknown> }): string {
  const cookie = setCookies(response).find((c) => c.includes('session_token='))
  return decodeURIComponent(cookie?.split(';')[0]?.split('=')[1] ?? '').split('.')[0] ?? ''
}

function signIn(app: TestApp['app'], email: string, pass: string, ip = newIp()) {
  return post(app, '/api/auth/sign-in', { email, password: pass }, ip)
}

describe('sign-in', () => {
  it('signs in with the right password and returns the user', async () => {
    const { email } = await createAccount(t)
    const response = await signIn(t.app, email, password)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json().user).toMatchObject({ email, roleId: 2, isAdmin: false, companyName: 'Lima & Filhos' })
    const me = await session(t.app, cookieHeader(response))
    expect(me.json().user.email).toBe(email)
    expect(me.headers['cache-control']).toBe('no-store')
  })

  it('refuses a wrong password with the spec message', async () => {
    const { email } = await createAccount(t)
    const response = await signIn(t.app, email, 'senha-errada-123')
    expect(response.statusCode).toBe(401)
    expect(response.json()).toMatchObject({ code: 'invalid_credentials', message: 'E-mail ou senha incorretos.' })
    expect(setCookies(response)).toEqual([])
  })

  it('answers an unknown e-mail exactly like a wrong password', async () => {
    const response = await signIn(t.app, 'ninguem@example.com', password)
    expect(response.statusCode).toBe(401)
    expect(response.json()).toMatchObject({ code: 'invalid_credentials', message: 'E-mail ou senha incorretos.' })
  })

  it('refuses an unconfirmed e-mail with 403 and mails a fresh confirmation link', async () => {
    const { email } = await createAccount(t, { confirm: false })
    const before = await emailsTo(t, email)
    expect(before).toHaveLength(1)
    const response = await signIn(t.app, email, password)
    expect(response.statusCode).toBe(403)
    expect(response.json()).toMatchObject({
      code: 'email_not_verified',
      message: 'Seu e-mail ainda não foi confirmado. Enviamos um novo link de confirmação para sua caixa de entrada.',
    })
    expect(setCookies(response)).toEqual([])
    const after = await emailsTo(t, email)
    expect(after).toHaveLength(2)
    const fresh = new URL(await lastEmailLink(t.outboxPath, email, /verify-email/))
    const confirmed = await t.app.inject({ method: 'GET', url: fresh.pathname + fresh.search })
    expect(confirmed.headers.location).toBe('/login?verified=1')
    expect((await signIn(t.app, email, password)).statusCode).toBe(200)
  })

  it('does not reveal an unconfirmed account to a wrong password', async () => {
    const { email } = await createAccount(t, { confirm: false })
    const response = await signIn(t.app, email, 'senha-errada-123')
    expect(response.statusCode).toBe(401)
    expect(await emailsTo(t, email)).toHaveLength(1)
  })

  it('locks only the (account, address) pair after 10 wrong passwords: the owner still signs in from theirs', async () => {
    const { email } = await createAccount(t)
    const stranger = newIp()
    for (let i = 0; i < 10; i++) {
      const response = await signIn(t.app, email, `errada-${i}-123`, stranger)
      expect(response.statusCode, `attempt ${i + 1}`).toBe(401)
    }
    // The stranger's address is locked for this account, even with the right password.
    const blocked = await signIn(t.app, email.toUpperCase(), password, stranger)
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json()).toMatchObject({
      code: 'rate_limited',
      message: 'Muitas tentativas. Aguarde um pouco e tente novamente.',
    })
    expect(setCookies(blocked)).toEqual([])
    // The owner, from an address that has not failed, signs in and gets a session row.
    const owner = await signIn(t.app, email, password)
    expect(owner.statusCode, owner.body).toBe(200)
    const [row] = await t.database.db
      .select()
      .from(sessions)
      .where(eq(sessions.token, sessionToken(owner)))
    expect(row).toBeDefined()
    t.clock.advance(15 * 60_000)
    expect((await signIn(t.app, email, password, stranger)).statusCode).toBe(200)
  }, 120_000)

  it('counts failures, not attempts: right passwords from one address never lock it', async () => {
    const { email } = await createAccount(t)
    const ip = newIp()
    for (let i = 0; i < 12; i++) {
      const response = await signIn(t.app, email, password, ip)
      expect(response.statusCode, `sign-in ${i + 1}`).toBe(200)
    }
  }, 120_000)

  it('locks the whole account after 100 failures in an hour and mails its owner once', async () => {
    const { email } = await createAccount(t)
    const lockNotices = async () => (await emailsTo(t, email)).filter((m) => m.subject?.includes('bloqueado'))
    // Ten networks, ten wrong passwords each (each pair reaches its own limit, each address stays under 30).
    const networks = Array.from({ length: 10 }, () => newIp())
    for (const [n, ip] of networks.entries()) {
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => signIn(t.app, email, `errada-${n}-${i}-123`, ip)),
      )
      expect(responses.map((r) => r.statusCode)).toEqual(Array(10).fill(401))
    }
    expect(await lockNotices()).toHaveLength(1)
    const [notice] = await lockNotices()
    expect(notice?.subject).toBe('Acesso à sua conta bloqueado temporariamente')
    expect(notice?.text).toContain('http://localhost:3000/forgot-password')

    // Now even the right password from a fresh address is refused, and no session is created.
    const sessionsBefore = await t.database.db.select().from(sessions)
    const locked = await signIn(t.app, email, password)
    expect(locked.statusCode).toBe(429)
    expect(locked.json()).toMatchObject({
      code: 'account_locked',
      message:
        'Esta conta recebeu muitas tentativas de acesso com senha errada e foi bloqueada por até uma hora. Tente novamente mais tarde ou redefina sua senha.',
    })
    expect(await t.database.db.select().from(sessions)).toHaveLength(sessionsBefore.length)
    expect((await signIn(t.app, email, 'mais-uma-errada-123')).statusCode).toBe(429)
    expect(await lockNotices()).toHaveLength(1)

    t.clock.advance(60 * 60_000)
    expect((await signIn(t.app, email, password)).statusCode).toBe(200)
  }, 300_000)

  it('blocks an address after 30 attempts within 15 minutes, whatever the accounts', async () => {
    const { email } = await createAccount(t)
    const ip = newIp()
    // Every attempt counts against the address, also those the (account, address) lock already refuses
    // (which keeps this test from hashing 30 passwords).
    for (let i = 0; i < 30; i++) {
      const response = await signIn(t.app, 'alvo-de-forca-bruta@example.com', password, ip)
      expect(response.statusCode, `attempt ${i + 1}`).toBe(i < 10 ? 401 : 429)
    }
    const blocked = await signIn(t.app, email, password, ip)
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json().code).toBe('rate_limited')
    expect((await signIn(t.app, email, password, newIp())).statusCode).toBe(200)
  }, 120_000)

  it('refuses unknown fields in the body', async () => {
    const { email } = await createAccount(t)
    const response = await post(t.app, '/api/auth/sign-in', { email, password, rememberMe: true }, newIp())
    expect(response.statusCode).toBe(400)
    expect(response.json().code).toBe('validation_failed')
  })
})

/** The attributes (lower case) of the cookie the answer sets whose name=value starts with `prefix`; it must be set. */
function cookieAttributes(response: Parameters<typeof setCookies>[0], prefix: string): string[] {
  const token = setCookies(response).find((c) => c.startsWith(prefix))
  expect(token, setCookies(response).join('\n')).toBeDefined()
  return token!
    .split(';')
    .slice(1)
    .map((a) => a.trim().toLowerCase())
}

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Lax, Path=/ and not Secure on an http APP_URL', async () => {
    const { email } = await createAccount(t)
    const response = await signIn(t.app, email, password)
    const attributes = cookieAttributes(response, 'billing.session_token=')
    expect(attributes).toContain('httponly')
    expect(attributes).toContain('samesite=lax')
    expect(attributes).toContain('path=/')
    expect(attributes).not.toContain('secure')
    expect(attributes.some((a) => a.startsWith('max-age=') || a.startsWith('expires='))).toBe(true)
  })

  it('is __Host- prefixed on an https APP_URL: Secure, Path=/, no Domain', async () => {
    const secure = await createTestApp({ env: { APP_URL: 'https://example.com' } })
    try {
      const { email } = await createAccount(secure)
      const link = await lastEmailLink(secure.outboxPath, email, /verify-email/)
      expect(link.startsWith('https://example.com/api/auth/verify-email?token=')).toBe(true)
      const response = await secure.app.inject({
        method: 'POST',
        url: '/api/auth/sign-in',
        payload: { email, password },
        headers: { origin: 'https://example.com' },
        remoteAddress: newIp(),
      })
      expect(response.statusCode, response.body).toBe(200)
      const attributes = cookieAttributes(response, '__Host-billing.session_token=')
      expect(attributes).toEqual(expect.arrayContaining(['secure', 'httponly', 'samesite=lax', 'path=/']))
      expect(attributes.some((a) => a.startsWith('domain='))).toBe(false)
      expect(setCookies(response).filter((c) => !c.startsWith('__Host-'))).toEqual([])
      expect(response.headers['strict-transport-security']).toBeDefined()
      const me = await session(secure.app, cookieHeader(response))
      expect(me.json().user?.email).toBe(email)
    } finally {
      await secure.close()
    }
  }, 120_000)

  it('means nothing when forged or absent', async () => {
    expect((await session(t.app)).json()).toEqual({ user: null })
    expect((await session(t.app, 'billing.session_token=forjado.assinatura')).json()).toEqual({ user: null })
  })
})

describe('sign-out', () => {
  it('revokes the session on the server: the old cookie no longer works', async () => {
    const { email } = await createAccount(t)
    const signedIn = await signIn(t.app, email, password)
    const cookie = cookieHeader(signedIn)
    expect((await session(t.app, cookie)).json().user?.email).toBe(email)
    const [row] = await t.database.db
      .select({ token: sessions.token })
      .from(sessions)
      .where(eq(sessions.userId, signedIn.json().user.id))
    expect(row).toBeDefined()

    const out = await post(t.app, '/api/auth/sign-out', {}, newIp(), cookie)
    expect(out.statusCode).toBe(200)
    expect(out.json()).toEqual({ ok: true })
    // The browser is told to drop the cookie…
    const cleared = setCookies(out).find((c) => c.startsWith('billing.session_token='))
    expect(cleared).toMatch(/Max-Age=0/i)
    // …and a copy kept by anyone else is dead too.
    expect((await session(t.app, cookie)).json()).toEqual({ user: null })
    const left = await t.database.db.select().from(sessions).where(eq(sessions.token, row!.token))
    expect(left).toHaveLength(0)
  })

  it('only ends the session it is called with', async () => {
    const { email } = await createAccount(t)
    const phone = cookieHeader(await signIn(t.app, email, password))
    const laptop = cookieHeader(await signIn(t.app, email, password))
    await post(t.app, '/api/auth/sign-out', {}, newIp(), laptop)
    expect((await session(t.app, laptop)).json().user).toBeNull()
    expect((await session(t.app, phone)).json().user?.email).toBe(email)
  })

  it('answers ok without a session', async () => {
    const response = await post(t.app, '/api/auth/sign-out', {}, newIp())
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ ok: true })
  })
})

describe('resending the confirmation e-mail', () => {
  it('mails a new link to an unconfirmed account', async () => {
    const { email } = await createAccount(t, { confirm: false })
    const response = await post(t.app, '/api/auth/resend-verification', { email }, newIp())
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ ok: true })
    const mails = await emailsTo(t, email)
    expect(mails).toHaveLength(2)
    expect(mails[1]?.subject).toBe('Confirme seu e-mail')
    const link = new URL(await lastEmailLink(t.outboxPath, email, /verify-email/))
    await t.app.inject({ method: 'GET', url: link.pathname + link.search })
    expect((await signIn(t.app, email, password)).statusCode).toBe(200)
  })

  it('answers ok for an unknown e-mail and sends nothing', async () => {
    const email = 'desconhecido-reenvio@example.com'
    const response = await post(t.app, '/api/auth/resend-verification', { email }, newIp())
    expect(response.statusCode).toBe(200)
    expect(await emailsTo(t, email)).toHaveLength(0)
  })

  it('limits resends per account', async () => {
    const { email } = await createAccount(t, { confirm: false })
    for (let i = 0; i < 3; i++)
      expect((await post(t.app, '/api/auth/resend-verification', { email }, newIp())).statusCode).toBe(200)
    const blocked = await post(t.app, '/api/auth/resend-verification', { email }, newIp())
    expect(blocked.statusCode).toBe(429)
    expect(await emailsTo(t, email)).toHaveLength(4)
  })
})
