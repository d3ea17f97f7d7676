import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { totpCode } from '../src/server/test/totp'
import { setupApp } from './support/app'
import { expectAccessible, screenshot, toast } from './support/browser'
import { button, field, submitLogin } from './support/page'

// An admin under ADMIN_MFA=required: the admin area is closed until two-factor is on; enrols with the QR's key
// (codes computed here per RFC 6238, as an authenticator app would), then signs in with 'Código de verificação'.
const admin = { email: 'seguranca@example.com', password: 'senha-do-admin-2fa' }
const app = setupApp({ admin, env: { ADMIN_MFA: 'required' } })

async function logIn(page: Page) {
  await page.goto(app.at('/login'))
  await submitLogin(page, admin)
}

/** A code of the next 30-second step when the current one is about to end, so it is still valid when it arrives. */
function freshCode(secret: string): string {
  const intoStep = Date.now() % 30_000
  return totpCode(secret, intoStep > 25_000 ? Date.now() + 5_000 : Date.now())
}

/** Saves a new PIX key: a session that has not confirmed the password in the last 5 minutes is asked for it. */
async function savePixKey(page: Page, key: string, shot: string) {
  await page.goto(app.at('/dashboard/settings'))
  await page.getByRole('heading', { level: 1, name: 'Configurações', exact: true }).waitFor()
  await field(page, 'Chave PIX').fill(key)
  await field(page, 'Nome do beneficiário').fill('Atendimento Multicanal')
  await field(page, 'Cidade do beneficiário').fill('Itaitinga')
  await button(page, 'Salvar').click()
  const stepUp = page.getByRole('dialog', { name: 'Confirme sua identidade' })
  await field(stepUp, 'Senha').waitFor()
  await screenshot(page, shot)
  await expectAccessible(page)
  await field(stepUp, 'Senha').fill(admin.password)
  await button(stepUp, 'Confirmar').click()
  await toast(page, 'Configurações PIX salvas com sucesso!').first().waitFor()
  await page.reload()
  await expect.poll(() => field(page, 'Chave PIX').inputValue()).toBe(key)
}

describe('two-factor', () => {
  let secret = ''
  let recoveryCodes: string[] = []

  it('closes the admin area to an admin without it, and enrols with the QR key and a first code', async () => {
    const page = await app.newPage('desktop')
    await logIn(page)
    await page.waitForURL((url) => url.pathname === '/dashboard')
    await page.goto(app.at('/dashboard/users'))
    await page.getByRole('heading', { name: 'Verificação em duas etapas obrigatória' }).waitFor()
    await page
      .getByText(
        'Administradores precisam ativar a verificação em duas etapas. Ative-a em Minha conta para acessar o painel administrativo.',
      )
      .waitFor()
    await page.getByRole('link', { name: 'Ir para Minha conta' }).click()
    await page.getByRole('heading', { name: 'Verificação em duas etapas', exact: true }).waitFor()
    await screenshot(page, 'two-factor-account-1280')

    await button(page, 'Ativar verificação em duas etapas').click()
    const dialog = page.getByRole('dialog', { name: 'Ativar verificação em duas etapas' })
    await field(dialog, 'Senha').fill('nao-e-a-senha')
    await button(dialog, 'Continuar').click()
    await dialog.getByText('Senha incorreta. Confira e tente novamente.', { exact: true }).waitFor()
    await field(dialog, 'Senha').fill(admin.password)
    await button(dialog, 'Continuar').click()
    await dialog.getByRole('img', { name: 'QR Code para o aplicativo autenticador' }).waitFor()
    secret = (await dialog.getByTestId('totp-secret').textContent())?.trim() ?? ''
    expect(secret).toMatch(/^[A-Z2-7]+=*$/)
    await screenshot(page, 'two-factor-enrol-1280')
    await field(dialog, 'Código de verificação').fill('000000')
    await button(dialog, 'Confirmar').click()
    await dialog.getByText('Código de verificação inválido.', { exact: true }).waitFor()
    await field(dialog, 'Código de verificação').fill(freshCode(secret))
    await button(dialog, 'Confirmar').click()
    await toast(page, 'Verificação em duas etapas ativada.').first().waitFor()
    const codes = dialog.getByRole('list', { name: 'Códigos de recuperação' }).getByRole('listitem')
    await codes.first().waitFor()
    recoveryCodes = (await codes.allTextContents()).map((c) => c.trim())
    expect(recoveryCodes).toHaveLength(10)
    await button(dialog, 'Concluir').click()
    await page.getByText('Ativa', { exact: true }).waitFor()

    // The admin area opens now, and a new PIX key asks for the password again first.
    await page.goto(app.at('/dashboard/users'))
    await page.getByRole('heading', { level: 1, name: 'Usuários', exact: true }).waitFor()
    await savePixKey(page, 'financeiro@example.com', 'reauth-dialog-1280')
    await page.context().close()
  })

  it("asks for 'Código de verificação' at sign-in, refuses a wrong one, accepts the app's code", async () => {
    const page = await app.newPage('mobile')
    await logIn(page)
    const code = field(page, 'Código de verificação')
    await code.waitFor()
    expect(page.url()).toContain('/login')
    await screenshot(page, 'two-factor-login-375')
    await expectAccessible(page)
    await code.fill('123456')
    await button(page, 'Verificar').click()
    await page.getByText('Código de verificação inválido.', { exact: true }).waitFor()
    await code.fill(freshCode(secret))
    await button(page, 'Verificar').click()
    await page.waitForURL((url) => url.pathname === '/dashboard')
    await page.context().close()
  })

  it('accepts a recovery code instead, once', async () => {
    const page = await app.newPage('desktop')
    await logIn(page)
    await field(page, 'Código de verificação').fill(recoveryCodes[0] ?? '')
    await screenshot(page, 'two-factor-login-1280')
    await button(page, 'Verificar').click()
    await page.waitForURL((url) => url.pathname === '/dashboard')
    await page.goto(app.at('/dashboard/account'))
    await page.getByRole('heading', { name: 'Verificação em duas etapas', exact: true }).waitFor()
    await expectAccessible(page)
    await page.context().close()

    const again = await app.newPage('mobile')
    await logIn(again)
    await field(again, 'Código de verificação').fill(recoveryCodes[0] ?? '')
    await button(again, 'Verificar').click()
    await again.getByText('Código de verificação inválido.', { exact: true }).waitFor()
    await again.goto(app.at('/login'))
    await logIn(again)
    await field(again, 'Código de verificação').fill(freshCode(secret))
    await button(again, 'Verificar').click()
    await again.waitForURL((url) => url.pathname === '/dashboard')
    await again.goto(app.at('/dashboard/account'))
    await again.getByRole('heading', { name: 'Verificação em duas etapas', exact: true }).waitFor()
    await screenshot(again, 'two-factor-account-375')
    await savePixKey(again, 'outro-financeiro@example.com', 'reauth-dialog-375')
    await again.context().close()
  })
})
