// Account e-mails (sign-up confirmation, password reset) go through the notifications outbox: a request never waits
// on a failing SMTP server for more than accountEmailWaitMs, and the e-mail arrives exactly once when SMTP answers.
// SMTP is a real server on loopback (smtp-server) that the test makes refuse, hang (never greet) or accept.
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { profiles } from '../../db/schema/auth'
import { notifications } from '../../db/schema/lifecycle'
import { fileTestApp, ipSource, postFrom } from '../../test/http'
import { startSmtp, type TestSmtp } from '../../test/smtp'
import { responseCookies, uniquePhone, verifyPhone } from '../../test/users'
import { depsOf } from '../lifecycle/lifecycle-fixtures'
import {
  accountEmailLeaseMs,
  accountEmailWaitMs,
  deliverNotifications,
  redactedAccountEmailBody,
} from '../lifecycle/notifications.service'

let smtp: TestSmtp
// The app reads SMTP_URL once, at start: the SMTP peer's port is fixed first, its behaviour changed per test.
const smtpPort = { url: '' }
beforeAll(async () => {
  smtp = await startSmtp()
  smtpPort.url = smtp.url
})
afterAll(async () => {
  await smtp.close()
})

const t = fileTestApp({
  get env() {
    return { SMTP_URL: smtpPort.url }
  },
})
const nextIp = ipSource(61)
const password = 'senha-segura-123'

async function signUp(email: string) {
  const phone = uniquePhone()
  const browser = await verifyPhone(t, phone)
  const started = Date.now()
  const response = await postFrom(
    t.app,
    '/api/auth/sign-up',
    { name: 'Rita Correio', companyName: 'Loja da Rita', whatsappNumber: phone, email, password },
    nextIp(),
    browser,
  )
  return { response, ms: Date.now() - started }
}

async function accountEmails(email: string) {
  const [user] = await t.database.db.select({ id: profiles.id }).from(profiles).where(eq(profiles.email, email))
  if (!user) throw new Error(`no account for ${email}`)
  return t.database.db.select().from(notifications).where(eq(notifications.userId, user.id))
}

const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email))

/** The link of `pattern` in the one e-mail to `email` (quoted-printable soft breaks undone). */
function linkIn(email: string, pattern: RegExp): string {
  const [mail] = mailsTo(email)
  const text = (mail?.raw ?? '').replace(/=\r?\n/g, '').replace(/=3D/g, '=')
  const link = text.match(/https?:\/\/[^\s"<>]+/g)?.find((l) => pattern.test(l))
  if (!link) throw new Error(`no link matching ${pattern} for ${email}`)
  return link
}

/** One delivery sweep with the test clock moved on by `ms`. */
async function sweepAfter(ms: number) {
  t.clock.advance(ms)
  return deliverNotifications(depsOf(t), t.clock.now())
}

describe('account e-mails through the outbox', () => {
  it('sign-up with SMTP working: the confirmation is sent before the answer, then its text is wiped', async () => {
    await smtp.mode('ok')
    const email = 'rita.ok@example.com'
    const { response } = await signUp(email)
    expect(response.statusCode, response.body).toBe(201)
    expect(mailsTo(email)).toHaveLength(1)
    const [row] = await accountEmails(email)
    expect(row).toMatchObject({ kind: 'email_confirmation', status: 'sent', attempts: 1, channel: 'email' })
    expect(row?.body).toBe(redactedAccountEmailBody)
    expect(row?.html).toBeNull()
    // The link works.
    const link = new URL(linkIn(email, /verify-email/))
    const confirmed = await t.app.inject({ method: 'GET', url: link.pathname + link.search })
    expect(confirmed.statusCode).toBe(302)
    // Nothing is left for the sweep.
    expect((await sweepAfter(accountEmailLeaseMs + 60_000)).processed).toBe(0)
    expect(mailsTo(email)).toHaveLength(1)
  })

  it('sign-up with SMTP refusing: answered at once, the e-mail kept, then sent exactly once when SMTP is back', async () => {
    await smtp.mode('refuse')
    const email = 'rita.refused@example.com'
    const { response, ms } = await signUp(email)
    expect(response.statusCode, response.body).toBe(201)
    expect(ms).toBeLessThan(accountEmailWaitMs + 2000)
    const [row] = await accountEmails(email)
    expect(row).toMatchObject({ kind: 'email_confirmation', status: 'pending', attempts: 1 })
    expect(row?.lastError).toMatch(/ECONNREFUSED/)
    expect(row?.body).toMatch(/verify-email/) // kept until it is sent
    expect(mailsTo(email)).toHaveLength(0)

    // Still refusing at the retry: one more attempt counted, nothing sent.
    expect((await sweepAfter(60_000)).processed).toBe(0)
    expect((await accountEmails(email))[0]).toMatchObject({ status: 'pending', attempts: 2 })

    await smtp.mode('ok')
    expect((await sweepAfter(2 * 60_000)).processed).toBe(1)
    expect((await sweepAfter(60 * 60_000)).processed).toBe(0)
    expect(mailsTo(email)).toHaveLength(1)
    expect((await accountEmails(email))[0]).toMatchObject({
      status: 'sent',
      attempts: 3,
      body: redactedAccountEmailBody,
    })

    // The link sent late still confirms the account, and the account then signs in.
    const link = new URL(linkIn(email, /verify-email/))
    expect((await t.app.inject({ method: 'GET', url: link.pathname + link.search })).statusCode).toBe(302)
    const signIn = await postFrom(t.app, '/api/auth/sign-in', { email, password }, nextIp())
    expect(signIn.statusCode, signIn.body).toBe(200)
    expect(responseCookies(signIn)).toMatch(/session_token=/)
  })

  it('password reset with SMTP never greeting: answered within the wait, the sweep leaves the attempt alone, one e-mail in the end', async () => {
    await smtp.mode('ok')
    const email = 'rita.hang@example.com'
    expect((await signUp(email)).response.statusCode).toBe(201)
    const link = new URL(linkIn(email, /verify-email/))
    expect((await t.app.inject({ method: 'GET', url: link.pathname + link.search })).statusCode).toBe(302)

    await smtp.mode('hang')
    const started = Date.now()
    const asked = await postFrom(t.app, '/api/auth/forgot-password', { email }, nextIp())
    const ms = Date.now() - started
    expect(asked.statusCode, asked.body).toBe(200)
    expect(ms).toBeGreaterThanOrEqual(accountEmailWaitMs - 100)
    expect(ms).toBeLessThan(accountEmailWaitMs + 2000)
    const reset = () => accountEmails(email).then((rows) => rows.find((r) => r.kind === 'password_reset'))
    expect(await reset()).toMatchObject({ status: 'pending', attempts: 0 }) // its first attempt is still waiting

    // Within the lease the sweep does not take the row its request is still sending.
    expect((await sweepAfter(30_000)).processed).toBe(0)
    // nodemailer gives up on the silent server after its 10 s greeting timeout: the attempt is counted.
    const deadline = Date.now() + 20_000
    while ((await reset())?.attempts === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
    expect(await reset()).toMatchObject({ status: 'pending', attempts: 1 })
    expect((await reset())?.lastError).toMatch(/greeting/i)

    await smtp.mode('ok')
    expect((await sweepAfter(accountEmailLeaseMs)).processed).toBe(1)
    expect((await sweepAfter(60 * 60_000)).processed).toBe(0)
    const resets = mailsTo(email).filter((m) => /reset-password/.test(m.raw.replace(/=\r?\n/g, '')))
    expect(resets).toHaveLength(1)
    expect(await reset()).toMatchObject({ status: 'sent', attempts: 2, body: redactedAccountEmailBody })
    const pending = await t.database.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.recipient, email), eq(notifications.status, 'pending')))
    expect(pending).toHaveLength(0)
  }, 40_000)
})
