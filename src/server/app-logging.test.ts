import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTestApp, type TestApp } from './test/test-app'
import { createUser, lastEmailLink, lastWhatsAppCode, post } from './test/users'

// Its own app: logging on, every line kept.
const lines: string[] = []
let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ logStream: { write: (line) => void lines.push(line) } })
})
afterAll(async () => {
  await t?.close()
})

it('keeps WhatsApp codes, e-mail links and the tokens in visited URLs out of the log', async () => {
  const user = await createUser(t) // WhatsApp code, e-mail verification link (GET /api/auth/verify-email?token=…)
  const code = await lastWhatsAppCode(t.outboxPath, user.phone)
  const verifyLink = new URL(await lastEmailLink(t.outboxPath, user.email, /verify-email/))
  const verifyToken = verifyLink.searchParams.get('token') ?? ''

  expect((await post(t.app, '/api/auth/forgot-password', { email: user.email })).statusCode).toBe(200)
  const resetLink = new URL(await lastEmailLink(t.outboxPath, user.email, /reset-password/))
  const resetToken = resetLink.searchParams.get('token') ?? ''
  // The SPA page the link opens (served by the not-found handler) is a request like any other.
  await t.app.inject({ method: 'GET', url: resetLink.pathname + resetLink.search })

  const log = lines.join('')
  expect(verifyToken.length).toBeGreaterThan(10)
  expect(resetToken.length).toBeGreaterThan(10)
  expect(log).toContain('/reset-password') // requests are logged, without their query strings
  expect(log).toContain('dev outbox') // and the outbox says it wrote something
  expect(log).not.toContain(code)
  expect(log).not.toContain(verifyToken)
  expect(log).not.toContain(resetToken)
  expect(log).not.toContain('token=')
})
