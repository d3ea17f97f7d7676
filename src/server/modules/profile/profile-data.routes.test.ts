// 'Meus dados' (LGPD): the export holds the person's rows and nobody else's; deletion asks the password, is refused
// while anything binds the customer, and otherwise erases the person while the fiscal records stay intact.
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PersonalDataExport } from '../../../domain/contracts/personal-data'
import { accounts, profiles, sessions, verifications } from '../../db/schema/auth'
import { payments, subscriptions } from '../../db/schema/billing'
import { notifications, platformEvents } from '../../db/schema/lifecycle'
import { auditLog, rateLimits, webhookEvents, whatsappVerifications } from '../../db/schema/platform'
import { cardSimulatorSessions } from '../../db/schema/stripe'
import { createTestApp, type TestApp } from '../../test/test-app'
import {
  changeWhatsApp,
  createUser,
  get,
  origin,
  post,
  signIn,
  type TestUser,
  uniquePhone,
  verifyPhone,
} from '../../test/users'
import { send } from '../admin/admin-fixtures'
import { openShop } from '../billing/test-fixtures'
import { depsOf, insertPayment, insertSubscription } from '../lifecycle/lifecycle-fixtures'
import { runBillingTick } from '../lifecycle/lifecycle.service'

let t: TestApp
let admin: TestUser
let maria: TestUser
let joao: TestUser
let mariaOldPhone: string
let mariaSubscriptionId: string
let joaoSubscriptionId: string

const start = '2026-03-10T12:00:00.000Z'

/** Every table that can hold something about a person, each row as JSON, in a stable order. */
async function dump(options: { rateLimits?: boolean } = {}) {
  const db = t.database.db
  const tables = {
    profiles: await db.select().from(profiles),
    accounts: await db.select().from(accounts),
    sessions: await db.select().from(sessions),
    verifications: await db.select().from(verifications),
    subscriptions: await db.select().from(subscriptions),
    payments: await db.select().from(payments),
    notifications: await db.select().from(notifications),
    platformEvents: await db.select().from(platformEvents),
    auditLog: await db.select().from(auditLog),
    whatsappVerifications: await db.select().from(whatsappVerifications),
    webhookEvents: await db.select().from(webhookEvents),
    cardSimulatorSessions: await db.select().from(cardSimulatorSessions),
    ...(options.rateLimits ? { rateLimits: await db.select().from(rateLimits) } : {}),
  }
  return Object.fromEntries(
    Object.entries(tables).map(([name, rows]) => [name, rows.map((r) => JSON.stringify(r)).sort()]),
  ) as Record<keyof typeof tables, string[]>
}

function deleteAccount(password: string, cookie: string | undefined = maria.cookie) {
  return post(t.app, '/api/profile/delete', { password }, cookie)
}

function exportOf(user: TestUser) {
  return get(t.app, '/api/profile/export', user.cookie)
}

beforeAll(async () => {
  t = await createTestApp()
  t.clock.set(start)
  const db = t.database.db
  admin = await openShop(t, 'Ana Administradora')
  maria = await createUser(t, { name: 'Zuleica Antiga' })
  joao = await createUser(t, { name: 'Joaquim Fica' })
  mariaOldPhone = maria.phone

  // Maria's history: a name and company change, a new WhatsApp number, a PIX subscription paid and later canceled.
  const patched = await t.app.inject({
    method: 'PATCH',
    url: '/api/profile',
    payload: { name: 'Zuleica Apagável', company_name: 'Apagável ME' },
    headers: { origin, cookie: maria.cookie },
  })
  expect(patched.statusCode, patched.body).toBe(200)
  const newPhone = uniquePhone()
  const browser = await verifyPhone(t, newPhone, maria.cookie)
  const changed = await changeWhatsApp(t, maria.cookie, newPhone, browser)
  expect(changed.statusCode, changed.body).toBe(200)
  maria.phone = newPhone

  for (const user of [maria, joao]) {
    const checkout = await post(t.app, '/api/checkout/pix', { plan_id: 'plan_basic' }, user.cookie)
    expect(checkout.statusCode, checkout.body).toBe(200)
    if (user === maria) mariaSubscriptionId = checkout.json().subscription.id
    else joaoSubscriptionId = checkout.json().subscription.id
  }
  await runBillingTick(depsOf(t))

  // A Stripe event that names each of them (the payloads providers send carry e-mail and name).
  await db.insert(webhookEvents).values([
    {
      id: 'evt_lgpd_maria',
      provider: 'stripe',
      type: 'customer.updated',
      payload: { data: { object: { id: 'cus_maria', email: maria.email, name: 'Zuleica Apagável', phone: null } } },
    },
    {
      id: 'evt_lgpd_joao',
      provider: 'stripe',
      type: 'customer.updated',
      payload: { data: { object: { id: 'cus_joao', email: joao.email, name: 'Joaquim Fica' } } },
    },
  ])
})
afterAll(async () => {
  await t.close()
})

describe('GET /api/profile/export (Baixar meus dados)', () => {
  it('answers 401 without a session', async () => {
    const response = await get(t.app, '/api/profile/export')
    expect(response.statusCode).toBe(401)
  })

  it("downloads the person's own rows as a JSON attachment, never another person's, never a secret", async () => {
    const response = await exportOf(maria)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.headers['content-disposition']).toBe('attachment; filename="meus-dados-2026-03-10.json"')
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    const data = response.json() as PersonalDataExport
    expect(data.profile).toMatchObject({
      id: maria.id,
      name: 'Zuleica Apagável',
      email: maria.email,
      companyName: 'Apagável ME',
      whatsappNumber: maria.phone,
      role: 'user',
    })
    expect(data.loginMethods).toEqual([expect.objectContaining({ method: 'email_password' })])
    expect(data.sessions.length).toBeGreaterThan(0)
    expect(data.subscriptions.map((s) => s.id)).toEqual([mariaSubscriptionId])
    const mariaPayments = await t.database.db
      .select()
      .from(payments)
      .where(eq(payments.subscriptionId, mariaSubscriptionId))
    expect(data.payments.map((p) => p.id)).toEqual(mariaPayments.map((p) => p.id))
    expect(data.payments[0]).toMatchObject({ amountCents: 9_900, status: 'pending_pix' })
    expect(data.notifications.length).toBeGreaterThan(0)
    for (const n of data.notifications) expect([maria.email, maria.phone]).toContain(n.recipient)
    expect(data.auditLog.map((a) => a.action)).toEqual(
      expect.arrayContaining(['profile.update', 'profile.whatsapp_change', 'subscription.checkout_pix']),
    )
    const phones = data.whatsappVerifications.map((v) => v.phoneNumber)
    expect(phones).toEqual(expect.arrayContaining([mariaOldPhone, maria.phone]))
    for (const v of data.whatsappVerifications) expect(v).not.toHaveProperty('codeHash')

    // Nothing of João's, and no secret: the password hash, session tokens and code hashes are nowhere in the file.
    const text = response.body
    for (const foreign of [joao.id, joao.email, joao.phone, 'Joaquim Fica', joaoSubscriptionId, admin.email])
      expect(text).not.toContain(foreign)
    const secrets = [
      ...(await t.database.db.select({ s: accounts.password }).from(accounts)).map((r) => r.s),
      ...(await t.database.db.select({ s: sessions.token }).from(sessions)).map((r) => r.s),
      ...(await t.database.db.select({ s: whatsappVerifications.codeHash }).from(whatsappVerifications)).map(
        (r) => r.s,
      ),
    ].filter((s): s is string => Boolean(s))
    expect(secrets.length).toBeGreaterThan(3)
    for (const secret of secrets) expect(text).not.toContain(secret)
    expect(text).not.toMatch(/"(password|token|codeHash|accessToken|refreshToken|idToken)"/)
  })

  it("shows João only João's subscription", async () => {
    const data = (await exportOf(joao)).json() as PersonalDataExport
    expect(data.subscriptions.map((s) => s.id)).toEqual([joaoSubscriptionId])
    expect(JSON.stringify(data)).not.toContain(maria.email)
  })
})

describe('POST /api/profile/delete (Excluir minha conta): refusals change nothing', () => {
  it('answers 401 without a session', async () => {
    const response = await post(t.app, '/api/profile/delete', { password: maria.password })
    expect(response.statusCode).toBe(401)
  })

  it('refuses while the subscription awaits its first PIX payment', async () => {
    const before = await dump()
    const response = await deleteAccount(maria.password)
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({
      code: 'account_has_live_subscription',
      message: expect.stringContaining('assinatura em andamento'),
    })
    expect(await dump()).toEqual(before)
  })

  it('refuses while the subscription is active, also with its cancellation scheduled', async () => {
    const [invoice] = await t.database.db
      .select()
      .from(payments)
      .where(eq(payments.subscriptionId, mariaSubscriptionId))
    const confirmed = await send(t.app, 'POST', `/api/admin/payments/${invoice!.id}/confirm`, {
      cookie: admin.cookie,
      body: { amount_received_cents: 9_900 },
    })
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    await runBillingTick(depsOf(t))
    let before = await dump()
    let response = await deleteAccount(maria.password)
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({ code: 'account_has_live_subscription' })
    expect(await dump()).toEqual(before)

    const canceled = await post(
      t.app,
      '/api/subscriptions/cancel',
      { subscription_id: mariaSubscriptionId },
      maria.cookie,
    )
    expect(canceled.statusCode, canceled.body).toBe(200)
    await runBillingTick(depsOf(t))
    before = await dump()
    response = await deleteAccount(maria.password)
    expect(response.statusCode).toBe(409)
    expect(await dump()).toEqual(before)
  })

  it('refuses a wrong password, even once nothing binds the customer', async () => {
    // The period ends: the scheduled cancellation happens (and tells Maria), the platform hears it ended.
    const [sub] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.id, mariaSubscriptionId))
    t.clock.set(new Date(sub!.currentPeriodEnd.getTime() + 60_000))
    await runBillingTick(depsOf(t))
    const [ended] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.id, mariaSubscriptionId))
    expect(ended?.status).toBe('canceled')

    const before = await dump()
    const response = await deleteAccount('senha-errada-123')
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({
      code: 'password_incorrect',
      message: 'Senha incorreta. Confira e tente novamente.',
    })
    expect(await dump()).toEqual(before)
    expect((await get(t.app, '/api/profile', maria.cookie)).statusCode).toBe(200)
  })

  it('refuses while an invoice is open, even on a canceled subscription', async () => {
    const carla = await createUser(t, { name: 'Carla Devedora' })
    const sub = await insertSubscription(t.database.db, {
      userId: carla.id,
      status: 'canceled',
      currentPeriodEnd: new Date('2026-04-01T12:00:00.000Z'),
    })
    await insertPayment(t.database.db, {
      subscriptionId: sub.id,
      dueDate: new Date('2026-04-01T12:00:00.000Z'),
      status: 'review',
      amountCents: 9_900,
    })
    const before = await dump()
    const response = await deleteAccount(carla.password, carla.cookie)
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({
      code: 'account_has_open_invoice',
      message: expect.stringContaining('fatura em aberto'),
    })
    expect(await dump()).toEqual(before)
  })

  it('refuses the last admin, and lets an admin go once another one exists', async () => {
    const before = await dump()
    const response = await deleteAccount(admin.password, admin.cookie)
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({
      code: 'last_admin_delete',
      message: expect.stringContaining('último administrador'),
    })
    expect(await dump()).toEqual(before)

    const second = await createUser(t, { admin: true, name: 'Bia Segunda Admin' })
    const gone = await deleteAccount(second.password, second.cookie)
    expect(gone.statusCode, gone.body).toBe(200)
    const [row] = await t.database.db.select().from(profiles).where(eq(profiles.id, second.id))
    expect(row).toMatchObject({ roleId: 2, name: 'Conta excluída' })
    // Now the first admin is the last one again.
    expect((await deleteAccount(admin.password, admin.cookie)).json()).toMatchObject({ code: 'last_admin_delete' })
  })
})

describe('POST /api/profile/delete: erasure', () => {
  it('anonymises the person, keeps the fiscal records intact, ends every session and writes an audit row', async () => {
    const db = t.database.db
    const second = await signIn(t.app, maria.email, maria.password) // another browser, signed in too
    const before = await dump({ rateLimits: true })
    const pii = [maria.email, maria.phone, mariaOldPhone, 'Zuleica Antiga', 'Zuleica Apagável', 'Apagável ME']
    // Before: the person is all over the database (profile, audit, notifications, platform events, provider events).
    const all = (d: Record<string, string[]>) => Object.values(d).flat().join('\n')
    for (const value of pii) expect(all(before)).toContain(value)
    expect(before.notifications.some((n) => n.includes(maria.email))).toBe(true)
    expect(before.platformEvents.some((e) => e.includes(maria.email))).toBe(true)

    const response = await deleteAccount(maria.password)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({ ok: true })
    const cleared = [response.headers['set-cookie']].flat().join('\n')
    expect(cleared).toMatch(/session_token=;/)

    const after = await dump({ rateLimits: true })
    // Nothing personal is left anywhere.
    for (const value of pii) expect(all(after)).not.toContain(value)

    // The profile is a tombstone; its e-mail is unique and undeliverable.
    const [profile] = await db.select().from(profiles).where(eq(profiles.id, maria.id))
    expect(profile).toMatchObject({
      name: 'Conta excluída',
      email: `excluido-${maria.id}@invalid`,
      companyName: '',
      whatsappNumber: '',
      image: null,
      roleId: 2,
    })
    expect(profile?.deletedAt).toEqual(t.clock.now())
    expect(await db.select().from(accounts).where(eq(accounts.userId, maria.id))).toEqual([])
    expect(await db.select().from(sessions).where(eq(sessions.userId, maria.id))).toEqual([])
    for (const cookie of [maria.cookie, second]) expect((await get(t.app, '/api/profile', cookie)).statusCode).toBe(401)

    // Subscriptions and payments, the fiscal records, are untouched: same rows, same amounts.
    expect(after.subscriptions).toEqual(before.subscriptions)
    expect(after.payments).toEqual(before.payments)
    const paid = await db.select().from(payments).where(eq(payments.subscriptionId, mariaSubscriptionId))
    expect(paid.map((p) => [p.amountCents, p.status])).toEqual([[9_900, 'paid']])

    // Notifications and audit rows are kept (same count), without the person; one audit row says what happened.
    expect(after.notifications).toHaveLength(before.notifications.length)
    const mine = await db.select().from(notifications).where(eq(notifications.userId, maria.id))
    expect(mine.length).toBeGreaterThan(0)
    for (const n of mine)
      expect(n).toMatchObject({ recipient: `excluido-${maria.id}@invalid`, html: null, subject: null })
    expect(after.auditLog).toHaveLength(before.auditLog.length + 1)
    const [deletion] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'profile.delete'), eq(auditLog.entityId, maria.id)))
    expect(deletion).toMatchObject({ actorId: maria.id, entity: 'profile', entityId: maria.id })
    expect(deletion?.before).toMatchObject({ subscriptions: 1, payments: 1 })
    const profileAudits = await db.select().from(auditLog).where(eq(auditLog.entityId, maria.id))
    const update = profileAudits.find((a) => a.action === 'profile.update')
    expect(update?.before).toEqual({ name: '[removido]', companyName: '[removido]' })

    // João's rows did not move.
    const joaoRows = (d: Record<string, string[]>) =>
      Object.values(d)
        .flat()
        .filter((r) => r.includes(joao.id) || r.includes(joao.email) || r.includes(joaoSubscriptionId))
    expect(joaoRows(after)).toEqual(joaoRows(before))
    const [joaoEvent] = await db.select().from(webhookEvents).where(eq(webhookEvents.id, 'evt_lgpd_joao'))
    expect(JSON.stringify(joaoEvent?.payload)).toContain('Joaquim Fica')
  })

  it('the old credentials sign nobody in, and the e-mail can sign up again', async () => {
    const signInOld = await post(t.app, '/api/auth/sign-in', { email: maria.email, password: maria.password })
    expect(signInOld.statusCode).toBe(401)
    expect(signInOld.json()).toMatchObject({ code: 'invalid_credentials' })
    const placeholder = await post(t.app, '/api/auth/sign-in', {
      email: `excluido-${maria.id}@invalid`,
      password: maria.password,
    })
    expect(placeholder.statusCode).toBeGreaterThanOrEqual(400)

    const again = await createUser(t, { email: maria.email, name: 'Zuleica Nova' })
    expect(again.id).not.toBe(maria.id)
    const data = (await exportOf(again)).json() as PersonalDataExport
    expect(data.profile).toMatchObject({ email: maria.email, name: 'Zuleica Nova' })
    expect(data.subscriptions).toEqual([])
    expect(data.payments).toEqual([])
  })

  it('the billing tick never writes to an erased account', async () => {
    t.clock.advance(60 * 60_000)
    await runBillingTick(depsOf(t))
    const rows = await t.database.db.select().from(notifications).where(eq(notifications.userId, maria.id))
    expect(rows.every((n) => n.status !== 'pending')).toBe(true)
    expect(rows.every((n) => !n.recipient.includes('@example.com'))).toBe(true)
  })
})
