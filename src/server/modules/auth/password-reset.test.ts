import { describe, expect, it } from 'vitest'
import { readOutbox } from '../messaging/outbox'
import { fileTestApp, ipSource, postFrom, getSession } from '../../test/http'
import { lastEmailLink, lastWhatsAppCode, responseCookies, uniquePhone } from '../../test/users'

const password = 'senha-segura-123'
const newPassword = 'nova-senha-456'

const t = fileTestApp()

/** Each test speaks from its own address, so the per-IP limits of one test never leak into another. */
const newIp = ipSource(4)

function post(url: string, payload: Record<string, unknown>, ip = newIp(), cookie?: string) {
  return postFrom(t.app, url, payload, ip, cookie)
}

function session(cookie: string) {
  return getSession(t.app, cookie)
}

async function signIn(email: string, pass: string) {
  const response = await post('/api/auth/sign-in', { email, password: pass })
  const value = response.headers['set-cookie']
  const cookies = Array.isArray(value) ? value : value ? [value] : []
  return { status: response.statusCode, cookie: cookies.map((c) => c.split(';')[0]).join('; ') }
}

async function emailsTo(to: string) {
  return (await readOutbox(t.outboxPath)).filter((m) => m.channel === 'email' && m.to === to)
}

async function createAccount(): Promise<string> {
  const ip = newIp()
  const phone = uniquePhone()
  const email = `reset${phone}@example.com`
  const sent = await post('/api/whatsapp/send-code', { phone_number: phone }, ip)
  expect(sent.statusCode).toBe(200)
  const browser = responseCookies(sent)
  const code = await lastWhatsAppCode(t.outboxPath, phone)
  expect((await post('/api/whatsapp/verify-code', { phone_number: phone, code }, ip, browser)).statusCode).toBe(200)
  const body = { name: 'Beatriz', companyName: 'Padaria Bia', whatsappNumber: phone, email, password }
  expect((await post('/api/auth/sign-up', body, ip, browser)).statusCode).toBe(201)
  const link = new URL(await lastEmailLink(t.outboxPath, email, /verify-email/))
  await t.app.inject({ method: 'GET', url: link.pathname + link.search })
  return email
}

async function resetToken(email: string): Promise<string> {
  const link = new URL(await lastEmailLink(t.outboxPath, email, /reset-password/))
  expect(link.origin + link.pathname).toBe('http://localhost:3000/reset-password')
  const token = link.searchParams.get('token')
  expect(token).toBeTruthy()
  return token!
}

describe('forgotten password', () => {
  it('mails a /reset-password link; the token works once, ends old sessions and sets the new password', async () => {
    const email = await createAccount()
    const before = await signIn(email, password)
    expect(before.status).toBe(200)
    expect((await session(before.cookie)).json().user?.email).toBe(email)

    const asked = await post('/api/auth/forgot-password', { email })
    expect(asked.statusCode).toBe(200)
    expect(asked.json()).toEqual({ ok: true })
    const mail = (await emailsTo(email)).at(-1)
    expect(mail?.subject).toBe('Redefinição de senha')
    const token = await resetToken(email)

    const reset = await post('/api/auth/reset-password', { token, newPassword })
    expect(reset.statusCode, reset.body).toBe(200)
    expect(reset.json()).toEqual({ ok: true })

    // Someone holding the old session (a stolen cookie, a shared computer) is out.
    expect((await session(before.cookie)).json()).toEqual({ user: null })

    const again = await post('/api/auth/reset-password', { token, newPassword: 'terceira-senha-789' })
    expect(again.statusCode).toBe(400)
    expect(again.json()).toMatchObject({
      code: 'invalid_token',
      message: 'O link é inválido ou expirou. Solicite um novo.',
    })

    expect((await signIn(email, password)).status).toBe(401)
    const after = await signIn(email, newPassword)
    expect(after.status).toBe(200)
    expect((await session(after.cookie)).json().user?.email).toBe(email)
  })

  it('answers 200 for an unknown e-mail and sends nothing, so accounts cannot be discovered', async () => {
    const email = 'nao-existe@example.com'
    const response = await post('/api/auth/forgot-password', { email })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ ok: true })
    expect(await emailsTo(email)).toHaveLength(0)
  })

  it('refuses a made-up token', async () => {
    const response = await post('/api/auth/reset-password', { token: 'inventado', newPassword })
    expect(response.statusCode).toBe(400)
    expect(response.json().code).toBe('invalid_token')
  })

  it('refuses a short new password and keeps the token usable', async () => {
    const email = await createAccount()
    await post('/api/auth/forgot-password', { email })
    const token = await resetToken(email)
    const short = await post('/api/auth/reset-password', { token, newPassword: 'curta' })
    expect(short.statusCode).toBe(400)
    expect(short.json().message).toBe('A senha deve ter pelo menos 8 caracteres.')
    expect((await post('/api/auth/reset-password', { token, newPassword })).statusCode).toBe(200)
    expect((await signIn(email, newPassword)).status).toBe(200)
  })

  it('limits reset e-mails per account', async () => {
    const email = await createAccount()
    for (let i = 0; i < 3; i++) expect((await post('/api/auth/forgot-password', { email })).statusCode).toBe(200)
    const blocked = await post('/api/auth/forgot-password', { email })
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json().code).toBe('rate_limited')
    expect((await emailsTo(email)).filter((m) => m.subject === 'Redefinição de senha')).toHaveLength(3)
  })

  it('limits reset requests per address', async () => {
    const ip = newIp()
    for (let i = 0; i < 10; i++)
      expect((await post('/api/auth/forgot-password', { email: `x${i}@example.com` }, ip)).statusCode).toBe(200)
    expect((await post('/api/auth/forgot-password', { email: 'x10@example.com' }, ip)).statusCode).toBe(429)
  })
})
