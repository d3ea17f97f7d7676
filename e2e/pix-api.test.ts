// PIX_PROVIDER=api-pix in the browser: the server talks to the fake PSP (mTLS on loopback), a customer subscribes
// with PIX, the fake PSP pays, and the open PIX view turns into 'Pagamento confirmado!' by itself, no admin involved.
import { describe, expect, it } from 'vitest'
import { pixTxidFor } from '../src/domain/pix-txid'
import { demoPixSettings } from '../src/server/db/seed'
import { setupApp } from './support/app'
import { screenshot } from './support/browser'

const admin = { email: 'admin@example.com', password: 'senha-admin-1' }
const app = setupApp({ admin, psp: { merchantKey: demoPixSettings.pixKey, callbackRetryDelayMs: 200 } })

describe('PIX confirmed by itself (API Pix)', () => {
  it.each(['desktop', 'mobile'] as const)(
    'on a %s screen: subscribe with PIX, the PSP pays, the page shows the active subscription within 10 s',
    async (viewport) => {
      expect(app.psp.webhook(app.psp.merchantKey)?.webhookUrl).toBe(app.at('/api/webhooks/pix'))
      const page = await app.newPage(viewport)
      try {
        await app.signIn(page, await app.createAccount({ emailPrefix: 'pix' }))
        await page.goto(app.at('/dashboard/subscriptions'))
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
        const response = await page.request.get(app.at('/api/payments'))
        const [payment] = ((await response.json()) as { items: Array<{ id: string; status: string }> }).items
        const txid = pixTxidFor(payment?.id ?? '')
        // The customer sees the PSP's own copia e cola, not the static code.
        expect(await codeBox.inputValue()).toBe((app.psp.charge(txid) as { pixCopiaECola: string }).pixCopiaECola)
        await screenshot(page, `pix-api-waiting-${viewport}`)

        const paidAt = Date.now()
        await app.psp.controls.pay({ txid, payerName: 'Ana Cliente' })
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
    const page = await app.newPage('desktop')
    try {
      await app.signIn(page, admin)
      await page.goto(app.at('/dashboard/admin-payments'))
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
