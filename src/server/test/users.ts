import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'
import { profiles } from '../db/schema/auth'
import { readOutbox } from '../modules/messaging/outbox'
import type { TestApp } from './test-app'

export const origin = 'http://localhost:3000'

let counter = 0
/** A unique 13-digit Brazilian mobile number per call. */
export function uniquePhone(): string {
  counter += 1
  return `55859${String(Date.now() % 1e6).padStart(6, '0')}${String(counter).padStart(2, '0')}`.slice(0, 13)
}

export async function lastWhatsAppCode(outboxPath: string, phone: string): Promise<string> {
  const entries = (await readOutbox(outboxPath)).filter((e) => e.channel === 'whatsapp' && e.to === phone)
  const code = entries.at(-1)?.text.match(/\b(\d{6})\b/)?.[1]
  if (!code) throw new Error(`no WhatsApp code for ${phone} in the outbox`)
  return code
}

export async function lastEmailLink(outboxPath: string, to: string, pattern: RegExp): Promise<string> {
  const entries = (await readOutbox(outboxPath)).filter((e) => e.channel === 'email' && e.to === to)
  for (const entry of entries.reverse()) {
    const link = entry.text.match(/https?:\/\/\S+/g)?.find((l) => pattern.test(l))
    if (link) return link
  }
  throw new Error(`no e-mail link matching ${pattern} for ${to}`)
}

export function post(app: FastifyInstance, url: string, payload: unknown, cookie?: string) {
  return app.inject({
    method: 'POST',
    url,
    payload: payload as Record<string, unknown>,
    headers: { origin, ...(cookie ? { cookie } : {}) },
  })
}

export function get(app: FastifyInstance, url: string, cookie?: string) {
  return app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} })
}

/** The `name=value` pairs a response sets, ready for a Cookie header. */
export function responseCookies(response: { headers: Record<string, unknown> }): string {
  const value = response.headers['set-cookie']
  const list = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : []
  return list.map((c) => c.split(';')[0]).join('; ')
}

/** Joins Cookie headers (empty parts dropped). */
export function cookies(...parts: (string | undefined)[]): string {
  return parts.filter(Boolean).join('; ')
}

/**
 * Verifies the number the way a browser does, and returns that browser's verification cookie: sign-up and the
 * profile's number change need it (a verification belongs to the browser that asked for it).
 */
export async function verifyPhone(t: TestApp, phone: string, cookie?: string): Promise<string> {
  const sent = await post(t.app, '/api/whatsapp/send-code', { phone_number: phone }, cookie)
  expect(sent.statusCode, sent.body).toBe(200)
  const browser = responseCookies(sent)
  const code = await lastWhatsAppCode(t.outboxPath, phone)
  const verified = await post(
    t.app,
    '/api/whatsapp/verify-code',
    { phone_number: phone, code },
    cookies(cookie, browser),
  )
  expect(verified.statusCode, verified.body).toBe(200)
  return browser
}

/** The profile's number change as the page sends it: `phone` from the browser holding `browser`'s verification. */
export function changeWhatsApp(t: TestApp, cookie: string, phone: string, browser?: string) {
  return post(t.app, '/api/profile/whatsapp', { whatsapp_number: phone }, cookies(cookie, browser))
}

export type TestUser = { id: string; email: string; password: string; phone: string; cookie: string }

/** Sign-up through the API (WhatsApp code from the outbox), e-mail confirmed by its link, signed in. */
export async function createUser(
  t: TestApp,
  options: { email?: string; name?: string; admin?: boolean } = {},
): Promise<TestUser> {
  const phone = uniquePhone()
  const email = options.email ?? `user${phone}@example.com`
  const password = 'senha-segura-123'
  const browser = await verifyPhone(t, phone)
  const signUp = await post(
    t.app,
    '/api/auth/sign-up',
    { name: options.name ?? 'Maria Cliente', companyName: 'Loja da Maria', whatsappNumber: phone, email, password },
    browser,
  )
  expect(signUp.statusCode, signUp.body).toBe(201)
  const link = await lastEmailLink(t.outboxPath, email, /verify-email/)
  const confirm = await t.app.inject({ method: 'GET', url: new URL(link).pathname + new URL(link).search })
  expect(confirm.statusCode).toBe(302)
  if (options.admin) await t.database.db.update(profiles).set({ roleId: 1 }).where(eq(profiles.email, email))
  const cookie = await signIn(t.app, email, password)
  const [row] = await t.database.db.select({ id: profiles.id }).from(profiles).where(eq(profiles.email, email))
  return { id: row!.id, email, password, phone, cookie }
}

export async function signIn(app: FastifyInstance, email: string, password: string): Promise<string> {
  const response = await post(app, '/api/auth/sign-in', { email, password })
  expect(response.statusCode, response.body).toBe(200)
  const setCookie = response.headers['set-cookie']
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []
  return cookies.map((c) => c.split(';')[0]).join('; ')
}

/** Step-up: the password again, so role and PIX changes are accepted for the next 5 minutes of the test clock. */
export async function reauthenticate(t: TestApp, user: Pick<TestUser, 'password' | 'cookie'>): Promise<void> {
  const response = await post(t.app, '/api/auth/reauthenticate', { password: user.password }, user.cookie)
  expect(response.statusCode, response.body).toBe(200)
}
