// Issue 16 through the HTTP API, with the app pointed at the local Graph API fake (test support): codes by
// authentication template, billing templates and their e-mail fallback, signed delivery receipts, and billing
// answered in the chat.
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { PixCheckoutResult, PixCharge } from '../../../domain/contracts/billing'
import type { AdminWhatsAppMessage, CodeStatus } from '../../../domain/contracts/whatsapp'
import { formatBRL } from '../../../domain/money'
import { pixTxidFor } from '../../../domain/pix-txid'
import { profiles } from '../../db/schema/auth'
import { payments, subscriptions } from '../../db/schema/billing'
import { notifications } from '../../db/schema/lifecycle'
import { whatsappMessageStatuses, whatsappMessages } from '../../db/schema/whatsapp'
import {
  type FakeGraph,
  fakeGraphVerifyToken,
  inboundText,
  isPng,
  postWebhook,
  startFakeGraph,
  statusUpdate,
} from '../../test/fake-graph/fake-graph'
import { type FakePsp, startFakePsp } from '../../test/fake-psp/fake-psp'
import { createTestApp, type TestApp } from '../../test/test-app'
import { get, lastEmailLink, origin, responseCookies, signIn, type TestUser, uniquePhone } from '../../test/users'
import { configurePix, seedPlans } from '../billing/test-fixtures'
import {
  depsOf,
  insertCustomer,
  insertPayment,
  insertSubscription,
  notificationsOf,
} from '../lifecycle/lifecycle-fixtures'
import { billingTemplates, formatDateBR } from '../lifecycle/notification-templates'
import { qrPng } from './chat.service'
import { deliverNotifications, detectNotifications } from '../lifecycle/notifications.service'

let t: TestApp
let graph: FakeGraph
let ipCounter = 0

const approved = {
  codigo_verificacao: { bodyParams: 1, urlButton: true },
  ...Object.fromEntries(Object.values(billingTemplates).map((b) => [b.name, { bodyParams: b.params.length }])),
}

beforeAll(async () => {
  graph = await startFakeGraph({ templates: approved })
  t = await createTestApp({ env: graph.env() })
  await seedPlans(t.database.db)
  await configurePix(t.database.db)
})
afterAll(async () => {
  await t?.close()
  await graph?.close()
})
beforeEach(() => {
  graph.calls.length = 0
  graph.uploads.length = 0
  graph.failNext.length = 0
  graph.failNextUpload.length = 0
})

/** A fresh client address per request that counts against per-IP limits. */
function nextIp(): string {
  ipCounter += 1
  return `10.16.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`
}

function postFrom(url: string, payload: unknown, cookie?: string, app: TestApp = t) {
  return app.app.inject({
    method: 'POST',
    url,
    payload: payload as Record<string, unknown>,
    remoteAddress: nextIp(),
    headers: { origin, ...(cookie ? { cookie } : {}) },
  })
}

/** The code the fake received in the last authentication template to the number. */
function codeSentTo(phone: string): string {
  const call = graph.calls.filter((c) => c.body.to === phone && c.body.type === 'template').at(-1)
  const template = call?.body.template as { components: { parameters: { text: string }[] }[] } | undefined
  const code = template?.components[0]?.parameters[0]?.text
  if (!code) throw new Error(`no code template sent to ${phone}`)
  return code
}

/** Sign-up through the API with the code read from the fake Graph API (not the outbox), signed in. */
async function signUpCustomer(name: string, app: TestApp = t): Promise<TestUser> {
  const phone = uniquePhone()
  const email = `wa${phone}@example.com`
  const password = 'senha-segura-123'
  const sent = await postFrom('/api/whatsapp/send-code', { phone_number: phone }, undefined, app)
  expect(sent.statusCode).toBe(200)
  // The verification belongs to the browser that asked for the code (its cookie).
  const browser = responseCookies(sent)
  const verified = await postFrom(
    '/api/whatsapp/verify-code',
    { phone_number: phone, code: codeSentTo(phone) },
    browser,
    app,
  )
  expect(verified.statusCode, verified.body).toBe(200)
  const signUp = await postFrom(
    '/api/auth/sign-up',
    { name, companyName: 'Loja', whatsappNumber: phone, email, password },
    browser,
    app,
  )
  expect(signUp.statusCode, signUp.body).toBe(201)
  const link = new URL(await lastEmailLink(app.outboxPath, email, /verify-email/))
  expect((await app.app.inject({ method: 'GET', url: link.pathname + link.search })).statusCode).toBe(302)
  const cookie = await signIn(app.app, email, password)
  const [row] = await app.database.db.select({ id: profiles.id }).from(profiles).where(eq(profiles.email, email))
  return { id: row!.id, email, password, phone, cookie }
}

async function messagesOf(phone: string) {
  return t.database.db.select().from(whatsappMessages).where(eq(whatsappMessages.phone, phone))
}

async function billingRows(userId: string) {
  const subs = await t.database.db.select().from(subscriptions).where(eq(subscriptions.userId, userId))
  const pays = await t.database.db
    .select({ payment: payments })
    .from(payments)
    .innerJoin(subscriptions, eq(subscriptions.id, payments.subscriptionId))
    .where(eq(subscriptions.userId, userId))
  return { subscriptions: subs, payments: pays.map((p) => p.payment) }
}

describe('sign-up codes by template', () => {
  it('sends the authentication template with the code as body and copy-code button parameter, and it verifies', async () => {
    const phone = uniquePhone()
    const sent = await postFrom('/api/whatsapp/send-code', { phone_number: phone })
    expect(sent.statusCode, sent.body).toBe(200)

    expect(graph.calls).toHaveLength(1)
    const call = graph.calls[0]!
    const code = codeSentTo(phone)
    expect(code).toMatch(/^\d{6}$/)
    expect(call.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: phone,
      type: 'template',
      template: {
        name: 'codigo_verificacao',
        language: { code: 'pt_BR' },
        components: [
          { type: 'body', parameters: [{ type: 'text', text: code }] },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: code }] },
        ],
      },
    })
    const [kept] = await messagesOf(phone)
    expect(kept).toMatchObject({ direction: 'outbound', kind: 'code', providerMessageId: call.id, status: 'accepted' })
    expect(kept?.body).not.toContain(code)

    const verified = await postFrom('/api/whatsapp/verify-code', { phone_number: phone, code }, responseCookies(sent))
    expect(verified.statusCode, verified.body).toBe(200)
  })

  it('tells the sign-up page, in Portuguese, when Meta reports the code undeliverable', async () => {
    const phone = uniquePhone()
    const sent = await postFrom('/api/whatsapp/send-code', { phone_number: phone })
    const wamid = graph.calls[0]!.id!
    const status = async (cookie?: string) =>
      (await get(t.app, `/api/whatsapp/code-status?phone_number=${phone}`, cookie)).json() as CodeStatus
    const browser = responseCookies(sent)
    expect(await status(browser)).toEqual({ status: 'pending', reason: null })
    // Another browser learns nothing about this number's code.
    expect(await status()).toEqual({ status: 'none', reason: null })

    const posted = await postWebhook(
      t.app,
      statusUpdate({
        id: wamid,
        recipient: phone,
        status: 'failed',
        error: { code: 131026, title: 'Message undeliverable' },
      }),
    )
    expect(posted.statusCode).toBe(200)

    expect(await status(browser)).toEqual({
      status: 'failed',
      reason: expect.stringContaining('confira se o número está correto'),
    })
    const [kept] = await messagesOf(phone)
    expect(kept).toMatchObject({ status: 'failed', errorCode: 131026, errorTitle: 'Message undeliverable' })
  })

  it('answers "none" for a number without a recent code', async () => {
    const response = await get(t.app, `/api/whatsapp/code-status?phone_number=${uniquePhone()}`)
    expect(response.json()).toEqual({ status: 'none', reason: null })
  })
})

describe('webhook subscription check (GET)', () => {
  const check = (query: string) => t.app.inject({ method: 'GET', url: `/api/webhooks/whatsapp?${query}` })

  it('answers the challenge as text/plain when the verify token matches', async () => {
    const response = await check(`hub.mode=subscribe&hub.verify_token=${fakeGraphVerifyToken}&hub.challenge=1158201444`)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/plain/)
    expect(response.body).toBe('1158201444')
  })

  it.each([
    ['a wrong token', 'hub.mode=subscribe&hub.verify_token=errado&hub.challenge=1'],
    ['no token', 'hub.mode=subscribe&hub.challenge=1'],
    ['another mode', `hub.mode=unsubscribe&hub.verify_token=${fakeGraphVerifyToken}&hub.challenge=1`],
  ])('refuses %s with 403', async (_name, query) => {
    const response = await check(query)
    expect(response.statusCode).toBe(403)
    expect(response.body).not.toContain('1158201444')
  })
})

describe('billing notifications by template', () => {
  async function customerWithInvoice(options: { whatsapp: string }) {
    const db = t.database.db
    const customer = await insertCustomer(db, { whatsapp: options.whatsapp, name: 'Ana Template' })
    const dueDate = new Date(t.clock.now().getTime() + 3 * 86_400_000)
    const subscription = await insertSubscription(db, {
      userId: customer.id,
      status: 'pending_pix',
      currentPeriodEnd: dueDate,
    })
    const payment = await insertPayment(db, {
      subscriptionId: subscription.id,
      dueDate,
      amountCents: 19_900,
      createdAt: t.clock.now(),
    })
    return { customer, payment }
  }

  it('sends the invoice as the utility template, keeps the wamid and records receipts from the signed webhook', async () => {
    const phone = uniquePhone()
    const { customer, payment } = await customerWithInvoice({ whatsapp: phone })
    const deps = depsOf(t)
    await detectNotifications(deps, t.clock.now())
    await deliverNotifications(deps, t.clock.now())

    const call = graph.calls.find((c) => c.body.to === phone)
    expect(call?.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: phone,
      type: 'template',
      template: {
        name: 'fatura_disponivel',
        language: { code: 'pt_BR' },
        components: [
          {
            type: 'body',
            parameters: [
              'Ana Template',
              'Profissional',
              formatBRL(19_900),
              formatDateBR(payment.dueDate),
              'http://localhost:3000/dashboard/payments',
            ].map((text) => ({ type: 'text', text })),
          },
        ],
      },
    })
    const [whatsappRow] = (await notificationsOf(t.database.db, customer.id)).filter((n) => n.channel === 'whatsapp')
    expect(whatsappRow).toMatchObject({ status: 'sent', providerMessageId: call?.id, deliveryStatus: 'accepted' })

    for (const status of ['sent', 'delivered', 'read'] as const) {
      const posted = await postWebhook(t.app, statusUpdate({ id: call!.id!, recipient: phone, status }))
      expect(posted.statusCode).toBe(200)
    }
    // A late 'delivered' (Meta does not promise the order) neither goes back nor doubles the history.
    await postWebhook(t.app, statusUpdate({ id: call!.id!, recipient: phone, status: 'delivered' }))

    const [after] = await t.database.db.select().from(notifications).where(eq(notifications.id, whatsappRow!.id))
    expect(after?.deliveryStatus).toBe('read')
    const [message] = await messagesOf(phone)
    expect(message).toMatchObject({ kind: 'notification', notificationId: whatsappRow!.id, status: 'read' })
    const history = await t.database.db
      .select({ status: whatsappMessageStatuses.status })
      .from(whatsappMessageStatuses)
      .where(eq(whatsappMessageStatuses.messageId, message!.id))
    expect(history.map((h) => h.status).sort()).toEqual(['delivered', 'read', 'sent'])
  })

  it('falls back to e-mail when Meta rejects the template, and marks the notification so (no retries)', async () => {
    const phone = uniquePhone()
    graph.templates.delete('fatura_disponivel')
    try {
      const { customer } = await customerWithInvoice({ whatsapp: phone })
      const deps = depsOf(t)
      await detectNotifications(deps, t.clock.now())
      await deliverNotifications(deps, t.clock.now())

      const rows = await notificationsOf(t.database.db, customer.id)
      const whatsappRow = rows.find((n) => n.channel === 'whatsapp')
      const emailRow = rows.find((n) => n.channel === 'email')
      expect(whatsappRow).toMatchObject({ status: 'failed', deliveryStatus: 'fallback_email', attempts: 1 })
      expect(whatsappRow?.deliveryError).toContain('Template name does not exist')
      expect(emailRow).toMatchObject({ status: 'sent', kind: 'invoice_created' })
      const [message] = await messagesOf(phone)
      expect(message).toMatchObject({ status: 'failed', errorCode: 132001, template: 'fatura_disponivel' })

      // The next sweep does not try the template again.
      graph.calls.length = 0
      t.clock.advance(60 * 60_000)
      await deliverNotifications(deps, t.clock.now())
      expect(graph.calls.filter((c) => c.body.to === phone)).toEqual([])
    } finally {
      graph.templates.set('fatura_disponivel', { bodyParams: 5 })
    }
  })
})

describe('webhook signature', () => {
  it('refuses a missing, wrong or other-secret signature with 401, and nothing changes', async () => {
    const phone = uniquePhone()
    await postFrom('/api/whatsapp/send-code', { phone_number: phone })
    const wamid = graph.calls[0]!.id!
    const before = await messagesOf(phone)
    const update = statusUpdate({ id: wamid, recipient: phone, status: 'failed', error: { code: 131026, title: 'x' } })
    const inbound = inboundText({ from: phone, text: '2ª via' }).payload

    for (const payload of [update, inbound]) {
      for (const options of [{ signature: null }, { signature: 'sha256=00' }, { secret: 'outro-segredo' }]) {
        const response = await postWebhook(t.app, payload, options)
        expect(response.statusCode).toBe(401)
        expect(JSON.parse(response.body)).toMatchObject({ code: 'whatsapp_signature_invalid' })
      }
    }
    // Body changed after signing: the signature no longer matches.
    const raw = JSON.stringify(update)
    const { signBody } = await import('../../test/fake-graph/fake-graph')
    const tampered = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks/whatsapp',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signBody(raw) },
      payload: raw.replace('failed', 'read'),
    })
    expect(tampered.statusCode).toBe(401)

    expect(await messagesOf(phone)).toEqual(before)
    const history = await t.database.db
      .select()
      .from(whatsappMessageStatuses)
      .where(eq(whatsappMessageStatuses.messageId, before[0]!.id))
    expect(history).toEqual([])
    expect(graph.calls.filter((c) => c.body.type === 'text')).toEqual([])
  })
})

describe('billing answered in the chat', () => {
  let maria: TestUser
  let checkout: PixCheckoutResult

  beforeAll(async () => {
    maria = await signUpCustomer('Maria Chat')
    const response = await postFrom('/api/checkout/pix', { plan_id: 'plan_basic' }, maria.cookie)
    expect(response.statusCode, response.body).toBe(200)
    checkout = response.json()
  })

  it("answers '2ª via' with the amount, the due date and the same BR Code the dashboard shows", async () => {
    const dashboard = (await get(t.app, `/api/payments/${checkout.payment.id}/pix`, maria.cookie)).json() as PixCharge
    const before = await billingRows(maria.id)

    const { id, payload } = inboundText({ from: maria.phone, text: '2ª Via' })
    const response = await postWebhook(t.app, payload)
    expect(response.statusCode).toBe(200)

    const texts = graph.textsTo(maria.phone)
    expect(texts).toHaveLength(2)
    expect(texts[0]).toContain(`Valor: ${formatBRL(dashboard.amountCents)}`)
    expect(texts[0]).toContain(`Vencimento: ${formatDateBR(new Date(dashboard.dueDate))}`)
    expect(texts[1]).toBe(dashboard.brCode)
    expect(await billingRows(maria.id)).toEqual(before)

    // The QR Code goes as an image between the two texts: a PNG uploaded to the media endpoint, sent by its id.
    expect(graph.uploads).toHaveLength(1)
    const [upload] = graph.uploads
    expect(upload!.fields).toMatchObject({ messaging_product: 'whatsapp', type: 'image/png' })
    expect(upload!.file?.contentType).toBe('image/png')
    expect(isPng(upload!.file!.bytes)).toBe(true)
    expect(upload!.file!.bytes).toEqual(await qrPng(dashboard.brCode))
    expect(graph.imagesTo(maria.phone)).toEqual([{ id: upload!.id, caption: 'QR Code PIX da fatura' }])
    const order = graph.calls.filter((c) => c.id).map((c) => (c.url?.endsWith('/media') ? 'upload' : c.body.type))
    expect(order).toEqual(['text', 'upload', 'image', 'text'])

    const kept = await messagesOf(maria.phone)
    const inbound = kept.find((m) => m.providerMessageId === id)
    expect(inbound).toMatchObject({ direction: 'inbound', userId: maria.id, body: '2ª Via', status: 'received' })
    const replies = kept.filter((m) => m.kind === 'reply')
    expect(replies.map((r) => r.body)).toEqual(texts)
    expect(replies.every((r) => r.userId === maria.id && r.providerMessageId?.startsWith('wamid.'))).toBe(true)
    const images = kept.filter((m) => m.kind === 'image')
    expect(images).toHaveLength(1)
    expect(images[0]).toMatchObject({
      direction: 'outbound',
      userId: maria.id,
      body: '[imagem: QR Code PIX] QR Code PIX da fatura',
      status: 'accepted',
    })
    expect(images[0]!.providerMessageId).toMatch(/^wamid\./)
  })

  it('still sends the texts when the QR Code image cannot be uploaded, and keeps the failure', async () => {
    const dashboard = (await get(t.app, `/api/payments/${checkout.payment.id}/pix`, maria.cookie)).json() as PixCharge
    const before = (await messagesOf(maria.phone)).filter((m) => m.kind === 'image').length
    graph.failNextUpload.push({ status: 400, code: 131053, message: '(#131053) Media upload error' })
    const response = await postWebhook(t.app, inboundText({ from: maria.phone, text: 'boleto' }).payload)
    expect(response.statusCode).toBe(200)
    const texts = graph.textsTo(maria.phone)
    expect(texts).toHaveLength(2)
    expect(texts[1]).toBe(dashboard.brCode)
    expect(graph.imagesTo(maria.phone)).toEqual([])
    const images = (await messagesOf(maria.phone)).filter((m) => m.kind === 'image')
    expect(images).toHaveLength(before + 1)
    expect(images.find((m) => m.status === 'failed')).toMatchObject({ errorCode: 131053, providerMessageId: null })
  })

  it('handles a message id once even when Meta delivers the webhook twice', async () => {
    const { payload } = inboundText({ from: maria.phone, text: 'pix' })
    await postWebhook(t.app, payload)
    const once = graph.textsTo(maria.phone).length
    expect(once).toBe(2)
    const again = await postWebhook(t.app, payload)
    expect(again.statusCode).toBe(200)
    expect(graph.textsTo(maria.phone)).toHaveLength(once)
  })

  it("answers 'cancelar' with the dashboard's cancel flow and cancels nothing", async () => {
    const before = await billingRows(maria.id)
    await postWebhook(t.app, inboundText({ from: maria.phone, text: 'Quero CANCELAR' }).payload)
    const [text] = graph.textsTo(maria.phone)
    expect(text).toContain('http://localhost:3000/dashboard/my-subscriptions')
    expect(await billingRows(maria.id)).toEqual(before)
  })

  it("answers 'status' with the plan, its status and what is due", async () => {
    await postWebhook(t.app, inboundText({ from: maria.phone, text: 'status' }).payload)
    const [text] = graph.textsTo(maria.phone)
    expect(text).toContain(`Plano: ${checkout.pix.planName}`)
    expect(text).toContain('Situação: Aguardando Pagamento PIX')
    expect(text).toContain(formatBRL(checkout.payment.amountCents))
  })

  it('answers anything else with the menu and the support contact', async () => {
    await postWebhook(t.app, inboundText({ from: maria.phone, text: 'bom dia' }).payload)
    const [text] = graph.textsTo(maria.phone)
    expect(text).toContain('*2ª via*')
    expect(text).toContain(`https://wa.me/${t.config.SUPPORT_WHATSAPP}`)
  })

  it('recognises a customer whose WhatsApp id comes without the ninth digit', async () => {
    const customer = await insertCustomer(t.database.db, { whatsapp: '5585987650001', name: 'Nona Cliente' })
    await postWebhook(t.app, inboundText({ from: '558587650001', text: 'oi' }).payload)
    const [text] = graph.textsTo('558587650001')
    expect(text).toContain('*2ª via*')
    const [kept] = await messagesOf('558587650001')
    expect(kept?.userId).toBe(customer.id)
  })

  it('sends the sign-up link to a number that is no customer', async () => {
    const stranger = uniquePhone()
    await postWebhook(t.app, inboundText({ from: stranger, text: '2ª via' }).payload)
    const texts = graph.textsTo(stranger)
    expect(texts).toHaveLength(1)
    expect(texts[0]).toContain('http://localhost:3000/signup')
    expect(texts[0]).not.toContain('00020101')
    const kept = await messagesOf(stranger)
    expect(kept.every((m) => m.userId === null)).toBe(true)
  })

  it('answers at most 10 messages an hour per number, and keeps every message', async () => {
    const chatty = uniquePhone()
    for (let i = 0; i < 12; i += 1) await postWebhook(t.app, inboundText({ from: chatty, text: `oi ${i}` }).payload)
    expect(graph.textsTo(chatty)).toHaveLength(10)
    const kept = await messagesOf(chatty)
    expect(kept.filter((m) => m.direction === 'inbound')).toHaveLength(12)
  })

  it("shows admins the customer's messages with their receipts; customers cannot see the list", async () => {
    const admin = await signUpCustomer('Admin Chat')
    await t.database.db.update(profiles).set({ roleId: 1 }).where(eq(profiles.id, admin.id))
    const reply = (await messagesOf(maria.phone)).find((m) => m.kind === 'reply')!
    await postWebhook(
      t.app,
      statusUpdate({ id: reply.providerMessageId!, recipient: maria.phone, status: 'delivered' }),
    )

    const list = await get(t.app, `/api/admin/users/${maria.id}/whatsapp-messages`, admin.cookie)
    expect(list.statusCode).toBe(200)
    const messages = list.json() as AdminWhatsAppMessage[]
    expect(messages.some((m) => m.direction === 'inbound' && m.body === '2ª Via')).toBe(true)
    expect(messages.find((m) => m.id === reply.id)).toMatchObject({
      status: 'delivered',
      statuses: [expect.objectContaining({ status: 'delivered' })],
    })
    expect((await get(t.app, `/api/admin/users/${maria.id}/whatsapp-messages`, maria.cookie)).statusCode).toBe(403)
    expect((await get(t.app, `/api/admin/users/${maria.id}/whatsapp-messages`)).statusCode).toBe(401)
  })

  it('puts the messages in the LGPD export', async () => {
    const response = await get(t.app, '/api/profile/export', maria.cookie)
    expect(response.statusCode).toBe(200)
    const data = response.json() as { whatsappMessages: { body: string; direction: string }[] }
    expect(data.whatsappMessages.some((m) => m.direction === 'inbound' && m.body === '2ª Via')).toBe(true)
  })
})

describe("billing answered in the chat with PIX_PROVIDER=api-pix (the PSP's code)", () => {
  let pspApp: TestApp
  let psp: FakePsp

  beforeAll(async () => {
    psp = await startFakePsp()
    pspApp = await createTestApp({ env: { ...graph.env(), ...psp.env() } })
    await seedPlans(pspApp.database.db)
    await configurePix(pspApp.database.db, { pixKey: psp.merchantKey })
  })
  afterAll(async () => {
    await pspApp?.close()
    await psp?.stop()
  })

  it("answers '2ª via' with the PSP charge's copy-and-paste code, the one the dashboard shows, and its QR Code", async () => {
    const ana = await signUpCustomer('Ana PSP', pspApp)
    const response = await postFrom('/api/checkout/pix', { plan_id: 'plan_basic' }, ana.cookie, pspApp)
    expect(response.statusCode, response.body).toBe(200)
    const { payment } = response.json() as PixCheckoutResult
    const dashboard = (await get(pspApp.app, `/api/payments/${payment.id}/pix`, ana.cookie)).json() as PixCharge
    const charge = psp.charge(pixTxidFor(payment.id)) as { pixCopiaECola: string }
    expect(dashboard.brCode).toBe(charge.pixCopiaECola)
    graph.calls.length = 0

    await postWebhook(pspApp.app, inboundText({ from: ana.phone, text: 'fatura' }).payload)
    const texts = graph.textsTo(ana.phone)
    expect(texts).toHaveLength(2)
    expect(texts[1]).toBe(charge.pixCopiaECola)
    expect(graph.uploads).toHaveLength(1)
    expect(graph.uploads[0]!.file!.bytes).toEqual(await qrPng(charge.pixCopiaECola))
    expect(graph.imagesTo(ana.phone)).toEqual([{ id: graph.uploads[0]!.id, caption: 'QR Code PIX da fatura' }])
  })
})

describe('account deletion', () => {
  it("deletes the person's WhatsApp messages with the account", async () => {
    const joana = await signUpCustomer('Joana Apaga')
    await postWebhook(t.app, inboundText({ from: joana.phone, text: 'oi' }).payload)
    expect((await messagesOf(joana.phone)).length).toBeGreaterThan(1)
    const deleted = await postFrom('/api/profile/delete', { password: joana.password }, joana.cookie)
    expect(deleted.statusCode, deleted.body).toBeLessThan(300)
    expect(await messagesOf(joana.phone)).toEqual([])
    const byUser = await t.database.db
      .select()
      .from(whatsappMessages)
      .where(and(eq(whatsappMessages.userId, joana.id)))
    expect(byUser).toEqual([])
  })
})
