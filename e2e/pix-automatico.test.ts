// PIX Automático in the browser: a customer subscribes choosing 'PIX Automático (renovação automática)' with a CPF,
// the fake PSP settles the composite code's charge (which approves the recurrence), and the subscription shows as
// active with the automatic renewal on.
import { describe, expect, it } from 'vitest'
import { pixTxidFor } from '../src/domain/pix-txid'
import { demoPixSettings } from '../src/server/db/seed'
import { setupApp } from './support/app'
import { screenshot } from './support/browser'

const admin = { email: 'admin@example.com', password: 'senha-admin-1' }
const app = setupApp({
  admin,
  psp: { merchantKey: demoPixSettings.pixKey, callbackRetryDelayMs: 200 },
  env: { PIX_AUTOMATICO: 'true', PIX_AUTOMATICO_ACCOUNT: '0001:1234567:CORRENTE' },
})

describe('PIX Automático (renovação automática)', () => {
  it('subscribe with PIX Automático, the PSP settles and approves, the subscription is active with renewal on', async () => {
    const page = await app.newPage('desktop')
    try {
      await app.signIn(page, await app.createAccount({ emailPrefix: 'pix' }))
      await page.goto(app.at('/dashboard/subscriptions'))
      await page.getByRole('button', { name: 'Assinar Básico' }).click()
      const methodDialog = page.getByRole('dialog')
      await methodDialog.getByRole('button', { name: 'PIX (pagar só esta fatura)', exact: true }).waitFor()
      await methodDialog.getByLabel('CPF ou CNPJ do pagador').fill('529.982.247-24')
      await methodDialog.getByRole('button', { name: 'PIX Automático (renovação automática)', exact: true }).click()
      await methodDialog.getByText('CPF ou CNPJ inválido. Confira os números.').waitFor()
      await methodDialog.getByLabel('CPF ou CNPJ do pagador').fill('529.982.247-25')
      await screenshot(page, 'pix-automatico-choice-desktop')
      await methodDialog.getByRole('button', { name: 'PIX Automático (renovação automática)', exact: true }).click()

      const pixDialog = page.getByRole('dialog', { name: 'Pagamento via PIX' })
      const codeBox = pixDialog.getByLabel('Código PIX copia e cola', { exact: true })
      await codeBox.waitFor()
      await pixDialog.getByText('PIX Automático: o que você autoriza').waitFor()
      expect(await codeBox.inputValue()).toContain('/qr/v2/rec/')
      await screenshot(page, 'pix-automatico-code-desktop')

      const response = await page.request.get(app.at('/api/payments'))
      const [payment] = ((await response.json()) as { items: Array<{ id: string }> }).items
      await app.psp.controls.pay({ txid: pixTxidFor(payment?.id ?? '') })
      await pixDialog.getByText('Pagamento confirmado!').waitFor({ timeout: 15_000 })

      await pixDialog.getByRole('link', { name: 'Minhas assinaturas', exact: true }).click()
      await page.waitForURL((url) => url.pathname === '/dashboard/my-subscriptions')
      const card = page.getByRole('group', { name: 'Básico', exact: true }).first()
      await card.getByText('Ativa', { exact: true }).waitFor({ timeout: 10_000 })
      const renewal = card.getByRole('region', { name: 'Renovação automática via PIX' })
      for (let i = 0; i < 20; i++) {
        if ((await renewal.getByText('ativa', { exact: true }).count()) > 0) break
        await page.reload()
        await new Promise((r) => setTimeout(r, 500))
      }
      await renewal.getByText('ativa', { exact: true }).waitFor({ timeout: 10_000 })
      await renewal.getByRole('button', { name: 'Desativar renovação automática' }).waitFor()
      await screenshot(page, 'pix-automatico-active-desktop')
    } finally {
      await page.context().close()
    }
  }, 120_000)

  it('the admin sees the recurrence and its history on the subscription (phone screen)', async () => {
    const page = await app.newPage('mobile')
    try {
      await app.signIn(page, admin)
      await page.goto(app.at('/dashboard/admin-subscriptions'))
      await page.getByRole('heading', { level: 1, name: 'Assinaturas', exact: true }).waitFor()
      await page.getByRole('button', { name: 'PIX Automático', exact: true }).first().click()
      const dialog = page.getByRole('dialog', { name: 'PIX Automático' })
      await dialog.getByRole('heading', { name: 'Autorizações (recorrências)' }).waitFor()
      await dialog.getByText('R$\u00a099,00 por mês').waitFor()
      await dialog.getByText('ativa', { exact: true }).waitFor()
      await dialog
        .getByText(/Histórico \(\d+\)/)
        .first()
        .click()
      await dialog
        .getByText(/APROVADA/)
        .first()
        .waitFor()
      await screenshot(page, 'pix-automatico-admin-mobile')
    } finally {
      await page.context().close()
    }
  }, 120_000)
})
