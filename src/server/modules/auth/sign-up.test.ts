import { and, eq, isNotNull } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { profiles } from '../../db/schema/auth'
import { whatsappVerifications } from '../../db/schema/platform'
import { readOutbox } from '../messaging/outbox'
import { fileTestApp, ipSource, postFrom } from '../../test/http'
import { lastEmailLink, lastWhatsAppCode, responseCookies, signIn, uniquePhone } from '../../test/users'

const minute = 60_000
const password = 'senha-segura-123'

const t = fileTestApp()

/** Each test speaks from its own address, so the per-IP limits of one test never leak into another. */
const newIp = ipSource(2)

function post(url: string, payload: Record<string, unknown>, ip: string, cookie?: string) {
  return postFrom(t.app, url, payload, ip, cookie)
}

/** The browser that verified each number (its verification cookie): sign-ups of that number come from it. */
const browsers = new Map<string, string>()

async function verifyPhone(phone: string, ip = newIp()): Promise<string> {
  const sent = await post('/api/whatsapp/send-code', { phone_number: phone }, ip)
  expect(sent.statusCode).toBe(200)
  const browser = responseCookies(sent)
  const code = await lastWhatsAppCode(t.outboxPath, phone)
  expect((await post('/api/whatsapp/verify-code', { phone_number: phone, code }, ip, browser)).statusCode).toBe(200)
  browsers.set(phone, browser)
  return browser
}

function signUpBody(phone: string, email: string, extra: Record<string, unknown> = {}) {
  return { name: 'Ana Souza', companyName: 'Ótica Ana', whatsappNumber: phone, email, password, ...extra }
}

function signUp(
  phone: string,
  email: string,
  ip = newIp(),
  extra: Record<string, unknown> = {},
  browser = browsers.get(phone),
) {
  return post('/api/auth/sign-up', signUpBody(phone, email, extra), ip, browser)
}

async function profileByEmail(email: string) {
  const [row] = await t.database.db.select().from(profiles).where(eq(profiles.email, email))
  return row
}

/** Refused as not verified, and no account made for `email`. */
async function expectUnverified(response: Awaited<ReturnType<typeof signUp>>, email: string) {
  expect(response.statusCode).toBe(400)
  expect(response.json().code).toBe('whatsapp_not_verified')
  expect(await profileByEmail(email)).toBeUndefined()
}

describe('sign-up', () => {
  it('creates a regular user with the company and WhatsApp given, and mails a confirmation link', async () => {
    const phone = uniquePhone()
    const email = 'ana.souza@example.com'
    await verifyPhone(phone)
    const response = await signUp(phone, 'Ana.Souza@Example.com')
    expect(response.statusCode, response.body).toBe(201)
    expect(response.json()).toEqual({ ok: true })
    // No session before the e-mail is confirmed.
    expect(response.headers['set-cookie']).toBeUndefined()

    const row = await profileByEmail(email)
    expect(row).toMatchObject({
      name: 'Ana Souza',
      email,
      companyName: 'Ótica Ana',
      whatsappNumber: phone,
      roleId: 2,
      emailVerified: false,
    })

    const mails = (await readOutbox(t.outboxPath)).filter((m) => m.channel === 'email' && m.to === email)
    expect(mails).toHaveLength(1)
    expect(mails[0]?.subject).toBe('Confirme seu e-mail')
    const link = await lastEmailLink(t.outboxPath, email, /verify-email/)
    expect(link).toMatch(/^http:\/\/localhost:3000\/api\/auth\/verify-email\?token=\S+$/)

    const confirm = await t.app.inject({ method: 'GET', url: new URL(link).pathname + new URL(link).search })
    expect(confirm.statusCode).toBe(302)
    expect(confirm.headers.location).toBe('/login?verified=1')
    expect((await profileByEmail(email))?.emailVerified).toBe(true)
  })

  it('refuses a number that was never verified', async () => {
    const phone = uniquePhone()
    const response = await signUp(phone, 'nunca-verificado@example.com')
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({
      code: 'whatsapp_not_verified',
      message: 'Por favor, verifique seu número de WhatsApp antes de continuar.',
    })
    expect(await profileByEmail('nunca-verificado@example.com')).toBeUndefined()
  })

  it('refuses a number that received a code but did not confirm it', async () => {
    const phone = uniquePhone()
    expect((await post('/api/whatsapp/send-code', { phone_number: phone }, newIp())).statusCode).toBe(200)
    const response = await signUp(phone, 'so-enviou@example.com')
    expect(response.statusCode).toBe(400)
    expect(response.json().code).toBe('whatsapp_not_verified')
  })

  it("refuses a number verified in another browser: without its cookie, or with another browser's", async () => {
    const phone = uniquePhone()
    await verifyPhone(phone)
    // Someone else, who asked for a code to that number from their own browser, and someone with no cookie at all.
    const strangerSend = await post('/api/whatsapp/send-code', { phone_number: phone }, newIp())
    expect(strangerSend.statusCode).toBe(200)
    for (const browser of ['', responseCookies(strangerSend)]) {
      const response = await signUp(phone, 'ladra@example.com', newIp(), {}, browser)
      expect(response.statusCode).toBe(400)
      expect(response.json()).toMatchObject({ code: 'whatsapp_not_verified' })
    }
    expect(await profileByEmail('ladra@example.com')).toBeUndefined()
    const [verification] = await t.database.db
      .select()
      .from(whatsappVerifications)
      .where(and(eq(whatsappVerifications.phoneNumber, phone), isNotNull(whatsappVerifications.verifiedAt)))
    expect(verification?.consumedAt).toBeNull()
    // The browser that verified it still signs up with it.
    expect((await signUp(phone, 'dona-do-numero@example.com')).statusCode).toBe(201)
    expect(await profileByEmail('dona-do-numero@example.com')).toMatchObject({ whatsappNumber: phone })
  })

  it('refuses a verification made more than 30 minutes ago', async () => {
    const phone = uniquePhone()
    await verifyPhone(phone)
    t.clock.advance(30 * minute + 1_000)
    await expectUnverified(await signUp(phone, 'atrasada@example.com'), 'atrasada@example.com')
  })

  it('accepts a verification made just under 30 minutes ago', async () => {
    const phone = uniquePhone()
    await verifyPhone(phone)
    t.clock.advance(30 * minute - 1_000)
    expect((await signUp(phone, 'no-limite@example.com')).statusCode).toBe(201)
  })

  it('uses a verification once: a second sign-up with the same verification is refused', async () => {
    const phone = uniquePhone()
    await verifyPhone(phone)
    expect((await signUp(phone, 'primeira@example.com')).statusCode).toBe(201)
    await expectUnverified(await signUp(phone, 'segunda@example.com'), 'segunda@example.com')
  })

  it('lets one verification create one account even under parallel sign-ups', async () => {
    const phone = uniquePhone()
    await verifyPhone(phone)
    const responses = await Promise.all([
      signUp(phone, 'paralela1@example.com'),
      signUp(phone, 'paralela2@example.com'),
      signUp(phone, 'paralela3@example.com'),
    ])
    expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 400, 400])
  })

  it('refuses an e-mail already in use with 422, and the verification stays usable', async () => {
    const phone = uniquePhone()
    await verifyPhone(phone)
    expect((await signUp(phone, 'dono@example.com')).statusCode).toBe(201)

    const other = uniquePhone()
    await verifyPhone(other)
    const taken = await signUp(other, 'DONO@example.com')
    expect(taken.statusCode).toBe(422)
    expect(taken.json()).toMatchObject({ code: 'email_taken', message: 'Este e-mail já está cadastrado.' })
    const [verification] = await t.database.db
      .select()
      .from(whatsappVerifications)
      .where(eq(whatsappVerifications.phoneNumber, other))
    expect(verification?.consumedAt).toBeNull()

    const retry = await signUp(other, 'outro-dono@example.com')
    expect(retry.statusCode, retry.body).toBe(201)
  })

  it('gives one e-mail one account under parallel sign-ups, and the loser keeps its verification', async () => {
    const first = uniquePhone()
    const second = uniquePhone()
    await verifyPhone(first)
    await verifyPhone(second)
    const responses = await Promise.all([signUp(first, 'corrida@example.com'), signUp(second, 'corrida@example.com')])
    expect(responses.map((r) => r.statusCode).sort(), responses.map((r) => r.body).join('\n')).toEqual([201, 422])
    const loser = responses[0]?.statusCode === 422 ? first : second
    expect((await signUp(loser, 'corrida-2@example.com')).statusCode).toBe(201)
  })

  it('refuses a password shorter than 8 characters', async () => {
    const phone = uniquePhone()
    const response = await signUp(phone, 'curta@example.com', newIp(), { password: '1234567' })
    expect(response.statusCode).toBe(400)
    expect(response.json().message).toBe('A senha deve ter pelo menos 8 caracteres.')
  })

  it('refuses a password longer than 128 characters', async () => {
    const response = await signUp(uniquePhone(), 'longa@example.com', newIp(), { password: 'a'.repeat(129) })
    expect(response.statusCode).toBe(400)
    expect(response.json().message).toBe('A senha deve ter no máximo 128 caracteres.')
  })

  it('refuses an invalid e-mail and an invalid WhatsApp number', async () => {
    const badEmail = await signUp(uniquePhone(), 'nao-e-email', newIp())
    expect(badEmail.statusCode).toBe(400)
    expect(badEmail.json().message).toBe('Informe um e-mail válido.')
    const badPhone = await signUp('+5585999990000', 'fone@example.com', newIp())
    expect(badPhone.statusCode).toBe(400)
    expect(badPhone.json().message).toBe('Por favor, insira um número de WhatsApp válido (apenas números).')
  })

  it.each([
    ['roleId', { roleId: 1 }],
    ['role_id', { role_id: 1 }],
    ['emailVerified', { emailVerified: true }],
    ['email_verified', { email_verified: true }],
    ['isAdmin', { isAdmin: true }],
    ['id', { id: 'escolhido' }],
  ])('refuses the unknown field %s and creates nothing', async (_name, extra) => {
    const phone = uniquePhone()
    await verifyPhone(phone)
    const email = `extra-${phone}@example.com`
    const response = await signUp(phone, email, newIp(), extra)
    expect(response.statusCode).toBe(400)
    expect(response.json().code).toBe('validation_failed')
    expect(await profileByEmail(email)).toBeUndefined()
    // The refused request did not use the verification up.
    expect((await signUp(phone, email)).statusCode).toBe(201)
    expect(await profileByEmail(email)).toMatchObject({ roleId: 2, emailVerified: false })
  })

  it('limits sign-ups per address', async () => {
    const ip = newIp()
    for (let i = 0; i < 10; i++) {
      const response = await signUp(uniquePhone(), `limite${i}@example.com`, ip)
      expect(response.statusCode, `attempt ${i + 1}`).toBe(400)
    }
    const phone = uniquePhone()
    await verifyPhone(phone)
    const blocked = await signUp(phone, 'limite-ok@example.com', ip)
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json().code).toBe('rate_limited')
    expect(await profileByEmail('limite-ok@example.com')).toBeUndefined()
    // The verification was not used up by the refused attempt; another address may sign up with it.
    expect((await signUp(phone, 'limite-ok@example.com', newIp())).statusCode).toBe(201)
  })

  it('signs in after the confirmation, as a regular user', async () => {
    const phone = uniquePhone()
    const email = 'completa@example.com'
    await verifyPhone(phone)
    expect((await signUp(phone, email)).statusCode).toBe(201)
    const link = await lastEmailLink(t.outboxPath, email, /verify-email/)
    await t.app.inject({ method: 'GET', url: new URL(link).pathname + new URL(link).search })
    const cookie = await signIn(t.app, email, password)
    const session = await t.app.inject({ method: 'GET', url: '/api/auth/session', headers: { cookie } })
    expect(session.json().user).toMatchObject({
      email,
      companyName: 'Ótica Ana',
      whatsappNumber: phone,
      roleId: 2,
      isAdmin: false,
    })
  })

  it('redirects a bad confirmation link to the login page with an error flag', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/auth/verify-email?token=falso' })
    expect(response.statusCode).toBe(302)
    expect(response.headers.location).toBe('/login?verifyError=1')
  })
})
