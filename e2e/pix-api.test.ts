// PIX_PROVIDER=api-pix in the browser: the server talks to the fake PSP (mTLS on loopback), a customer subscribes
// with PIX, the fake PSP pays, and the open PIX view turns into 'Pagamento confirmado!' by itself, no admin involved.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pixTxidFor } from '../src/domain/pix-txid'
import { demoPixSettings } from '../src/server/db/seed'
import { type FakePsp, startFakePsp } from '../src/server/test/fake-psp/fake-psp'
import { apiClient } from './support/api-client'
import { launchBrowser, newPage, screenshot } from './support/browser'
import { verifyEmailLink, waitForOutbox, whatsappCode } from './support/outbox'
import { type RunningServer, startServer } from './support/server'

let server: RunningServer
let browser: Browser
let psp: FakePsp

beforeAll(async () => {
  psp = await startFakePsp({ merchantKey: demoPixSettings.pixKey, callbackRetryDelayMs: 200 })
  for (let attempt = 1; ; attempt += 1) {
    try {
      server = await startServer({ ...psp.env(), ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'senha-admin-1' })
      break
    } catch (error) {
      if (attempt === 3) throw error
    }
  }
  browser = await launchBrowser()
  // The server registers its webhook at start-up (best effort, after listening).
  const deadline = Date.now() + 15_000
  while (!psp.webhook(psp.merchantKey) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
}, 300_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await psp?.stop()
})

const at = (path: string) => `${server.url}${path}`

let phoneCounter = 0
async function createAccount() {
  phoneCounter += 1
  const phone = `55858${String(Date.now() % 1e6).padStart(6, '0')}${String(phoneCounter).padStart(2, '0')}`.slice(0, 13)
  const email = `pix${phone}@example.com`
  const password = 'senha-segura-123'
  const client = apiClient(server.url)
  await client.post('/api/whatsapp/send-code', { phone_number: phone })
  const code = await waitForOutbox(server.outboxPath, { channel: 'whatsapp', to: phone }, whatsappCode)
  await client.post('/api/whatsapp/verify-code', { phone_number: phone, code })
  await client.post('/api/auth/sign-up', {
    name: 'Ana Cliente',
    companyName: 'Loja da Ana',
    whatsappNumber: phone,
    email,
    password,
  })
  const link = await waitForOutbox(server.outboxPath, { channel: 'email', to: email }, verifyEmailLink)
  await fetch(link, { redirect: 'manual' })
  return { email, password }
}

async function signIn(page: Page, account: { email: string; password: string }) {
  await page.goto(at('/login'))
  await page.getByLabel('E-mail', { exact: true }).fill(account.email)
  await page.getByLabel('Senha', { exact: true }).fill(account.password)
  await page.getByRole('button', { name: 'Entrar', exact: true }).click()
  await page.waitForURL((url) => url.pathname === '/dashboard')
}

describe('PIX confirmed by itself (API Pix)', () => {
  it.each(['desktop', 'mobile'] as const)(
    'on a %s screen: subscribe with PIX, the PSP pays, the page shows the active subscription within 10 s',
    async (viewport) => {
      expect(psp.webhook(psp.merchantKey)?.webhookUrl).toBe(`${server.url}/api/webhooks/pix`)
      const page = await newPage(browser, viewport)
      try {
        await signIn(page, await createAccount())
        await page.goto(at('/dashboard/subscriptions'))
        await page.getByRole('button', { name: 'Assinar Básico' }).click()
        const methodDialog = page.getByRole('dialog')
        await methodDialog.getByText('A ativação é automática, em segundos após o pagamento.').waitFor()
        await methodDialog.getByRole('button', { name: 'Pagar com PIX', exact: true }).click()

        const pixDialog = page.getByRole('dialog', { name: 'Pagamento via PIX' })
        const codeBox = pixDialog.getByLabel('Código PIX copia e cola', { exact: true })
        await codeBox.waitFor()
        await pixDialog
          .getByText('O pagamento é confirmado automaticamente, em segundos. Esta tela se atualiza sozinha.')
          .waitFor()
        const response = await page.request.get(at('/api/payments'))
        const [payment] = ((await response.json()) as { items: Array<{ id: string; status: string }> }).items
        const txid = pixTxidFor(payment?.id ?? '')
        // The customer sees the PSP's own copia e cola, not the static code.
        expect(await codeBox.inputValue()).toBe((psp.charge(txid) as { pixCopiaECola: string }).pixCopiaECola)
        await screenshot(page, `pix-api-waiting-${viewport}`)

        const paidAt = Date.now()
        await psp.controls.pay({ txid, payerName: 'Ana Cliente' })
        await pixDialog.getByText('Pagamento confirmado!').waitFor({ timeout: 10_000 })
        expect(Date.now() - paidAt).toBeLessThan(10_000)
        await pixDialog.getByText('Sua assinatura está ativa. Obrigado!').waitFor()
        await screenshot(page, `pix-api-confirmed-${viewport}`)

        // Without reloading (in-app navigation): the subscription is active.
        await pixDialog.getByRole('link', { name: 'Minhas assinaturas', exact: true }).click()
        await page.waitForURL((url) => url.pathname === '/dashboard/my-subscriptions')
        await page
          .getByRole('group', { name: 'Básico', exact: true })
          .first()
          .getByText('Ativa', { exact: true })
          .waitFor({ timeout: 10_000 })
        await screenshot(page, `pix-api-active-${viewport}`)
      } finally {
        await page.context().close()
      }
    },
    90_000,
  )

  it('the admin sees the PIX confirmed automatically, with payer and E2E, and the confirmation figures', async () => {
    const page = await newPage(browser, 'desktop')
    try {
      await page.goto(at('/login'))
      await page.getByLabel('E-mail', { exact: true }).fill('admin@example.com')
      await page.getByLabel('Senha', { exact: true }).fill('senha-admin-1')
      await page.getByRole('button', { name: 'Entrar', exact: true }).click()
      await page.waitForURL((url) => url.pathname.startsWith('/dashboard'))
      await page.goto(at('/dashboard/admin-payments'))
      await page.getByRole('region', { name: 'Confirmação PIX' }).waitFor()
      await page.getByText('2 de 2 confirmados automaticamente').waitFor()
      const table = page.getByRole('table')
      await table.getByText('Automático').first().waitFor()
      await table.getByText('Ana Cliente').first().waitFor()
      await screenshot(page, 'pix-api-admin-payments-desktop')
      await page.getByRole('button', { name: 'Devolver', exact: true }).first().click()
      const dialog = page.getByRole('dialog', { name: 'Devolver PIX' })
      await dialog.getByLabel('Valor a devolver (R$)', { exact: true }).fill('10,00')
      await dialog.getByLabel('Motivo', { exact: true }).fill('Desconto combinado')
      await dialog.getByRole('button', { name: 'Devolver', exact: true }).click()
      await dialog.waitFor({ state: 'detached' })
      await table.getByText('Devolvido parcialmente').first().waitFor()
      await screenshot(page, 'pix-api-admin-refund-desktop')
    } finally {
      await page.context().close()
    }
  }, 60_000)
})
