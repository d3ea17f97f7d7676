import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parsePixBrCode } from '../src/domain/pix'
import { type Account, setupApp } from './support/app'
import { screenshot, toast, viewports } from './support/browser'
import { brl, button, checkAccessible, dismissToasts, expectToast as toastShown, field, textOf } from './support/page'

const admin = { email: 'admin@example.com', password: 'admin-senha-123' }
const app = setupApp({ admin })
let adminContext: BrowserContext
let page: Page

type Customer = Account & { context: BrowserContext }
let paying: Customer // PIX checkout, confirmed by the admin
let reviewed: Customer // PIX checkout, confirmed with the wrong amount
let manual: Customer // subscriptions created by the admin

const dialog = () => page.getByRole('dialog')
const row = (text: string) => page.getByRole('row').filter({ hasText: text })
const open = (path: string, heading: string) => app.open(page, path, heading)
const post = (context: BrowserContext, path: string, data: unknown) => app.post(context, path, data)

/** Waits for the toast, then closes every toast so the next action's toast cannot be mistaken for it. */
async function expectToast(title: string, description?: string | RegExp) {
  await toastShown(page, title, description)
  await dismissToasts(page)
}

async function dialogClosed() {
  await dialog().waitFor({ state: 'detached' })
}

/** A confirmed customer made through the real API, signed in in a browser context of its own. */
async function createCustomer(name: string): Promise<Customer> {
  const account = await app.createAccount({ name, companyName: `Empresa ${name}` })
  const context = await app.newContext('desktop')
  await app.signInByApi(context, account)
  return { ...account, context }
}

/** Every admin screen: path, heading and the document title it sets. */
const screens = [
  { path: '/dashboard/admin-subscriptions', heading: 'Assinaturas', slug: 'subscriptions' },
  { path: '/dashboard/admin-payments', heading: 'Pagamentos', slug: 'payments' },
  { path: '/dashboard/customers', heading: 'Clientes', slug: 'customers' },
  { path: '/dashboard/plans', heading: 'Planos', slug: 'plans' },
  { path: '/dashboard/users', heading: 'Usuários', slug: 'users' },
  { path: '/dashboard/settings', heading: 'Configurações', slug: 'settings' },
] as const

beforeAll(async () => {
  adminContext = await app.newContext('desktop')
  page = await adminContext.newPage()
  paying = await createCustomer('Carla Pagante')
  reviewed = await createCustomer('Bruno Revisado')
  manual = await createCustomer('Diana Manual')
}, 300_000)

afterAll(async () => {
  await adminContext?.close()
})

describe('admin console', () => {
  it('signs the admin in through /login and offers every admin screen', async () => {
    await app.signIn(page, admin)
    for (const screen of screens) {
      await open(screen.path, screen.heading)
      expect(await page.title()).toContain(screen.heading)
    }
  })

  it('creates a plan with inline validation, edits it, and shows it on /plans', async () => {
    await open('/dashboard/plans', 'Planos')
    await button(page, 'Novo plano').click()
    const form = dialog()
    const labels = await form.locator('label').allInnerTexts()
    expect(labels).toEqual(['ID', 'Nome', 'Descrição', 'Preço', 'Recursos', 'Caixas', 'Atendentes', 'Popular', 'Ativo'])
    expect(await field(form, 'Caixas').inputValue()).toBe('1')
    expect(await field(form, 'Atendentes').inputValue()).toBe('1')
    await field(form, 'ID').fill('Plano Errado')
    await field(form, 'Caixas').fill('0')
    await button(form, 'Salvar').click()
    await form.getByText('Use apenas letras minúsculas, números e _ (ex.: plan_basic).').waitFor()
    await form.getByText('Informe o nome do plano.').waitFor()
    await form.getByText('Informe o preço.').waitFor()
    await form.getByText('Mínimo 1.').waitFor()

    await field(form, 'ID').fill('plan_e2e')
    await field(form, 'Nome').fill('Equipe E2E')
    await field(form, 'Descrição').fill('Para equipes que testam tudo.')
    await field(form, 'Preço').fill('149.90')
    await field(form, 'Recursos').fill('Relatórios diários\n\n  Chatbot incluso  \n')
    await field(form, 'Caixas').fill('2')
    await field(form, 'Atendentes').fill('5')
    await field(form, 'Popular').check()
    await screenshot(page, 'admin-plan-form-desktop')
    await button(form, 'Salvar').click()
    await expectToast('Plano salvo com sucesso!')
    await dialogClosed()
    const created = row('plan_e2e')
    await created.getByText('Equipe E2E').waitFor()
    expect(await textOf(created)).toMatch(brl('R$ 149,90'))

    await button(created, 'Editar').click()
    expect(await dialog().getByLabel('ID', { exact: true }).count()).toBe(0)
    expect(await field(dialog(), 'Preço').inputValue()).toBe('149.90')
    expect(await field(dialog(), 'Recursos').inputValue()).toBe('Relatórios diários\nChatbot incluso')
    await field(dialog(), 'Nome').fill('Equipe E2E Plus')
    await button(dialog(), 'Salvar').click()
    await expectToast('Plano salvo com sucesso!')
    await row('plan_e2e').getByText('Equipe E2E Plus').waitFor()

    const visitor = await app.browser.newPage({ viewport: viewports.desktop, locale: 'pt-BR' })
    await visitor.goto(app.at('/plans'))
    const card = visitor.getByRole('group', { name: 'Equipe E2E Plus' })
    await card.waitFor()
    const text = await textOf(card)
    expect(text).toMatch(brl('R$ 149,90'))
    expect(text).toContain('Relatórios diários')
    expect(text).toContain('Chatbot incluso')
    expect(text).toContain('Popular')
    await visitor.close()
  })

  it('deletes an unused plan', async () => {
    await button(page, 'Novo plano').click()
    await field(dialog(), 'ID').fill('plan_descartavel')
    await field(dialog(), 'Nome').fill('Descartável')
    await field(dialog(), 'Preço').fill('10')
    await button(dialog(), 'Salvar').click()
    await expectToast('Plano salvo com sucesso!')
    await button(row('plan_descartavel'), 'Excluir').click()
    await button(dialog(), 'Excluir plano').click()
    await expectToast('Plano excluído com sucesso!')
    await row('plan_descartavel').waitFor({ state: 'detached' })
  })

  it('lists PIX checkouts in Pagamentos and refuses deleting a plan in use, offering to deactivate it', async () => {
    await post(paying.context, '/api/checkout/pix', { plan_id: 'plan_basic' })
    await post(reviewed.context, '/api/checkout/pix', { plan_id: 'plan_pro' })

    await open('/dashboard/plans', 'Planos')
    await button(row('plan_basic'), 'Excluir').click()
    await button(dialog(), 'Excluir plano').click()
    await expectToast('Erro ao excluir plano', 'Este plano possui assinaturas e não pode ser excluído')
    await dialog().getByRole('alert').waitFor()
    await button(dialog(), 'Desativar').click()
    await expectToast('Plano salvo com sucesso!')
    await dialogClosed()
    await row('plan_basic').getByText('Inativo', { exact: true }).waitFor()
    const publicPlans = await (await adminContext.request.get(app.at('/api/plans'))).json()
    expect(publicPlans.map((p: { id: string }) => p.id)).not.toContain('plan_basic')

    // Back on sale for the rest of the journey.
    await button(row('plan_basic'), 'Editar').click()
    await field(dialog(), 'Ativo').check()
    await button(dialog(), 'Salvar').click()
    await expectToast('Plano salvo com sucesso!')
    await row('plan_basic').getByText('Inativo', { exact: true }).waitFor({ state: 'detached' })
  })

  it('confirms a PIX payment, which activates the subscription', async () => {
    await open('/dashboard/admin-payments', 'Pagamentos')
    const pending = row(paying.email)
    await pending.getByText('Aguardando PIX').waitFor()
    const text = await textOf(pending)
    expect(text).toContain('Básico')
    expect(text).toMatch(brl('R$ 99,00'))
    expect(text).toContain('Nova assinatura')
    expect(text).toContain('PIX')

    await button(pending, 'Confirmar').click()
    const form = dialog()
    expect(await field(form, 'Valor recebido').inputValue()).toBe('99,00')
    await field(form, 'ID da transação (E2E)').fill('curto')
    await button(form, 'Confirmar pagamento').click()
    await form.getByText('O identificador da transação (E2E) tem 32 letras e números.').waitFor()
    await field(form, 'ID da transação (E2E)').fill('E00000000202601011200ADMINE2E001')
    await screenshot(page, 'admin-confirm-payment-desktop')
    await button(form, 'Confirmar pagamento').click()
    await expectToast('Pagamento confirmado com sucesso!')
    await dialogClosed()
    await row(paying.email).getByText('Pago', { exact: true }).waitFor()
    expect(await button(row(paying.email), 'Confirmar').count()).toBe(0)

    await open('/dashboard/admin-subscriptions', 'Assinaturas')
    await row(paying.email).getByText('Ativa', { exact: true }).waitFor()
  })

  it('sends a payment whose amount differs to review, activating nothing', async () => {
    await open('/dashboard/admin-payments', 'Pagamentos')
    await button(row(reviewed.email), 'Confirmar').click()
    expect(await field(dialog(), 'Valor recebido').inputValue()).toBe('199,00')
    await field(dialog(), 'Valor recebido').fill('150,00')
    await button(dialog(), 'Confirmar pagamento').click()
    await expectToast('Pagamento enviado para análise', /Nada foi ativado/)
    await row(reviewed.email).getByText('Em análise').waitFor()
    await open('/dashboard/admin-subscriptions', 'Assinaturas')
    await row(reviewed.email).getByText('Aguardando Pagamento PIX').waitFor()
  })

  it('creates a subscription awaiting PIX (with its invoice), edits it to active, and cancels it', async () => {
    await open('/dashboard/admin-subscriptions', 'Assinaturas')
    await button(page, 'Nova assinatura').click()
    const form = dialog()
    await button(form, 'Salvar').click()
    await form.getByText('Selecione o cliente.').waitFor()
    await form.getByText('Selecione o plano.').waitFor()

    await field(form, 'Cliente').fill('Diana')
    await form.getByRole('option', { name: new RegExp(manual.email) }).click()
    expect(await field(form, 'Cliente').inputValue()).toBe(`Diana Manual (${manual.email})`)
    await field(form, 'Plano').selectOption({ label: `Profissional — ${formatted(19900)}` })
    await field(form, 'Status').selectOption({ label: 'Aguardando Pagamento PIX' })
    await field(form, 'Data de início').fill('2026-03-10')
    await field(form, 'Data de término').fill('2026-03-01')
    await button(form, 'Salvar').click()
    await form.getByText('A data de término deve ser posterior à de início.').waitFor()
    // A period still running: one already ended would be closed by the minute's billing tick (scheduled cancellation)
    // between saving it as 'Cancelar no fim do período' and the admin's immediate cancellation below.
    await field(form, 'Data de término').fill('2027-04-10')
    await screenshot(page, 'admin-subscription-form-desktop')
    await button(form, 'Salvar').click()
    await expectToast('Assinatura salva com sucesso!')
    await dialogClosed()
    const created = row(manual.email)
    await created.getByText('Aguardando Pagamento PIX').waitFor()
    expect(await textOf(created)).toContain('10/03/2026 a 10/04/2027')

    await open('/dashboard/admin-payments', 'Pagamentos')
    const invoice = row(manual.email)
    await invoice.getByText('Aguardando PIX').waitFor()
    expect(await textOf(invoice)).toMatch(brl('R$ 199,00'))

    await open('/dashboard/admin-subscriptions', 'Assinaturas')
    await button(row(manual.email), 'Editar').click()
    expect(await field(dialog(), 'Cliente').inputValue()).toBe(`Diana Manual (${manual.email})`)
    expect(await field(dialog(), 'Data de início').inputValue()).toBe('2026-03-10')
    await field(dialog(), 'Status').selectOption({ label: 'Ativa' })
    // Before saving as active, the form shows which pending invoices will be settled, and the total.
    const settles = dialog().getByRole('region', { name: 'Faturas que serão marcadas como pagas' })
    await settles.getByText('Ao salvar, 1 fatura PIX pendente será marcada como paga (confirmação manual):').waitFor()
    expect(await textOf(settles)).toMatch(/Nova assinatura · vence em \d{2}\/\d{2}\/\d{4}\s*R\$\s199,00/)
    expect(await textOf(settles)).toMatch(/Total\s*R\$\s199,00/)
    await field(dialog(), 'Cancelar no fim do período').check()
    await button(dialog(), 'Salvar').click()
    await expectToast('Assinatura salva com sucesso!')
    await row(manual.email).getByText('Ativa', { exact: true }).waitFor()
    await row(manual.email).getByText('Cancela no fim do período').waitFor()

    // Saved as active: the pending invoice was settled by manual confirmation.
    await open('/dashboard/admin-payments', 'Pagamentos')
    await row(manual.email).getByText('Pago', { exact: true }).waitFor()
    expect(await textOf(row(manual.email))).toContain('Confirmação manual')

    await open('/dashboard/admin-subscriptions', 'Assinaturas')
    await button(row(manual.email), 'Cancelar').click()
    await dialog().getByText('será cancelada imediatamente').waitFor()
    await button(dialog(), 'Cancelar assinatura').click()
    await expectToast('Assinatura cancelada com sucesso!')
    await row(manual.email).getByText('Cancelada', { exact: true }).waitFor()
    expect(await button(row(manual.email), 'Cancelar').count()).toBe(0)
  })

  it('makes a customer admin and removes it, and refuses removing the last admin', async () => {
    await open('/dashboard/users', 'Usuários')
    await button(row(manual.email), 'Tornar Admin').click()
    // Step-up: a role change asks for the password again (valid 5 minutes), then goes through by itself.
    const stepUp = page.getByRole('dialog', { name: 'Confirme sua identidade' })
    await field(stepUp, 'Senha').fill('nao-e-a-senha')
    await button(stepUp, 'Confirmar').click()
    await stepUp.getByText('Senha incorreta. Confira e tente novamente.', { exact: true }).waitFor()
    await field(stepUp, 'Senha').fill(admin.password)
    await button(stepUp, 'Confirmar').click()
    await expectToast('Permissões atualizadas.')
    await stepUp.waitFor({ state: 'detached' })
    await row(manual.email).getByText('Administrador', { exact: true }).waitFor()
    await button(row(manual.email), 'Remover Admin').click()
    await expectToast('Permissões atualizadas.')
    await row(manual.email).getByText('Cliente', { exact: true }).waitFor()

    await button(row(admin.email), 'Remover Admin').click()
    await expectToast('Erro ao atualizar permissões', 'Não é possível remover o último administrador.')
    await row(admin.email).getByText('Administrador', { exact: true }).waitFor()

    await open('/dashboard/customers', 'Clientes')
    const customer = row(paying.email)
    await customer.waitFor()
    const text = await textOf(customer)
    expect(text).toContain('Carla Pagante')
    expect(text).toContain('Empresa Carla Pagante')
    expect(text).toContain(paying.phone)
    expect(text).toContain('Cliente')
    expect(await row(admin.email).count()).toBe(0)
  })

  it('saves the PIX settings with a live preview of the BR Code, and shows the card set-up', async () => {
    await open('/dashboard/settings', 'Configurações')
    const labels = ['Chave PIX', 'Nome do beneficiário', 'Cidade do beneficiário', 'Descrição']
    for (const label of labels) await field(page, label).waitFor()
    await field(page, 'Chave PIX').fill('chave-invalida')
    await page
      .getByText('Chave PIX inválida: use CPF, CNPJ, e-mail, telefone com +55 ou chave aleatória.')
      .first()
      .waitFor()

    await field(page, 'Chave PIX').fill('Financeiro@Example.com')
    await field(page, 'Nome do beneficiário').fill('Atendimento Multicanal')
    await field(page, 'Cidade do beneficiário').fill('Itaitinga')
    await field(page, 'Descrição').fill('Assinatura')
    await page.getByText('Chave do tipo E-mail.').waitFor()
    const preview = field(page, 'Código PIX copia e cola')
    const parsed = parsePixBrCode(await preview.inputValue())
    expect(parsed).toMatchObject({
      key: 'financeiro@example.com',
      beneficiaryName: 'Atendimento Multicanal',
      beneficiaryCity: 'Itaitinga',
      amountCents: 100,
      crcValid: true,
    })
    const qr = page.getByRole('img', { name: 'QR Code PIX de exemplo' })
    expect(await qr.getAttribute('width')).toBe('200')

    // The preview follows the form as it is typed.
    await field(page, 'Cidade do beneficiário').fill('Fortaleza')
    expect(parsePixBrCode(await preview.inputValue()).beneficiaryCity).toBe('Fortaleza')

    await button(page, 'Salvar').click()
    // A new key asks for the password again, unless it was given in the last 5 minutes (the role test above).
    const stepUp = page.getByRole('dialog', { name: 'Confirme sua identidade' })
    const saved = toast(page, 'Configurações PIX salvas com sucesso!').first()
    await Promise.race([stepUp.waitFor(), saved.waitFor()])
    if (await stepUp.isVisible()) {
      await field(stepUp, 'Senha').fill(admin.password)
      await button(stepUp, 'Confirmar').click()
    }
    await expectToast('Configurações PIX salvas com sucesso!')
    await page.reload()
    await page.getByRole('heading', { level: 1, name: 'Configurações' }).waitFor()
    await expect.poll(() => field(page, 'Chave PIX').inputValue()).toBe('financeiro@example.com')
    expect(await field(page, 'Cidade do beneficiário').inputValue()).toBe('Fortaleza')

    await page.getByText('create-checkout-session', { exact: true }).waitFor()
    expect(await field(page, 'Endpoint do webhook').inputValue()).toBe(app.at('/api/webhooks/stripe'))
    await page.getByText('checkout.session.completed', { exact: true }).waitFor()
  })

  it('keeps search, filters, sort and page in the URL (a reload keeps them)', async () => {
    await page.goto(app.at('/dashboard/users?pageSize=2'))
    await page.getByText('Página 1 de 2').waitFor()
    await button(page, 'Próxima').click()
    await page.getByText('Página 2 de 2').waitFor()
    expect(new URL(page.url()).searchParams.get('page')).toBe('2')
    expect(await button(page, 'Próxima').isDisabled()).toBe(true)
    await button(page, 'Anterior').click()
    await page.getByText('Página 1 de 2').waitFor()

    await field(page, 'Papel').selectOption({ label: 'Cliente' })
    await page.waitForURL((url) => url.searchParams.get('role') === 'user')
    await button(page, 'Nome e empresa').click()
    await page.waitForURL((url) => url.searchParams.get('sort') === 'name')
    // The URL changes first; the router renders the new sort in a transition, which keeps the old table on screen
    // until the sorted page has come back.
    await page
      .getByRole('columnheader', { name: 'Nome e empresa' })
      .and(page.locator('[aria-sort="ascending"]'))
      .waitFor()
    expect(await page.getByRole('columnheader', { name: 'Nome e empresa' }).getAttribute('aria-sort')).toBe('ascending')
    await field(page, 'Buscar').fill('Bruno')
    await page.waitForURL((url) => url.searchParams.get('q') === 'Bruno')
    await page.getByText('Página 1 de 1').waitFor()
    expect(await page.getByRole('row').count()).toBe(2) // header + Bruno

    const shared = page.url()
    await page.reload()
    await row(reviewed.email).waitFor()
    expect(page.url()).toBe(shared)
    expect(await field(page, 'Buscar').inputValue()).toBe('Bruno')
    expect(await field(page, 'Papel').inputValue()).toBe('user')
    expect(await page.getByRole('columnheader', { name: 'Nome e empresa' }).getAttribute('aria-sort')).toBe('ascending')

    await field(page, 'Buscar').fill('ninguém com este nome')
    await page.getByText('Nenhum resultado encontrado.').waitFor()
    await button(page, 'Limpar filtros').click()
    await page.getByText('Página 1 de 2').waitFor()
    expect(await field(page, 'Buscar').inputValue()).toBe('')

    await page.goto(app.at('/dashboard/admin-payments?status=paid'))
    await row(paying.email).waitFor()
    expect(await row(reviewed.email).count()).toBe(0)
    expect(await field(page, 'Status').inputValue()).toBe('paid')
  })

  it('sends a regular user away from every admin screen with "Acesso negado"', async () => {
    const customerPage = await paying.context.newPage()
    for (const screen of screens) {
      await customerPage.goto(app.at(screen.path))
      await customerPage.waitForURL((url) => url.pathname === '/dashboard')
      await toast(customerPage, 'Acesso negado').first().waitFor()
      expect(await textOf(toast(customerPage, 'Acesso negado').first())).toContain(
        'Você não tem permissão para acessar esta área',
      )
      await dismissToasts(customerPage)
    }
    await customerPage.close()
  })

  it('renders every admin screen accessibly at 375 and 1280 px', async () => {
    const state = await adminContext.storageState()
    for (const [size, viewport] of Object.entries(viewports)) {
      const context = await app.browser.newContext({ viewport, locale: 'pt-BR', storageState: state })
      const target = await context.newPage()
      for (const screen of screens) {
        await target.goto(app.at(screen.path))
        await target.getByRole('heading', { level: 1, name: screen.heading, exact: true }).waitFor()
        await target
          .getByRole('status')
          .first()
          .waitFor({ state: 'detached', timeout: 10_000 })
          .catch(() => undefined)
        await screenshot(target, `admin-${screen.slug}-${size}`)
        await checkAccessible(target)
        // Nothing spills past the viewport: wide tables scroll inside their own region.
        const overflow = await target.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
        expect(overflow, `${screen.path} at ${size}`).toBeLessThanOrEqual(0)
      }
      await target.goto(app.at('/dashboard/admin-subscriptions'))
      await button(target, 'Nova assinatura').click()
      await target.getByRole('dialog').waitFor()
      await screenshot(target, `admin-subscription-dialog-${size}`)
      await checkAccessible(target)
      await context.close()
    }
  })
})

function formatted(cents: number): string {
  return new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(cents / 100)
}
