import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTestApp, type TestApp } from './test/test-app'
import { createUser, lastEmailLink, lastWhatsAppCode, post } from './test/users'

// Its own apps, logging on, every line kept: one at debug (the full access log), one at the default info.
const lines: string[] = []
const infoLines: string[] = []
let t: TestApp
let info: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { LOG_LEVEL: 'debug' }, logStream: { write: (line) => void lines.push(line) } })
  info = await createTestApp({ logStream: { write: (line) => void infoLines.push(line) } })
})
afterAll(async () => {
  await t?.close()
  await info?.close()
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

type LogLine = { level: number; msg: string; req?: { method: string; url: string }; res?: { statusCode: number } }
const completed = (raw: string[]) =>
  raw
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.msg === 'request completed' || line.msg === 'request errored')

it('logs every write and every refused read at info, and a fast successful read only at debug', async () => {
  const before = completed(infoLines).length
  expect((await info.app.inject({ method: 'GET', url: '/api/plans' })).statusCode).toBe(200)
  expect((await info.app.inject({ method: 'GET', url: '/api/subscriptions' })).statusCode).toBe(401)
  expect((await post(info.app, '/api/auth/forgot-password', { email: 'ninguem@example.com' })).statusCode).toBe(200)
  const logged = completed(infoLines)
    .slice(before)
    .map((line) => `${line.level} ${line.req?.method} ${line.req?.url} ${line.res?.statusCode}`)
  // pino levels: 30 info; the 200 read of the plans is not there.
  expect(logged).toEqual(['30 GET /api/subscriptions 401', '30 POST /api/auth/forgot-password 200'])

  const debugBefore = completed(lines).length
  expect((await t.app.inject({ method: 'GET', url: '/api/plans' })).statusCode).toBe(200)
  const debugLogged = completed(lines).slice(debugBefore)
  expect(debugLogged.map((line) => `${line.level} ${line.req?.url} ${line.res?.statusCode}`)).toEqual([
    '20 /api/plans 200',
  ])
})
