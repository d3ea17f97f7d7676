import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parsePixBrCode } from '../src/domain/pix'
import { type Account, uniquePhone, setupApp } from './support/app'
import { screenshot } from './support/browser'
import { brl, button, checkAccessible, closeDialog, expectToast, field } from './support/page'

const app = setupApp({ admin: { email: 'admin@example.com', password: 'senha-admin-segura-1' } })

/** The customer's own payments, read with the page's session cookie. */
async function ownPayments(page: Page): Promise<Array<{ id: string; status: string; amountCents: number }>> {
  const response = await page.request.get(app.at('/api/payments?pageSize=100'))
  expect(response.status()).toBe(200)
  return (await response.json()).items
}

/** The subscription card whose heading is this plan's name (newest first, so the first one). */
const subscriptionCard = (page: Page, planName: string) =>
  page.getByRole('group', { name: planName, exact: true }).first()

const endToEndId = 'E00000000202601011200ABCDEFGHIJK'

describe('customer billing journey', () => {
  let account: Account
  let page: Page

  beforeAll(async () => {
    account = await app.createAccount()
    page = await app.newPage('desktop')
    await app.signIn(page, account)
  })

  afterAll(async () => {
    await page?.context().close()
  })

  it('shows the empty overview with a way to choose a plan', async () => {
    await page.getByText('Você ainda não tem uma assinatura ativa.').waitFor()
    expect(await page.title()).toContain('Painel')
    await page.getByRole('link', { name: 'Escolher um plano' }).click()
    await page.waitForURL((url) => url.pathname === '/dashboard/subscriptions')
    await page.getByRole('button', { name: 'Assinar Básico' }).waitFor()
  })

  it('subscribes by PIX and shows a valid BR Code for the plan amount', async () => {
    await page.goto(app.at('/dashboard/subscriptions'))
    await page.getByRole('button', { name: 'Assinar Básico' }).click()
    const methodDialog = page.getByRole('dialog')
    await methodDialog.getByRole('heading', { name: 'Assinar Básico' }).waitFor()
    await button(methodDialog, 'Pagar com PIX').click()
    await expectToast(page, 'Fatura PIX gerada! Realize o pagamento para ativar sua assinatura.')

    const pixDialog = page.getByRole('dialog', { name: 'Pagamento via PIX' })
    const codeBox = field(pixDialog, 'Código PIX copia e cola')
    await codeBox.waitFor()
    const brCode = await codeBox.inputValue()
    const parsed = parsePixBrCode(brCode)
    expect(parsed.crcValid).toBe(true)
    expect(parsed.amountCents).toBe(9900)
    await pixDialog.getByRole('img', { name: 'QR Code PIX' }).waitFor()
    const qrSize = await pixDialog.getByRole('img', { name: 'QR Code PIX' }).boundingBox()
    expect(qrSize?.width).toBe(200)
    await pixDialog.getByText(brl('R$ 99,00')).first().waitFor()
    await pixDialog.getByText('A ativação é manual e acontece em até 24 horas após o pagamento.').waitFor()
    await screenshot(page, 'billing-pix-dialog-desktop')
    await checkAccessible(page)
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url })
    await button(pixDialog, 'Copiar código').click()
    await expectToast(page, 'Código PIX copiado!')
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(brCode)
    await closeDialog(page)
  })

  it('lists the PIX invoice as pending and the subscription as waiting for PIX', async () => {
    await page.goto(app.at('/dashboard/payments'))
    const invoice = page.getByRole('group', { name: 'Fatura Básico' })
    await invoice.waitFor()
    await invoice.getByText(brl('R$ 99,00')).first().waitFor()
    await invoice.getByText('Aguardando PIX').waitFor()
    await button(invoice, 'Pagar com PIX').click()
    const pixDialog = page.getByRole('dialog', { name: 'Pagamento via PIX' })
    const brCode = await field(pixDialog, 'Código PIX copia e cola').inputValue()
    expect(parsePixBrCode(brCode).crcValid).toBe(true)
    expect(parsePixBrCode(brCode).amountCents).toBe(9900)
    await closeDialog(page)

    await page.goto(app.at('/dashboard/my-subscriptions'))
    const card = subscriptionCard(page, 'Básico')
    await card.getByText('Aguardando Pagamento PIX').waitFor()
    await card.getByText(brl('R$ 99,00/mês')).waitFor()
    expect(await button(card, 'Trocar Plano').count()).toBe(0)
    expect(await button(card, 'Cancelar').count()).toBe(0)
  })

  it('shows the confirmed PIX payment as active with a printable receipt', async () => {
    const [pending] = (await ownPayments(page)).filter((p) => p.status === 'pending_pix')
    expect(pending?.amountCents).toBe(9900)
    await app.confirmPixAsAdmin(pending!.id, 9900, endToEndId)

    await page.goto(app.at('/dashboard/my-subscriptions'))
    const card = subscriptionCard(page, 'Básico')
    await card.getByText('Ativa', { exact: true }).waitFor()
    await button(card, 'Trocar Plano').waitFor()
    await button(card, 'Cancelar').waitFor()

    await page.goto(app.at('/dashboard/payments'))
    await page.getByText('Nenhuma fatura pendente.').waitFor()
    const history = page.getByRole('table', { name: 'Histórico de pagamentos' })
    const paidRow = history.getByRole('row').filter({ hasText: 'Pago' }).first()
    await paidRow.getByText(brl('R$ 99,00')).waitFor()
    await paidRow.getByText(pending!.id.slice(0, 8)).waitFor()
    await paidRow.getByRole('link', { name: 'Ver recibo' }).click()
    await page.waitForURL((url) => url.pathname === `/dashboard/payments/${pending!.id}/receipt`)
    const receipt = page.getByRole('article', { name: 'Recibo de pagamento' })
    await receipt.getByText(endToEndId).waitFor()
    await receipt.getByText(brl('R$ 99,00')).waitFor()
    await receipt.getByText('Básico').waitFor()
    await receipt.getByText(account.email).waitFor()
    await button(page, 'Imprimir').waitFor()
  })

  it('upgrades a PIX subscription by paying only the prorated amount', async () => {
    await page.goto(app.at('/dashboard/my-subscriptions'))
    await button(subscriptionCard(page, 'Básico'), 'Trocar Plano').click()
    const dialog = page.getByRole('dialog', { name: 'Trocar plano' })
    // Minutes into a one-month period, the differences (R$ 199,00 and R$ 399,00 − R$ 99,00) are still whole.
    const pro = dialog.getByRole('listitem').filter({ hasText: 'Profissional' })
    await pro.getByText(brl('Valor proporcional: R$ 100,00')).waitFor()
    await dialog.getByRole('listitem').filter({ hasText: 'Empresarial' }).getByText(brl('R$ 300,00')).waitFor()
    await screenshot(page, 'billing-upgrade-dialog-desktop')
    await checkAccessible(page)
    await button(pro, 'Mudar para Profissional').click()

    const pixDialog = page.getByRole('dialog', { name: 'Pagamento via PIX' })
    const brCode = await field(pixDialog, 'Código PIX copia e cola').inputValue()
    expect(parsePixBrCode(brCode)).toMatchObject({ crcValid: true, amountCents: 10000 })
    await closeDialog(page)

    await page.goto(app.at('/dashboard/payments'))
    const invoice = page.getByRole('group', { name: 'Fatura Básico' })
    await invoice.getByText('Upgrade de plano para Profissional').waitFor()
    await invoice.getByText(brl('R$ 100,00')).waitFor()
  })

  it('cancels at the end of the period and shows the notice', async () => {
    await page.goto(app.at('/dashboard/my-subscriptions'))
    const card = subscriptionCard(page, 'Básico')
    await button(card, 'Cancelar').click()
    await page.getByRole('dialog', { name: 'Cancelar assinatura?' }).waitFor()
    await button(page.getByRole('dialog'), 'Confirmar cancelamento').click()
    await expectToast(
      page,
      'Cancelamento solicitado: Sua assinatura será cancelada no final do período de faturamento.',
    )
    await card.getByText('Cancelamento agendado para o fim do período', { exact: false }).waitFor()
    expect(await button(card, 'Cancelar').count()).toBe(0)

    await page.goto(app.at('/dashboard'))
    await page.getByText('Cancelamento agendado para o fim do período').waitFor()
    await page.getByText('Básico', { exact: true }).waitFor()
  })

  it('subscribes by card through the simulator: active, with a receipt, and upgradable', async () => {
    await page.goto(app.at('/dashboard/subscriptions'))
    await page.getByRole('button', { name: 'Assinar Profissional' }).click()
    await button(page.getByRole('dialog'), 'Pagar com Cartão').click()
    await page.waitForURL((url) => !url.pathname.startsWith('/dashboard/subscriptions'))
    await button(page, 'Aprovar pagamento').click()
    await page.waitForURL((url) => url.pathname === '/dashboard/my-subscriptions')
    await page.getByText('Pagamento aprovado! Sua assinatura será ativada em instantes.').waitFor()
    const card = subscriptionCard(page, 'Profissional')
    await card.getByText('Ativa', { exact: true }).waitFor({ timeout: 30_000 })
    await card.getByText('Cartão de crédito (Stripe)').waitFor()

    await page.goto(app.at('/dashboard/payments'))
    const history = page.getByRole('table', { name: 'Histórico de pagamentos' })
    const paidRow = history.getByRole('row').filter({ hasText: 'R$' }).filter({ hasText: '199,00' }).first()
    await paidRow.getByText('Pago').waitFor()
    expect(await paidRow.getByRole('link', { name: /Ver recibo/ }).getAttribute('href')).toBeTruthy()

    await page.goto(app.at('/dashboard/my-subscriptions'))
    await button(subscriptionCard(page, 'Profissional'), 'Trocar Plano').click()
    const dialog = page.getByRole('dialog', { name: 'Trocar plano' })
    await dialog.getByText(brl('Valor proporcional: R$ 200,00')).waitFor()
    await button(dialog, 'Mudar para Empresarial').click()
    await expectToast(page, 'Plano alterado com sucesso!')
    await subscriptionCard(page, 'Empresarial').getByText('Ativa', { exact: true }).waitFor()
    await button(subscriptionCard(page, 'Empresarial'), 'Trocar Plano').click()
    await page.getByRole('dialog').getByText('Você já está no plano mais alto.').waitFor()
    await closeDialog(page)
  })

  it('updates the profile and changes the WhatsApp number after verifying it', async () => {
    await page.goto(app.at('/dashboard/account'))
    expect(await field(page, 'E-mail').inputValue()).toBe(account.email)
    expect(await field(page, 'E-mail').getAttribute('readonly')).not.toBeNull()
    expect(await field(page, 'WhatsApp').inputValue()).toBe(account.phone)
    await page.getByText('Esqueci minha senha', { exact: false }).waitFor()
    await field(page, 'Nome').fill('Ana Cliente Souza')
    await button(page, 'Salvar').click()
    await expectToast(page, 'Perfil atualizado com sucesso!')

    const newPhone = uniquePhone()
    await button(page, 'Alterar').click()
    const dialog = page.getByRole('dialog', { name: 'Alterar WhatsApp' })
    await field(dialog, 'Novo número de WhatsApp').fill(newPhone)
    await button(dialog, 'Enviar código').click()
    const code = await app.whatsappCode(newPhone)
    await field(dialog, 'Código de verificação').fill(code)
    await button(dialog, 'Verificar').click()
    await button(dialog, 'Salvar número').click()
    await expectToast(page, 'Número de WhatsApp atualizado com sucesso!')
    await page.getByRole('dialog').waitFor({ state: 'detached' })
    await expect.poll(() => field(page, 'WhatsApp').inputValue()).toBe(newPhone)
  })

  it('starts the checkout chosen on the public plans page', async () => {
    await page.goto(app.at('/plans'))
    await page.getByRole('button', { name: 'Assinar Básico' }).click()
    await button(page.getByRole('dialog'), 'Pagar com PIX').click()
    await page.waitForURL((url) => url.pathname === '/dashboard/subscriptions')
    const pixDialog = page.getByRole('dialog', { name: 'Pagamento via PIX' })
    const brCode = await field(pixDialog, 'Código PIX copia e cola').inputValue()
    expect(parsePixBrCode(brCode).amountCents).toBe(9900)
    // The query string is gone, so a reload does not start another checkout.
    expect(new URL(page.url()).search).toBe('')
    await closeDialog(page)
  })

  it("pays that open PIX invoice with 'Pagar com Cartão': the same subscription moves to card", async () => {
    await page.goto(app.at('/dashboard/my-subscriptions'))
    await subscriptionCard(page, 'Básico').getByText('Aguardando Pagamento PIX').waitFor()
    const subscriptionsBefore = await page.getByRole('group', { name: 'Básico', exact: true }).count()

    await page.goto(app.at('/dashboard/payments'))
    const invoice = page.getByRole('group', { name: 'Fatura Básico' }).filter({ hasText: 'Nova assinatura' })
    await button(invoice, 'Pagar com Cartão').click()
    await page.waitForURL((url) => url.pathname.startsWith('/api/dev/card-simulator/'))
    await page.getByText(brl('R$ 99,00')).first().waitFor()
    await button(page, 'Aprovar pagamento').click()
    await page.waitForURL((url) => url.pathname === '/dashboard/payments')
    await page.getByText('Pagamento com cartão aprovado! A fatura será atualizada em instantes.').waitFor()
    await page.getByRole('heading', { name: 'Histórico de pagamentos' }).waitFor()
    expect(await invoice.count()).toBe(0)

    await page.goto(app.at('/dashboard/my-subscriptions'))
    const card = subscriptionCard(page, 'Básico')
    await card.getByText('Ativa', { exact: true }).waitFor()
    await card.getByText('Cartão de crédito (Stripe)').waitFor()
    expect(await page.getByRole('group', { name: 'Básico', exact: true }).count()).toBe(subscriptionsBefore)
  })

  const pages = [
    ['overview', '/dashboard', 'Painel'],
    ['account', '/dashboard/account', 'Minha conta'],
    ['my-subscriptions', '/dashboard/my-subscriptions', 'Minhas assinaturas'],
    ['subscriptions', '/dashboard/subscriptions', 'Assinar um plano'],
    ['payments', '/dashboard/payments', 'Pagamentos'],
  ] as const

  for (const viewport of ['mobile', 'desktop'] as const) {
    it(`every dashboard page is accessible and fits a ${viewport} screen`, async () => {
      const view = await app.newPage(viewport)
      await app.signIn(view, account)
      for (const [name, path, heading] of pages) {
        await view.goto(app.at(path))
        await view.getByRole('heading', { level: 1, name: heading }).waitFor()
        await view.getByRole('status').filter({ hasText: 'Carregando' }).waitFor({ state: 'detached' })
        expect(await view.title()).toContain(heading)
        const overflow = await view.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
        expect(overflow, `${name} scrolls sideways`).toBeLessThanOrEqual(0)
        await screenshot(view, `billing-${name}-${viewport}`)
        await checkAccessible(view)
      }
      // Our receipt of the confirmed PIX payment, reached from the history.
      await view.goto(app.at('/dashboard/payments'))
      await view
        .getByRole('link', { name: 'Ver recibo' })
        .and(view.locator('[href^="/dashboard/payments/"]'))
        .first()
        .click()
      await view.getByRole('heading', { level: 1, name: 'Recibo de pagamento' }).waitFor()
      await button(view, 'Imprimir').waitFor()
      expect(await view.title()).toContain('Recibo de pagamento')
      await screenshot(view, `billing-receipt-${viewport}`)
      await checkAccessible(view)
      await view.context().close()
    })
  }
})
