// 'Meus dados' on /dashboard/account (LGPD): download everything, and delete the account (password again; refused
// while a subscription is live), landing on the home page signed out.
import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Account, setupApp } from './support/app'
import { expectAccessible, screenshot, toast, viewports } from './support/browser'
import { button, field, quiet, submitLogin } from './support/page'

const app = setupApp()
const createAccount = (name: string) => app.createAccount({ name, companyName: 'Padaria Dados', emailPrefix: 'dados' })

async function openMyData(page: Page) {
  await page.goto(app.at('/dashboard/account'))
  await page.getByRole('heading', { name: 'Meus dados', exact: true }).waitFor()
}

describe.each(Object.keys(viewports) as (keyof typeof viewports)[])('Meus dados at %s', (viewport) => {
  let page: Page
  let account: Account

  beforeAll(async () => {
    account = await createAccount(`Rosa Dados ${viewport}`)
    page = await app.newPage(viewport)
    await app.signIn(page, account)
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
    await quiet(page)
    await expectAccessible(page)
    await screenshot(page, `my-data-delete-wrong-password-${viewport}`)

    await field(dialog, 'Confirme sua senha').fill(account.password)
    await button(dialog, 'Excluir conta definitivamente').click()
    await page.waitForURL((url) => url.pathname === '/')
    await toast(page, 'Conta excluída. Seus dados pessoais foram apagados.').first().waitFor()
    expect(await toast(page, 'Acesso não autorizado').count()).toBe(0)
    await screenshot(page, `my-data-deleted-home-${viewport}`)
    const session = await page.request.get(app.at('/api/auth/session'))
    expect((await session.json()).user).toBeNull()

    // The old credentials no longer open anything.
    await page.goto(app.at('/login'))
    await submitLogin(page, account)
    await toast(page, 'Erro no login').first().waitFor()
    expect(new URL(page.url()).pathname).toBe('/login')
  })
})

describe('Meus dados: deletion refused while a subscription is live', () => {
  it('explains in the dialog that the subscription must end first, and keeps the account', async () => {
    const account = await createAccount('Téo Assinante')
    const page = await app.newPage('desktop')
    await app.signIn(page, account)
    const checkout = await page.request.post(app.at('/api/checkout/pix'), {
      data: { plan_id: 'plan_basic' },
      headers: { origin: app.url },
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
    const profile = await page.request.get(app.at('/api/profile'))
    expect(profile.status()).toBe(200)
    expect((await profile.json()).email).toBe(account.email)
    await page.context().close()
  })
})
