import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { setupApp } from './support/app'
import { viewports } from './support/browser'

// The public pages are prerendered on the server (src/server/modules/site/prerender.ts): their content is in the
// HTML, so a browser without JavaScript reads it, and an admin's plan change shows on the next request.

const admin = { email: 'admin.prerender@example.com', password: 'admin-senha-123' }
const app = setupApp({ admin, env: { SUPPORT_WHATSAPP: '5585911112222' } })

async function textWithoutJavaScript(path: string): Promise<string> {
  const context = await app.browser.newContext({
    javaScriptEnabled: false,
    viewport: viewports.mobile,
    locale: 'pt-BR',
  })
  try {
    const page = await context.newPage()
    await page.goto(app.at(path))
    return ((await page.locator('body').textContent()) ?? '').replace(/\s+/g, ' ')
  } finally {
    await context.close()
  }
}

describe('without JavaScript', () => {
  it('/ shows the headline, the benefits, the footer and the WhatsApp button', async () => {
    const text = await textWithoutJavaScript('/')
    expect(text).toContain('Todos os canais de atendimento da sua empresa em um só lugar')
    expect(text).toContain('Vários atendentes conectados ao mesmo número, ao mesmo tempo.')
    expect(text).toContain('Política de Privacidade')
    const html = await (await fetch(`${app.url}/`)).text()
    expect(html).toContain('href="https://wa.me/5585911112222?text=')
    expect(html).toMatch(/<title>Atendimento multicanal para sua empresa \| Atendimento Multicanal<\/title>/)
  })

  it('/plans shows every plan on sale with its price, cheapest first', async () => {
    const text = await textWithoutJavaScript('/plans')
    expect(text).toContain('Planos de assinatura')
    const positions = ['Básico', 'R$ 99,00', 'Profissional', 'R$ 199,00', 'Empresarial', 'R$ 399,00'].map((s) => {
      expect(text, s).toContain(s)
      return text.indexOf(s)
    })
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
    expect(text).toContain('Assinar Profissional')
  })

  it('/login, /signup, the legal pages and the 404 page have their content', async () => {
    expect(await textWithoutJavaScript('/login')).toContain('Entrar')
    expect(await textWithoutJavaScript('/signup')).toContain('Criar conta')
    expect(await textWithoutJavaScript('/terms-of-service')).toContain('Termos de Serviço')
    expect(await textWithoutJavaScript('/privacy-policy')).toContain('Lei nº 13.709/2018')
    expect(await textWithoutJavaScript('/nao-existe')).toContain('404')
  })
})

describe('a plan change by an admin', () => {
  it('shows on the next request of /plans, and the page hydrates with it', async () => {
    const before = await (await fetch(`${app.url}/plans`)).text()
    expect(before).toContain('Profissional')
    expect(before).not.toContain('Profissional Plus')

    const signIn = await fetch(`${app.url}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: app.url },
      body: JSON.stringify(admin),
    })
    expect(signIn.status, await signIn.clone().text()).toBe(200)
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ')
    const put = async (body: unknown) => {
      const response = await fetch(`${app.url}/api/admin/plans/plan_pro`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', origin: app.url, cookie },
        body: JSON.stringify(body),
      })
      expect(response.status, await response.clone().text()).toBe(200)
    }
    await put({
      id: 'plan_pro',
      name: 'Profissional Plus',
      description: 'Para equipes que atendem em vários canais ao mesmo tempo.',
      priceCents: 24990,
      features: ['3 números de WhatsApp'],
      boxQuantity: 3,
      agentQuantity: 10,
      popular: true,
      active: true,
    })

    const after = await (await fetch(`${app.url}/plans`)).text()
    expect(after).toContain('Profissional Plus')
    expect(after).toMatch(/R\$\s249,90/) // formatBRL puts a no-break space after R$

    // In the browser, the hydrated page keeps it (no refetch flicker back to the old plan).
    const context = await app.browser.newContext({ viewport: viewports.desktop, locale: 'pt-BR' })
    try {
      const page = await context.newPage()
      await page.goto(`${app.url}/plans`, { waitUntil: 'networkidle' })
      await page.getByRole('button', { name: 'Assinar Profissional Plus' }).click()
      await page.getByRole('dialog').getByRole('heading', { name: 'Assinar Profissional Plus' }).waitFor()
    } finally {
      await context.close()
    }

    // Hidden from sale: gone from the next /plans.
    await put({
      id: 'plan_pro',
      name: 'Profissional Plus',
      priceCents: 24990,
      active: false,
    })
    const hidden = await (await fetch(`${app.url}/plans`)).text()
    expect(hidden).not.toContain('Profissional Plus')
    expect(hidden).toContain('Básico')
  })
})

describe('scripts after the first paint', () => {
  it('a public page paints before it asks for any script, its one inline loader allowed by its hash, then hydrates', async () => {
    const response = await fetch(`${app.url}/plans`)
    const html = await response.text()
    // Compressed like every answer (the pages were once served by the not-found handler, which skipped it).
    expect(response.headers.get('content-encoding')).toMatch(/^(br|gzip)$/)
    const head = html.slice(0, html.indexOf('</head>'))
    expect(head).not.toMatch(/<script type="module"|rel="modulepreload"/)
    const inline = [...html.matchAll(/<script>([^<]+)<\/script>/g)].map((m) => m[1]!)
    expect(inline).toHaveLength(1)
    const hash = `'sha256-${createHash('sha256').update(inline[0]!).digest('base64')}'`
    const scriptSrc = /script-src ([^;]+)/.exec(response.headers.get('content-security-policy') ?? '')?.[1] ?? ''
    expect(scriptSrc.split(' ')).toEqual(["'self'", hash])

    const context = await app.browser.newContext({ viewport: viewports.mobile, locale: 'pt-BR' })
    try {
      const page = await context.newPage()
      const refused: string[] = []
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/.test(message.text())) refused.push(message.text())
      })
      await page.goto(app.at('/plans'))
      await page.locator('html[data-hydrated]').waitFor()
      const timing = await page.evaluate(() => ({
        paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
        scripts: performance
          .getEntriesByType('resource')
          .filter((r) => r.name.endsWith('.js'))
          .map((r) => r.startTime),
      }))
      expect(refused).toEqual([])
      expect(timing.scripts.length).toBeGreaterThan(0)
      expect(Math.min(...timing.scripts)).toBeGreaterThanOrEqual(timing.paint)
      // Hydrated: the page's buttons act.
      await page
        .getByRole('button', { name: /^Assinar / })
        .first()
        .click()
      await page.getByRole('dialog').waitFor()
    } finally {
      await context.close()
    }
  })

  it('a button pressed before the page has its code acts once the page is hydrated', async () => {
    const context = await app.browser.newContext({ viewport: viewports.desktop, locale: 'pt-BR' })
    try {
      const page = await context.newPage()
      // The entry script is held until the button was pressed: the click lands on the prerendered HTML.
      let release = () => {}
      const held = new Promise<void>((resolve) => {
        release = resolve
      })
      await page.route(/\/assets\/index-[\w-]+\.js$/, async (route) => {
        await held
        await route.continue()
      })
      await page.goto(app.at('/plans'), { waitUntil: 'domcontentloaded' })
      await page.getByRole('button', { name: 'Assinar Básico' }).click()
      expect(await page.evaluate(() => document.documentElement.hasAttribute('data-hydrated'))).toBe(false)
      release()
      await page.getByRole('dialog').getByRole('heading', { name: 'Assinar Básico' }).waitFor()
    } finally {
      await context.close()
    }
  })
})
