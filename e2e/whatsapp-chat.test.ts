// Issue 16 in the browser: the server talks to the Graph API fake of test support. A customer with an open PIX
// invoice 'replies' 2ª via and the fake receives the code the dashboard shows; a sign-up code Meta reports
// undeliverable makes the sign-up page say so.
import { describe, expect, it } from 'vitest'
import { parsePixBrCode } from '../src/domain/pix'
import { inboundText, isPng, postWebhook, statusUpdate } from '../src/server/test/fake-graph/fake-graph'
import { uniquePhone, setupApp, waitForGraphCalls } from './support/app'
import { expectAccessible } from './support/browser'
import { button, field } from './support/page'

const admin = { email: 'admin-chat@example.com', password: 'senha-admin-segura-1' }
const app = setupApp({ admin, graph: { templates: { codigo_verificacao: { bodyParams: 1, urlButton: true } } } })
const waitForCall = (to: string, type: 'template' | 'text', count = 1) => waitForGraphCalls(app.graph, to, type, count)

describe('billing answered in the chat', () => {
  it("sends the dashboard's PIX code to a customer who replies '2ª via'", async () => {
    const account = await app.createAccount({ name: 'Ana Chat', companyName: 'Loja', emailPrefix: 'chat' })
    const page = await app.newPage('desktop')
    await app.signIn(page, account)

    await page.goto(app.at('/dashboard/subscriptions'))
    await page.getByRole('button', { name: 'Assinar Básico' }).click()
    await button(page.getByRole('dialog'), 'Pagar com PIX').click()
    const pixDialog = page.getByRole('dialog', { name: 'Pagamento via PIX' })
    const codeBox = field(pixDialog, 'Código PIX copia e cola')
    await codeBox.waitFor()
    const dashboardCode = await codeBox.inputValue()
    expect(parsePixBrCode(dashboardCode).crcValid).toBe(true)

    const posted = await postWebhook(app.url, inboundText({ from: account.phone, text: '2ª via' }).payload)
    expect(posted.statusCode).toBe(200)
    const replies = await waitForCall(account.phone, 'text', 2)
    const texts = replies.map((c) => (c.body.text as { body: string }).body)
    expect(texts[0]).toMatch(/Valor: R\$\s99,00/)
    expect(texts[1]).toBe(dashboardCode)
    // Between the two texts, the QR Code as an image: a PNG uploaded as media, sent by its id.
    const [image] = app.graph.imagesTo(account.phone)
    const upload = app.graph.uploads.find((u) => u.id === image?.id)
    expect(upload?.file && isPng(upload.file.bytes)).toBe(true)
    await page.context().close()

    // The admin sees the conversation, with Meta's receipt, in the customer's message history.
    await postWebhook(app.url, statusUpdate({ id: replies[1]!.id!, recipient: account.phone, status: 'read' }))
    const adminPage = await app.newPage('desktop')
    await app.signIn(adminPage, admin)
    await adminPage.goto(app.at('/dashboard/customers'))
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
    const page = await app.newPage('mobile')
    await page.goto(app.at('/signup'))
    await field(page, 'WhatsApp').fill(phone)
    await button(page, 'Enviar código').click()
    const [call] = await waitForCall(phone, 'template')
    await field(page, 'Código de verificação').waitFor()

    const posted = await postWebhook(
      app.url,
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
