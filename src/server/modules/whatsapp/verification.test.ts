import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { whatsappVerifications } from '../../db/schema/platform'
import { readOutbox } from '../messaging/outbox'
import type { WhatsAppSender } from '../messaging/whatsapp'
import { expectAnswer, fileTestApp, ipSource } from '../../test/http'
import { createTestApp, type TestApp } from '../../test/test-app'
import { lastWhatsAppCode, origin, responseCookies, uniquePhone } from '../../test/users'

const minute = 60_000
const invalidNumber = 'Por favor, insira um número de WhatsApp válido (apenas números).'

const t = fileTestApp()

/** Each test speaks from its own address, so the per-IP limits of one test never leak into another. */
const newIp = ipSource(1)

/** Each address is one browser here: the verification cookie it was given is sent back from it. */
const jar = new Map<string, string>()

type Injected = Awaited<ReturnType<TestApp['app']['inject']>>

async function asBrowser(ip: string, request: (cookie: string | undefined) => Promise<Injected>) {
  const response = await request(jar.get(ip))
  const set = responseCookies(response)
  if (set) jar.set(ip, set)
  return response
}

function send(app: TestApp['app'], phone: string, ip: string) {
  return asBrowser(ip, (cookie) =>
    app.inject({
      method: 'POST',
      url: '/api/whatsapp/send-code',
      payload: { phone_number: phone },
      headers: { origin, ...(cookie ? { cookie } : {}) },
      remoteAddress: ip,
    }),
  )
}

function verify(app: TestApp['app'], phone: string, code: string, ip: string, cookie = jar.get(ip)) {
  return app.inject({
    method: 'POST',
    url: '/api/whatsapp/verify-code',
    payload: { phone_number: phone, code },
    headers: { origin, ...(cookie ? { cookie } : {}) },
    remoteAddress: ip,
  })
}

/** A 6-digit code that is surely not `code`. */
function wrongCode(code: string, n = 0): string {
  return String((Number(code) + 1 + n) % 1_000_000).padStart(6, '0')
}

/** A code sent to a new number from a new address, read from the outbox. */
async function codeSent() {
  const phone = uniquePhone()
  const ip = newIp()
  await send(t.app, phone, ip)
  return { phone, ip, code: await lastWhatsAppCode(t.outboxPath, phone) }
}

/** The verification row of `phone`. */
async function verificationOf(phone: string) {
  const [row] = await t.database.db
    .select()
    .from(whatsappVerifications)
    .where(eq(whatsappVerifications.phoneNumber, phone))
  return row
}

/** Two codes sent to a new number from a new address a minute apart, the second unlike the first. */
async function twoCodes() {
  const { phone, ip, code: first } = await codeSent()
  let second = first
  // A new code equal to the old one (one chance in a million) would prove nothing: ask again.
  while (second === first) {
    t.clock.advance(61_000)
    expect((await send(t.app, phone, ip)).statusCode).toBe(200)
    second = await lastWhatsAppCode(t.outboxPath, phone)
  }
  return { phone, ip, first, second }
}

describe('sending a code', () => {
  it('sends a 6-digit code to the number through the outbox', async () => {
    const phone = uniquePhone()
    const response = await send(t.app, phone, newIp())
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({ ok: true })
    const messages = (await readOutbox(t.outboxPath)).filter((m) => m.channel === 'whatsapp' && m.to === phone)
    expect(messages).toHaveLength(1)
    expect(messages[0]?.text).toMatch(/\b\d{6}\b/)
  })

  it('stores only a hash of the code', async () => {
    const phone = uniquePhone()
    await send(t.app, phone, newIp())
    const code = await lastWhatsAppCode(t.outboxPath, phone)
    const rows = await t.database.db
      .select()
      .from(whatsappVerifications)
      .where(eq(whatsappVerifications.phoneNumber, phone))
    expect(rows).toHaveLength(1)
    const row = rows[0]!
    expect(row.codeHash).not.toBe(code)
    expect(row.codeHash).toMatch(/^[0-9a-f]{64}$/)
    for (const value of Object.values(row)) {
      const text = value instanceof Date ? value.toISOString() : String(value)
      expect(text).not.toContain(code)
    }
  })

  it('refuses a second code for the same number within 60 seconds', async () => {
    const phone = uniquePhone()
    const ip = newIp()
    expect((await send(t.app, phone, ip)).statusCode).toBe(200)
    t.clock.advance(59_000)
    expectAnswer(await send(t.app, phone, ip), 429, {
      code: 'code_resend_too_soon',
      message: 'Aguarde 60 segundos antes de solicitar um novo código.',
    })
    t.clock.advance(1_000)
    expect((await send(t.app, phone, ip)).statusCode).toBe(200)
  })

  it('sends at most 5 codes per hour to one number, and again once the hour has passed', async () => {
    const phone = uniquePhone()
    const ip = newIp()
    for (let i = 0; i < 5; i++) {
      const response = await send(t.app, phone, ip)
      expect(response.statusCode, `send ${i + 1}: ${response.body}`).toBe(200)
      t.clock.advance(61_000)
    }
    expectAnswer(await send(t.app, phone, ip), 429, {
      code: 'code_hourly_limit',
      message: 'Limite de códigos por hora atingido para este número. Tente novamente mais tarde.',
    })
    // The first code was sent 5 × 61 s ago; once it is an hour old, one slot is free again.
    t.clock.advance(60 * minute - 5 * 61_000 + 1_000)
    const later = await send(t.app, phone, newIp())
    expect(later.statusCode, later.body).toBe(200)
  })

  it("a stranger sending codes to someone's number does not stop them getting and using their own", async () => {
    const phone = uniquePhone()
    const stranger = newIp()
    for (let i = 0; i < 5; i++) {
      expect((await send(t.app, phone, stranger)).statusCode, `stranger send ${i + 1}`).toBe(200)
      t.clock.advance(61_000)
    }
    expect((await send(t.app, phone, stranger)).json().code).toBe('code_hourly_limit')
    // The owner of the number, from their own address and browser, still gets a code ...
    const owner = newIp()
    const sent = await send(t.app, phone, owner)
    expect(sent.statusCode, sent.body).toBe(200)
    const code = await lastWhatsAppCode(t.outboxPath, phone)
    // ... which a later code asked by the stranger does not replace.
    t.clock.advance(60 * minute)
    expect((await send(t.app, phone, stranger)).statusCode).toBe(200)
    t.clock.advance(-60 * minute)
    const verified = await verify(t.app, phone, code, owner)
    expect(verified.statusCode, verified.body).toBe(200)
    const rows = await t.database.db
      .select()
      .from(whatsappVerifications)
      .where(eq(whatsappVerifications.phoneNumber, phone))
    expect(rows.filter((r) => r.verifiedAt)).toHaveLength(1)
  })

  it('limits one requester to 10 codes a day for a number', async () => {
    const phone = uniquePhone()
    const ip = newIp()
    for (let hour = 0; hour < 2; hour++) {
      for (let i = 0; i < 5; i++) {
        expect((await send(t.app, phone, ip)).statusCode, `hour ${hour} send ${i + 1}`).toBe(200)
        t.clock.advance(61_000)
      }
      t.clock.advance(60 * minute)
    }
    const blocked = await send(t.app, phone, ip)
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json()).toMatchObject({
      code: 'code_daily_limit',
      message: 'Limite diário de códigos atingido para este número. Tente novamente amanhã.',
    })
    expect((await send(t.app, phone, newIp())).statusCode).toBe(200)
  })

  it('caps a number at 30 codes an hour and 100 a day, whoever asks', async () => {
    const phone = uniquePhone()
    for (let i = 0; i < 30; i++) expect((await send(t.app, phone, newIp())).statusCode, `send ${i + 1}`).toBe(200)
    expect((await send(t.app, phone, newIp())).json().code).toBe('code_hourly_limit')
    for (let hour = 1; hour < 4; hour++) {
      t.clock.advance(60 * minute + 1_000)
      const quota = hour < 3 ? 30 : 10
      for (let i = 0; i < quota; i++) expect((await send(t.app, phone, newIp())).statusCode).toBe(200)
    }
    const blocked = await send(t.app, phone, newIp())
    expect(blocked.json().code).toBe('code_daily_limit')
    const rows = await t.database.db
      .select()
      .from(whatsappVerifications)
      .where(eq(whatsappVerifications.phoneNumber, phone))
    expect(rows).toHaveLength(100)
  })

  it('limits how many codes one address can request, whatever the numbers', async () => {
    const ip = newIp()
    for (let i = 0; i < 10; i++) {
      const response = await send(t.app, uniquePhone(), ip)
      expect(response.statusCode, `send ${i + 1}: ${response.body}`).toBe(200)
    }
    const eleventh = await send(t.app, uniquePhone(), ip)
    expect(eleventh.statusCode).toBe(429)
    expect(eleventh.json()).toMatchObject({ code: 'rate_limited' })
    // Another address is not affected.
    expect((await send(t.app, uniquePhone(), newIp())).statusCode).toBe(200)
  })

  it.each([
    ['9 digits', '858999900'],
    ['16 digits', '5585999990000123'],
    ['letters', '55859999abcd'],
    ['a leading +', '+5585999990000'],
    ['spaces inside', '55 85 99999 0000'],
    ['an empty value', ''],
  ])('refuses a number with %s, with the spec message', async (_label, phone) => {
    const ip = newIp()
    const sent = await send(t.app, phone, ip)
    expect(sent.statusCode).toBe(400)
    expect(sent.json().message).toBe(invalidNumber)
    const verified = await verify(t.app, phone, '123456', ip)
    expect(verified.statusCode).toBe(400)
    expect(verified.json().message).toBe(invalidNumber)
  })

  it('accepts 10 and 15 digits, the limits of the rule', async () => {
    const ip = newIp()
    expect((await send(t.app, '8599990000', ip)).statusCode).toBe(200)
    expect((await send(t.app, '558599990000123', ip)).statusCode).toBe(200)
  })

  it('refuses unknown fields in the body', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/whatsapp/send-code',
      payload: { phone_number: uniquePhone(), verified: true },
      headers: { origin },
      remoteAddress: newIp(),
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().code).toBe('validation_failed')
  })
})

describe('verifying a code', () => {
  it('accepts the right code once', async () => {
    const { phone, ip, code } = await codeSent()
    const response = await verify(t.app, phone, code, ip)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({ success: true })
    const row = await verificationOf(phone)
    expect(row?.verifiedAt).toEqual(t.clock.now())
    const again = await verify(t.app, phone, code, ip)
    expect(again.statusCode).toBe(400)
    expect(again.json().message).toBe('Código inválido ou expirado.')
  })

  it('refuses a wrong code with the spec message', async () => {
    const { phone, ip, code } = await codeSent()
    const response = await verify(t.app, phone, wrongCode(code), ip)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'code_invalid', message: 'Código inválido ou expirado.' })
  })

  it.each(['12345', '1234567', 'abcdef'])('refuses a malformed code (%s)', async (code) => {
    const phone = uniquePhone()
    const ip = newIp()
    await send(t.app, phone, ip)
    const response = await verify(t.app, phone, code, ip)
    expect(response.statusCode).toBe(400)
    expect(response.json().message).toBe('Código inválido ou expirado.')
  })

  it('checks a code only for the browser that asked for it', async () => {
    const { phone, ip, code } = await codeSent()
    // The right code, without the browser's cookie or with another browser's: no code to check.
    const other = newIp()
    await send(t.app, uniquePhone(), other)
    const otherBrowser = jar.get(other)
    expect(otherBrowser).toBeDefined()
    for (const cookie of ['', otherBrowser]) {
      const response = await verify(t.app, phone, code, ip, cookie)
      expect(response.statusCode).toBe(400)
      expect(response.json().message).toBe('Código inválido ou expirado.')
    }
    const row = await verificationOf(phone)
    expect(row).toMatchObject({ verifiedAt: null, attempts: 0 })
    expect((await verify(t.app, phone, code, ip)).statusCode).toBe(200)
  })

  it('gives the browser an httpOnly, SameSite=Strict cookie and stores only its hash', async () => {
    const phone = uniquePhone()
    const response = await send(t.app, phone, newIp())
    const header = String(response.headers['set-cookie'])
    expect(header).toMatch(/^billing\.wa_browser=[A-Za-z0-9_-]{43};/)
    expect(header).toContain('HttpOnly')
    expect(header).toContain('SameSite=Strict')
    expect(header).toContain('Max-Age=2400')
    const token = header.split(';')[0]!.split('=')[1]!
    const row = await verificationOf(phone)
    expect(row?.browserHash).toMatch(/^[0-9a-f]{64}$/)
    expect(row?.browserHash).not.toContain(token)
  })

  it('refuses a code for a number that never received one', async () => {
    const response = await verify(t.app, uniquePhone(), '123456', newIp())
    expect(response.statusCode).toBe(400)
    expect(response.json().message).toBe('Código inválido ou expirado.')
  })

  it('keeps a code valid for 10 minutes', async () => {
    const { phone, ip, code } = await codeSent()
    t.clock.advance(10 * minute - 1_000)
    expect((await verify(t.app, phone, code, ip)).statusCode).toBe(200)
  })

  it('refuses a code 10 minutes and 1 second after it was sent', async () => {
    const { phone, ip, code } = await codeSent()
    t.clock.advance(10 * minute + 1_000)
    const response = await verify(t.app, phone, code, ip)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'code_invalid', message: 'Código inválido ou expirado.' })
  })

  it('allows 5 attempts per code: the sixth is refused even when it is right', async () => {
    const { phone, ip, code } = await codeSent()
    for (let i = 0; i < 5; i++) {
      const response = await verify(t.app, phone, wrongCode(code, i), ip)
      expect(response.statusCode, `attempt ${i + 1}`).toBe(400)
    }
    const sixth = await verify(t.app, phone, code, ip)
    expect(sixth.statusCode).toBe(429)
    expect(sixth.json()).toMatchObject({
      code: 'code_attempts_exceeded',
      message: 'Número máximo de tentativas excedido. Solicite um novo código.',
    })
    const row = await verificationOf(phone)
    expect(row?.attempts).toBe(5)
    expect(row?.verifiedAt).toBeNull()
  })

  it('lets the fifth attempt succeed when it is right', async () => {
    const { phone, ip, code } = await codeSent()
    for (let i = 0; i < 4; i++) expect((await verify(t.app, phone, wrongCode(code, i), ip)).statusCode).toBe(400)
    expect((await verify(t.app, phone, code, ip)).statusCode).toBe(200)
  })

  it('counts parallel guesses atomically: never more than 5 are checked', async () => {
    const { phone, ip, code } = await codeSent()
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => verify(t.app, phone, wrongCode(code, i), ip)),
    )
    const statuses = responses.map((r) => r.statusCode).sort()
    expect(statuses.filter((s) => s === 400)).toHaveLength(5)
    expect(statuses.filter((s) => s === 429)).toHaveLength(3)
    const row = await verificationOf(phone)
    expect(row?.attempts).toBe(5)
  })

  it('a new code invalidates the previous one', async () => {
    const { phone, ip, first, second } = await twoCodes()
    const old = await verify(t.app, phone, first, ip)
    expect(old.statusCode).toBe(400)
    expect(old.json().message).toBe('Código inválido ou expirado.')
    expect((await verify(t.app, phone, second, ip)).statusCode).toBe(200)
  })

  it('an older code stays dead after the newer one was used for a sign-up', async () => {
    const { phone, ip, first, second } = await twoCodes()
    expect((await verify(t.app, phone, second, ip)).statusCode).toBe(200)
    const signUp = await t.app.inject({
      method: 'POST',
      url: '/api/auth/sign-up',
      payload: {
        name: 'Rui',
        companyName: 'Oficina do Rui',
        whatsappNumber: phone,
        email: `rui${phone}@example.com`,
        password: 'senha-segura-123',
      },
      headers: { origin, cookie: jar.get(ip) ?? '' },
      remoteAddress: ip,
    })
    expect(signUp.statusCode, signUp.body).toBe(201)
    const old = await verify(t.app, phone, first, ip)
    expect(old.statusCode).toBe(400)
    expect(old.json().message).toBe('Código inválido ou expirado.')
  })
})

describe('when the WhatsApp provider fails', () => {
  let failing: TestApp
  const delivered: { to: string; text: string }[] = []
  let fail = true
  const sender: WhatsAppSender = {
    async send(to, text) {
      if (fail) throw new Error('Cloud API fora do ar')
      delivered.push({ to, text })
    },
  }

  beforeAll(async () => {
    failing = await createTestApp({ whatsapp: sender })
  })
  afterAll(async () => {
    await failing?.close()
  })

  it('answers 502 and the failed attempt does not count against the 60-second limit', async () => {
    const phone = uniquePhone()
    const ip = newIp()
    const failed = await send(failing.app, phone, ip)
    expect(failed.statusCode).toBe(502)
    expect(failed.json()).toMatchObject({
      code: 'whatsapp_send_failed',
      message: 'Não foi possível enviar a mensagem pelo WhatsApp. Tente novamente.',
    })
    expect(failed.body).not.toContain('Cloud API fora do ar')
    const rows = await failing.database.db
      .select()
      .from(whatsappVerifications)
      .where(eq(whatsappVerifications.phoneNumber, phone))
    expect(rows).toHaveLength(0)

    fail = false
    const retried = await send(failing.app, phone, ip)
    expect(retried.statusCode, retried.body).toBe(200)
    const code = delivered.at(-1)?.text.match(/\b(\d{6})\b/)?.[1]
    expect(delivered.at(-1)?.to).toBe(phone)
    expect(code).toBeDefined()
    expect((await verify(failing.app, phone, code!, ip)).statusCode).toBe(200)
  })

  it('does not count failed sends against the hourly limit either', async () => {
    const phone = uniquePhone()
    fail = true
    for (let i = 0; i < 6; i++) expect((await send(failing.app, phone, newIp())).statusCode).toBe(502)
    fail = false
    expect((await send(failing.app, phone, newIp())).statusCode).toBe(200)
  })
})
