// 'Meus dados' on /dashboard/account (LGPD): download everything, and delete the account (password again; refused
// while a subscription is live), landing on the home page signed out.
import { readFileSync } from 'node:fs'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from './support/api-client'
import { expectAccessible, launchBrowser, newPage, screenshot, toast, viewports } from './support/browser'
import { verifyEmailLink, waitForOutbox, whatsappCode } from './support/outbox'
import { type RunningServer, startServer } from './support/server'

let server: RunningServer
let browser: Browser

beforeAll(async () => {
  for (let attempt = 1; ; attempt += 1) {
    try {
      server = await startServer()
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
})

const at = (path: string) => `${server.url}${path}`
const field = (scope: Page | Locator, label: string) => scope.getByLabel(label, { exact: true })
const button = (scope: Page | Locator, name: string) => scope.getByRole('button', { name, exact: true })

let phoneCounter = 0
function uniquePhone(): string {
  phoneCounter += 1
  return `55869${String(Date.now() % 1e6).padStart(6, '0')}${String(phoneCounter).padStart(2, '0')}`.slice(0, 13)
}

/** A confirmed account made through the real API (codes and links from the dev outbox). */
async function createAccount(name: string) {
  const phone = uniquePhone()
  const email = `dados${phone}@example.com`
  const password = 'senha-segura-123'
  const client = apiClient(server.url)
  await client.post('/api/whatsapp/send-code', { phone_number: phone })
  const code = await waitForOutbox(server.outboxPath, { channel: 'whatsapp', to: phone }, whatsappCode)
  await client.post('/api/whatsapp/verify-code', { phone_number: phone, code })
  await client.post('/api/auth/sign-up', { name, companyName: 'Padaria Dados', whatsappNumber: phone, email, password })
  const link = await waitForOutbox(server.outboxPath, { channel: 'email', to: email }, verifyEmailLink)
  await fetch(link, { redirect: 'manual' })
  return { email, password, phone, name }
}

async function signIn(page: Page, account: { email: string; password: string }) {
  await page.goto(at('/login'))
  await field(page, 'E-mail').fill(account.email)
  await field(page, 'Senha').fill(account.password)
  await button(page, 'Entrar').click()
  await page.waitForURL((url) => url.pathname === '/dashboard')
}

async function openMyData(page: Page) {
  await page.goto(at('/dashboard/account'))
  await page.getByRole('heading', { name: 'Meus dados', exact: true }).waitFor()
}

async function quietForAxe(page: Page) {
  await page.mouse.move(0, 0)
  await page.locator('[data-sonner-toast]').first().waitFor({ state: 'detached', timeout: 15_000 })
}

describe.each(Object.keys(viewports) as (keyof typeof viewports)[])('Meus dados at %s', (viewport) => {
  let page: Page
  let account: Awaited<ReturnType<typeof createAccount>>

  beforeAll(async () => {
    account = await createAccount(`Rosa Dados ${viewport}`)
    page = await newPage(browser, viewport)
    await signIn(page, account)
  })
  afterAll(async () => {
    await page?.context().close()
  })

  it("'Baixar meus dados' downloads a JSON file with the person's data", async () => {
    await openMyData(page)
    await expectAccessible(page)
    await screenshot(page, `my-data-account-${viewport}`)
    const [download] = await Promise.all([page.waitForEvent('download'), button(page, 'Baixar meus dados').click()])
    expect(download.suggestedFilename()).toMatch(/^meus-dados-\d{4}-\d{2}-\d{2}\.json$/)
    const file = await download.path()
    const data = JSON.parse(readFileSync(file, 'utf8'))
    expect(data.profile).toMatchObject({ email: account.email, name: account.name, whatsappNumber: account.phone })
    expect(data.sessions.length).toBeGreaterThan(0)
    expect(readFileSync(file, 'utf8')).not.toMatch(/"(password|token)"/)
    await toast(page, 'Download iniciado').first().waitFor()
  })

  it("'Excluir minha conta' asks the password, refuses a wrong one, then erases the account and signs out", async () => {
    await openMyData(page)
    await button(page, 'Excluir minha conta').click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('heading', { name: 'Excluir minha conta' }).waitFor()
    await field(dialog, 'Confirme sua senha').fill('senha-errada-123')
    await button(dialog, 'Excluir conta definitivamente').click()
    await dialog.getByText('Senha incorreta. Confira e tente novamente.').waitFor()
    await quietForAxe(page)
    await expectAccessible(page)
    await screenshot(page, `my-data-delete-wrong-password-${viewport}`)

    await field(dialog, 'Confirme sua senha').fill(account.password)
    await button(dialog, 'Excluir conta definitivamente').click()
    await page.waitForURL((url) => url.pathname === '/')
    await toast(page, 'Conta excluída. Seus dados pessoais foram apagados.').first().waitFor()
    expect(await toast(page, 'Acesso não autorizado').count()).toBe(0)
    await screenshot(page, `my-data-deleted-home-${viewport}`)
    const session = await page.request.get(at('/api/auth/session'))
    expect((await session.json()).user).toBeNull()

    // The old credentials no longer open anything.
    await page.goto(at('/login'))
    await field(page, 'E-mail').fill(account.email)
    await field(page, 'Senha').fill(account.password)
    await button(page, 'Entrar').click()
    await toast(page, 'Erro no login').first().waitFor()
    expect(new URL(page.url()).pathname).toBe('/login')
  })
})

describe('Meus dados: deletion refused while a subscription is live', () => {
  it('explains in the dialog that the subscription must end first, and keeps the account', async () => {
    const account = await createAccount('Téo Assinante')
    const page = await newPage(browser, 'desktop')
    await signIn(page, account)
    const checkout = await page.request.post(at('/api/checkout/pix'), {
      data: { plan_id: 'plan_basic' },
      headers: { origin: server.url },
    })
    expect(checkout.status(), await checkout.text()).toBe(200)

    await openMyData(page)
    await button(page, 'Excluir minha conta').click()
    const dialog = page.getByRole('dialog')
    await field(dialog, 'Confirme sua senha').fill(account.password)
    await button(dialog, 'Excluir conta definitivamente').click()
    await dialog.getByText(/enquanto houver uma assinatura em andamento/).waitFor()
    await screenshot(page, 'my-data-delete-refused-desktop')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    const profile = await page.request.get(at('/api/profile'))
    expect(profile.status()).toBe(200)
    expect((await profile.json()).email).toBe(account.email)
    await page.context().close()
  })
})
