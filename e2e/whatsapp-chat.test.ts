// Issue 16 in the browser: the server talks to the Graph API fake of test support. A customer with an open PIX
// invoice 'replies' 2ª via and the fake receives the code the dashboard shows; a sign-up code Meta reports
// undeliverable makes the sign-up page say so.
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parsePixBrCode } from '../src/domain/pix'
import {
  type FakeGraph,
  inboundText,
  isPng,
  postWebhook,
  startFakeGraph,
  statusUpdate,
} from '../src/server/test/fake-graph/fake-graph'
import { apiClient } from './support/api-client'
import { expectAccessible, launchBrowser, newPage } from './support/browser'
import { verifyEmailLink, waitForOutbox } from './support/outbox'
import { type RunningServer, startServer } from './support/server'

let server: RunningServer
let browser: Browser
let graph: FakeGraph
const admin = { email: 'admin-chat@example.com', password: 'senha-admin-segura-1' }

beforeAll(async () => {
  graph = await startFakeGraph({ templates: { codigo_verificacao: { bodyParams: 1, urlButton: true } } })
  for (let attempt = 1; ; attempt += 1) {
    try {
      server = await startServer({ ...graph.env(), ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password })
      break
    } catch (error) {
      if (attempt === 3) throw error
    }
  }
  browser = await launchBrowser()
}, 300_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await graph?.close()
})

const at = (path: string) => `${server.url}${path}`
const field = (scope: Page | Locator, label: string) => scope.getByLabel(label, { exact: true })
const button = (scope: Page | Locator, name: string) => scope.getByRole('button', { name, exact: true })

let phoneCounter = 0
function uniquePhone(): string {
  phoneCounter += 1
  return `55859${String(Date.now() % 1e6).padStart(6, '0')}${String(phoneCounter).padStart(2, '0')}`.slice(0, 13)
}

/** The last call the fake accepted for this number and type, waiting for it like a phone. */
async function waitForCall(to: string, type: 'template' | 'text', count = 1) {
  const deadline = Date.now() + 15_000
  for (;;) {
    const calls = graph.calls.filter((c) => c.id && c.body.to === to && c.body.type === type)
    if (calls.length >= count) return calls
    if (Date.now() > deadline) throw new Error(`no ${type} message to ${to}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

function codeOf(call: { body: Record<string, unknown> }): string {
  const template = call.body.template as { components: { parameters: { text: string }[] }[] }
  return template.components[0]!.parameters[0]!.text
}

async function createAccount() {
  const phone = uniquePhone()
  const email = `chat${phone}@example.com`
  const password = 'senha-segura-123'
  const client = apiClient(server.url)
  await client.post('/api/whatsapp/send-code', { phone_number: phone })
  const [call] = await waitForCall(phone, 'template')
  await client.post('/api/whatsapp/verify-code', { phone_number: phone, code: codeOf(call!) })
  await client.post('/api/auth/sign-up', {
    name: 'Ana Chat',
    companyName: 'Loja',
    whatsappNumber: phone,
    email,
    password,
  })
  const link = await waitForOutbox(server.outboxPath, { channel: 'email', to: email }, verifyEmailLink)
  await fetch(link, { redirect: 'manual' })
  return { email, password, phone }
}

describe('billing answered in the chat', () => {
  it("sends the dashboard's PIX code to a customer who replies '2ª via'", async () => {
    const account = await createAccount()
    const page = await newPage(browser, 'desktop')
    await page.goto(at('/login'))
    await field(page, 'E-mail').fill(account.email)
    await field(page, 'Senha').fill(account.password)
    await button(page, 'Entrar').click()
    await page.waitForURL((url) => url.pathname === '/dashboard')

    await page.goto(at('/dashboard/subscriptions'))
    await page.getByRole('button', { name: 'Assinar Básico' }).click()
    await button(page.getByRole('dialog'), 'Pagar com PIX').click()
    const pixDialog = page.getByRole('dialog', { name: 'Pagamento via PIX' })
    const codeBox = field(pixDialog, 'Código PIX copia e cola')
    await codeBox.waitFor()
    const dashboardCode = await codeBox.inputValue()
    expect(parsePixBrCode(dashboardCode).crcValid).toBe(true)

    const posted = await postWebhook(server.url, inboundText({ from: account.phone, text: '2ª via' }).payload)
    expect(posted.statusCode).toBe(200)
    const replies = await waitForCall(account.phone, 'text', 2)
    const texts = replies.map((c) => (c.body.text as { body: string }).body)
    expect(texts[0]).toMatch(/Valor: R\$\s99,00/)
    expect(texts[1]).toBe(dashboardCode)
    // Between the two texts, the QR Code as an image: a PNG uploaded as media, sent by its id.
    const [image] = graph.imagesTo(account.phone)
    const upload = graph.uploads.find((u) => u.id === image?.id)
    expect(upload?.file && isPng(upload.file.bytes)).toBe(true)
    await page.context().close()

    // The admin sees the conversation, with Meta's receipt, in the customer's message history.
    await postWebhook(server.url, statusUpdate({ id: replies[1]!.id!, recipient: account.phone, status: 'read' }))
    const adminPage = await newPage(browser, 'desktop')
    await adminPage.goto(at('/login'))
    await field(adminPage, 'E-mail').fill(admin.email)
    await field(adminPage, 'Senha').fill(admin.password)
    await button(adminPage, 'Entrar').click()
    await adminPage.waitForURL((url) => url.pathname === '/dashboard')
    await adminPage.goto(at('/dashboard/customers'))
    const row = adminPage.getByRole('row').filter({ hasText: account.email })
    await button(row, 'Mensagens').click()
    const dialog = adminPage.getByRole('dialog', { name: 'Mensagens de WhatsApp' })
    const history = dialog.getByRole('list', { name: 'Histórico de mensagens' })
    await history.getByText('2ª via', { exact: true }).waitFor()
    const codeItem = history.getByRole('listitem').filter({ hasText: dashboardCode })
    await codeItem.getByText('Lida', { exact: true }).waitFor()
    await expectAccessible(adminPage)
    await adminPage.context().close()
  })
})

describe('sign-up page', () => {
  it('says the code did not arrive, and why, when Meta reports it undeliverable', async () => {
    const phone = uniquePhone()
    const page = await newPage(browser, 'mobile')
    await page.goto(at('/signup'))
    await field(page, 'WhatsApp').fill(phone)
    await button(page, 'Enviar código').click()
    const [call] = await waitForCall(phone, 'template')
    await field(page, 'Código de verificação').waitFor()

    const posted = await postWebhook(
      server.url,
      statusUpdate({
        id: call!.id!,
        recipient: phone,
        status: 'failed',
        error: { code: 131026, title: 'Message undeliverable' },
      }),
    )
    expect(posted.statusCode).toBe(200)
    const alert = page.getByRole('alert').filter({ hasText: 'O código não chegou' })
    await alert.waitFor({ timeout: 15_000 })
    expect(await alert.textContent()).toContain('confira se o número está correto')
    await page.context().close()
  })
})
