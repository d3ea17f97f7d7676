import type { BrowserContext, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { setupApp, type Viewport } from './support/app'
import { screenshot, toast } from './support/browser'
import { button, field } from './support/page'

// The admin made by ADMIN_EMAIL at start-up: a signed-in dashboard user without going through sign-up.
const admin = { email: 'admin@example.com', password: 'admin-senha-123' }
const app = setupApp({ admin })

async function signedIn(viewport: Viewport): Promise<{ context: BrowserContext; page: Page }> {
  const context = await app.newContext(viewport)
  const page = await context.newPage()
  await app.signIn(page, admin)
  return { context, page }
}

describe('a session that ends on the server', () => {
  it('sends the person to /login?next=<page> with the toast, instead of a data error', async () => {
    const { context, page } = await signedIn('desktop')
    try {
      await page.getByRole('link', { name: 'Pagamentos' }).first().click()
      await page.waitForURL((url) => url.pathname === '/dashboard/payments')
      await page.getByRole('heading', { name: 'Pagamentos', level: 1 }).waitFor()

      // The session is revoked elsewhere (as sign-out on another device, expiry or a password reset would do);
      // the browser still holds its cookie and the cached user.
      const cookie = (await context.cookies())
        .filter((c) => c.name.includes('session'))
        .map((c) => `${c.name}=${c.value}`)
        .join('; ')
      expect(cookie).not.toBe('')
      const signOut = await fetch(app.at('/api/auth/sign-out'), {
        method: 'POST',
        headers: { cookie, origin: app.url, 'content-type': 'application/json' },
        body: '{}',
      })
      expect(signOut.status).toBe(200)

      // The next page's data answers 401.
      await page.getByRole('link', { name: 'Minhas assinaturas' }).first().click()
      await page.waitForURL((url) => url.pathname === '/login')
      expect(new URL(page.url()).searchParams.get('next')).toBe('/dashboard/my-subscriptions')
      const shown = toast(page, 'Acesso não autorizado').filter({
        hasText: 'Você precisa estar logado para acessar esta página',
      })
      await shown.first().waitFor({ state: 'visible' })
      expect(await page.getByText('Ocorreu um erro desconhecido').count()).toBe(0)
      expect(await page.getByText('Usuário não autenticado').count()).toBe(0)
    } finally {
      await context.close()
    }
  })
})

describe('WhatsApp code check', () => {
  it("falls back to 'Código inválido ou expirado.' when the answer has no message", async () => {
    const context = await app.newContext('mobile')
    const page = await context.newPage()
    try {
      // A proxy in front of the API fails the check with an empty body (no problem+json of ours).
      await page.route('**/api/whatsapp/verify-code', (route) => route.fulfill({ status: 502, body: '' }))
      await page.goto(app.at('/signup'))
      await field(page, 'WhatsApp').fill('5585988887777')
      await button(page, 'Enviar código').click()
      await toast(page, 'Código enviado! Verifique seu WhatsApp.').first().waitFor({ state: 'visible' })
      await field(page, 'Código de verificação').fill('123456')
      await button(page, 'Verificar').click()
      const failed = toast(page, 'Erro na verificação')
      await failed.first().waitFor({ state: 'visible' })
      expect(await failed.first().textContent()).toContain('Código inválido ou expirado.')
      expect(await failed.first().textContent()).not.toContain('Ocorreu um erro desconhecido')
    } finally {
      await context.close()
    }
  })
})

describe('dashboard sidebar', () => {
  it('reaches the bottom of pages taller than the window (admin settings at 1280 and 375 px)', async () => {
    for (const viewport of ['desktop', 'mobile'] as const) {
      const { context, page } = await signedIn(viewport)
      try {
        await page.goto(app.at('/dashboard/settings'))
        await page.getByRole('heading', { name: 'Configurações', level: 1 }).waitFor()
        // Both sections loaded (their headings show while their queries still run): the PIX form and the card help.
        await page.getByLabel('Chave PIX').waitFor()
        await page.getByText('Endpoint do webhook').waitFor()
        const layout = await page.evaluate(() => {
          const column = document.querySelector('[data-sidebar-column]')
          const box = column?.getBoundingClientRect()
          return {
            pageHeight: document.documentElement.scrollHeight,
            windowHeight: window.innerHeight,
            column: box ? { top: box.top + window.scrollY, height: box.height, shown: box.width > 0 } : null,
            background: column ? getComputedStyle(column).backgroundColor : '',
          }
        })
        expect(layout.pageHeight).toBeGreaterThan(layout.windowHeight) // the case of the report
        if (viewport === 'desktop') {
          expect(layout.column?.shown).toBe(true)
          expect(layout.column?.top).toBe(0)
          expect(layout.column?.height).toBe(layout.pageHeight)
          expect(layout.background).not.toBe('rgba(0, 0, 0, 0)')
        } else {
          expect(layout.column?.shown).toBe(false) // a drawer below md
        }
        await screenshot(page, `dashboard-settings-${viewport}`)
      } finally {
        await context.close()
      }
    }
  })
})
