import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { setupApp } from './support/app'
import { expectAccessible, screenshot, toast } from './support/browser'
import { resetPasswordLink, verifyEmailLink, waitForOutbox } from './support/outbox'
import { button, expectPath, expectToast, field, submitLogin } from './support/page'

const admin = { email: 'admin@example.com', password: 'senha-do-admin-1' }
const app = setupApp({ admin })

/** Verifies a WhatsApp number, reading the code from the dev outbox like a phone would. */
async function verifyNumber(page: Page, phone: string, atCodeStep?: () => Promise<void>) {
  await field(page, 'WhatsApp').fill(phone)
  await button(page, 'Enviar código').click()
  await expectToast(page, 'Código enviado! Verifique seu WhatsApp.')
  const code = await app.whatsappCode(phone)
  const codeInput = field(page, 'Código de verificação')
  expect(await codeInput.getAttribute('inputmode')).toBe('numeric')
  await atCodeStep?.()
  expect(await button(page, 'Verificar').isDisabled()).toBe(true)
  await codeInput.fill(code.slice(0, 5))
  expect(await button(page, 'Verificar').isDisabled()).toBe(true)
  await codeInput.fill(code)
  expect(await button(page, 'Verificar').isDisabled()).toBe(false)
  await button(page, 'Verificar').click()
  await expectToast(page, 'Número verificado com sucesso!')
  await page.getByText('Número verificado', { exact: true }).waitFor()
}

for (const viewport of ['mobile', 'desktop'] as const) {
  describe(`account pages on ${viewport}`, () => {
    it('sends an anonymous visitor of /dashboard to /login with the warning', async () => {
      const page = await app.newPage(viewport)
      await page.goto(app.at('/dashboard'))
      await expectPath(page, '/login?next=%2Fdashboard')
      await expectToast(page, 'Acesso não autorizado', 'Você precisa estar logado para acessar esta página')
      await field(page, 'E-mail').waitFor()
      await page.waitForFunction(() => document.title.startsWith('Entrar'))
      await field(page, 'Senha').waitFor()
      await page.getByRole('link', { name: 'Esqueci minha senha' }).waitFor()
      await page.getByRole('link', { name: 'Criar conta' }).waitFor()
      // Checked without the guard's toast: sonner's own error colours are the toaster's business, not this page's.
      await page.goto(app.at('/login'))
      await field(page, 'E-mail').waitFor()
      await expectAccessible(page)
      await screenshot(page, `login-${viewport}`)
      await page.context().close()
    })

    it('checks the number and the verification before sending anything', async () => {
      const page = await app.newPage(viewport)
      const signUps: string[] = []
      page.on('request', (request) => {
        if (request.url().includes('/api/auth/sign-up') || request.url().includes('/api/whatsapp/')) {
          signUps.push(request.url())
        }
      })
      await page.goto(app.at('/signup'))
      await page.waitForFunction(() => document.title.startsWith('Criar conta'))
      // The fields in the order of the UI contract.
      const labels = await page.locator('form label').allTextContents()
      expect(labels).toEqual(['Nome', 'Empresa', 'WhatsApp', 'E-mail', 'Senha'])
      await expectAccessible(page)
      await screenshot(page, `signup-${viewport}`)

      await button(page, 'Cadastrar').click()
      await page.getByText('Informe seu nome.').waitFor()
      await page.getByText('Informe o nome da empresa.').waitFor()
      await page.getByText('Informe seu e-mail.').waitFor()
      await page.getByText('Informe uma senha.').waitFor()

      await field(page, 'WhatsApp').fill('12345')
      await button(page, 'Enviar código').click()
      await expectToast(page, 'Número inválido', 'Por favor, insira um número de WhatsApp válido (apenas números).')

      await field(page, 'Nome').fill('Bruno Lima')
      await field(page, 'Empresa').fill('Lima & Filhos')
      await field(page, 'E-mail').fill(`bruno.${viewport}@example.com`)
      await field(page, 'Senha').fill('senha-segura-1')
      await button(page, 'Cadastrar').click()
      await expectToast(
        page,
        'Verificação necessária',
        'Por favor, verifique seu número de WhatsApp antes de continuar.',
      )
      expect(signUps).toEqual([])
      await page.context().close()
    })
  })
}

describe('the sign-up journey', () => {
  const ana = {
    name: 'Ana Souza',
    company: 'Loja da Ana',
    phone: '5585999990001',
    email: 'ana.souza@example.com',
    password: 'senha-da-ana-1',
    newPassword: 'nova-senha-da-ana-2',
  }

  it('signs up with a verified WhatsApp, confirms the e-mail, enters and leaves (desktop)', async () => {
    const page = await app.newPage('desktop')
    await page.goto(app.at('/signup'))
    await field(page, 'WhatsApp').fill(ana.phone)
    await button(page, 'Enviar código').click()
    await expectToast(page, 'Código enviado! Verifique seu WhatsApp.')
    const code = await app.whatsappCode(ana.phone)
    const wrong = code === '000000' ? '111111' : '000000'
    await field(page, 'Código de verificação').fill(wrong)
    await button(page, 'Verificar').click()
    await expectToast(page, 'Erro na verificação', 'Código inválido ou expirado.')

    await field(page, 'Código de verificação').fill(code)
    await button(page, 'Verificar').click()
    await expectToast(page, 'Número verificado com sucesso!')
    await page.getByText('Número verificado', { exact: true }).waitFor()
    expect(await field(page, 'WhatsApp').getAttribute('readonly')).not.toBeNull()
    await field(page, 'Nome').fill(ana.name)
    await field(page, 'Empresa').fill(ana.company)
    await field(page, 'E-mail').fill(ana.email)
    await field(page, 'Senha').fill(ana.password)
    await screenshot(page, 'signup-verified-desktop')
    await button(page, 'Cadastrar').click()
    await expectToast(page, 'Cadastro realizado! Verifique seu email para confirmar sua conta')
    await expectPath(page, '/login')

    // Before confirming: refused, with the way to get a new link.
    expect(await field(page, 'E-mail').inputValue()).toBe(ana.email)
    await field(page, 'Senha').fill(ana.password)
    await button(page, 'Entrar').click()
    await expectToast(page, 'Erro no login', 'Seu e-mail ainda não foi confirmado.')
    await button(page, 'Reenviar e-mail de confirmação').click()
    await expectToast(page, 'E-mail de confirmação reenviado.')

    const link = await waitForOutbox(app.server.outboxPath, { channel: 'email', to: ana.email }, verifyEmailLink)
    await page.goto(link)
    await expectPath(page, '/login?verified=1')
    await page.getByText('E-mail confirmado! Agora você já pode entrar.').waitFor()

    await submitLogin(page, { email: ana.email, password: ana.password })
    await expectPath(page, '/dashboard')
    await page.getByRole('complementary').getByText(ana.email).waitFor()
    await page.getByRole('link', { name: 'Visão geral' }).waitFor()
    expect(await page.getByRole('link', { name: 'Visão geral' }).getAttribute('aria-current')).toBe('page')
    expect(await page.getByText('Administrador', { exact: true }).count()).toBe(0)
    expect(await page.getByText('Administração', { exact: true }).count()).toBe(0)
    await expectAccessible(page)
    await screenshot(page, 'dashboard-desktop')

    // Signed in, the account pages send the person to the dashboard.
    await page.goto(app.at('/signup'))
    await expectPath(page, '/dashboard')
    await page.goto(app.at('/login'))
    await expectPath(page, '/dashboard')

    await button(page, 'Sair').click()
    await expectPath(page, '/')
    // The session is gone (the landing page offers to log in) and the dashboard guard never complained.
    await page.getByRole('link', { name: 'Fazer Login' }).waitFor()
    await page.waitForTimeout(500)
    expect(await toast(page, 'Acesso não autorizado').count()).toBe(0)
    await page.goto(app.at('/dashboard'))
    await expectPath(page, '/login?next=%2Fdashboard')
    await page.context().close()
  })

  it('explains a dead confirmation link and offers a new one', async () => {
    const page = await app.newPage('mobile')
    await page.goto(app.at('/api/auth/verify-email?token=nao-vale'))
    await expectPath(page, '/login?verifyError=1')
    await page.getByText('O link de confirmação é inválido ou expirou.').waitFor()
    await button(page, 'Reenviar e-mail de confirmação').click()
    await page.getByText('Informe seu e-mail para reenviarmos a confirmação.').waitFor()
    await field(page, 'E-mail').fill(ana.email)
    await button(page, 'Reenviar e-mail de confirmação').click()
    await expectToast(page, 'E-mail de confirmação reenviado.')
    await page.context().close()
  })

  it('resets the password through the e-mailed link', async () => {
    const page = await app.newPage('desktop')
    await page.goto(app.at('/reset-password'))
    await page.getByText('O link é inválido ou expirou. Solicite um novo.').waitFor()
    await page.getByRole('link', { name: 'Solicitar novo link' }).click()
    await expectPath(page, '/forgot-password')

    await field(page, 'E-mail').fill(ana.email)
    await button(page, 'Enviar link').click()
    await page.getByText('Se o e-mail estiver cadastrado, você receberá um link para redefinir sua senha.').waitFor()
    const link = await waitForOutbox(app.server.outboxPath, { channel: 'email', to: ana.email }, resetPasswordLink)
    await page.goto(link)
    await field(page, 'Nova senha').fill('curta')
    await button(page, 'Salvar nova senha').click()
    await page.getByText('A senha deve ter pelo menos 8 caracteres.').waitFor()
    await field(page, 'Nova senha').fill(ana.newPassword)
    await button(page, 'Salvar nova senha').click()
    await expectToast(page, 'Senha alterada! Entre com a nova senha.')
    await expectPath(page, '/login')

    await submitLogin(page, { email: ana.email, password: ana.password })
    await expectToast(page, 'Erro no login', 'E-mail ou senha incorretos.')
    // A foreign `next` is ignored: the person lands on the dashboard.
    await page.goto(app.at('/login?next=%2F%2Fevil.example'))
    await submitLogin(page, { email: ana.email, password: ana.newPassword })
    await expectPath(page, '/dashboard')
    await page.getByRole('complementary').getByText(ana.email).waitFor()
    await page.context().close()
  })

  it('refuses a taken e-mail, then signs up, enters and leaves through the drawer (mobile)', async () => {
    const page = await app.newPage('mobile')
    await page.goto(app.at('/signup'))
    await field(page, 'Nome').fill('Caio Prado')
    await field(page, 'Empresa').fill('Prado Tech')
    await verifyNumber(page, '5511988887777')
    // Changing a verified number starts the verification over.
    await button(page, 'Alterar número').click()
    expect(await field(page, 'WhatsApp').getAttribute('readonly')).toBeNull()
    await field(page, 'E-mail').fill('caio.prado@example.com')
    await field(page, 'Senha').fill('senha-do-caio-1')
    await button(page, 'Cadastrar').click()
    await expectToast(page, 'Verificação necessária')
    // The smallest phone: the code step fits without sideways scrolling.
    await page.setViewportSize({ width: 360, height: 740 })
    await verifyNumber(page, '5511977776666', async () => {
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
      await screenshot(page, 'signup-code-360')
    })
    await page.setViewportSize({ width: 375, height: 812 })
    await field(page, 'E-mail').fill(ana.email)
    await button(page, 'Cadastrar').click()
    await expectToast(page, 'Erro no cadastro', 'Este e-mail já está cadastrado.')

    const email = 'caio.prado@example.com'
    await field(page, 'E-mail').fill(email)
    await button(page, 'Cadastrar').click()
    await expectToast(page, 'Cadastro realizado! Verifique seu email para confirmar sua conta')
    await expectPath(page, '/login')

    const link = await waitForOutbox(app.server.outboxPath, { channel: 'email', to: email }, verifyEmailLink)
    await page.goto(link)
    await expectPath(page, '/login?verified=1')
    await submitLogin(page, { email: email, password: 'senha-do-caio-1' })
    await expectPath(page, '/dashboard')
    await screenshot(page, 'dashboard-mobile')

    await button(page, 'Abrir menu').click()
    const drawer = page.getByRole('dialog')
    await drawer.getByText(email).waitFor()
    await screenshot(page, 'dashboard-mobile-menu')
    await expectAccessible(page)
    await drawer.getByRole('button', { name: 'Sair' }).click()
    await expectPath(page, '/')
    // The session is gone (the landing page offers to log in) and the dashboard guard never complained.
    await page.getByRole('link', { name: 'Fazer Login' }).waitFor()
    await page.waitForTimeout(500)
    expect(await toast(page, 'Acesso não autorizado').count()).toBe(0)
    await page.context().close()
  })
})

describe('the dashboard of an admin', () => {
  it('shows the Administrador tag and the Administração menu', async () => {
    const page = await app.newPage('desktop')
    await page.goto(app.at('/login'))
    await submitLogin(page, { email: admin.email, password: admin.password })
    await expectPath(page, '/dashboard')
    const sidebar = page.getByRole('complementary')
    await sidebar.getByText(admin.email).waitFor()
    await sidebar.getByText('Administrador', { exact: true }).waitFor()
    const adminMenu = sidebar.getByRole('navigation', { name: 'Administração' })
    const links = await adminMenu.getByRole('link').allTextContents()
    expect(links).toEqual([
      'Visão geral do negócio',
      'Assinaturas',
      'Pagamentos',
      'Clientes',
      'Planos',
      'Usuários',
      'Configurações',
    ])
    expect(await adminMenu.getByRole('link', { name: 'Configurações' }).getAttribute('href')).toBe(
      '/dashboard/settings',
    )
    await screenshot(page, 'dashboard-admin-desktop')
    await page.context().close()
  })
})
