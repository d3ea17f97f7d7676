import type { BrowserContext, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Account, setupApp } from './support/app'
import { expectAccessible, screenshot, viewports } from './support/browser'
import { normalized, textOf } from './support/page'

const company = {
  COMPANY_LEGAL_NAME: 'Chat Nordeste Tecnologia Ltda',
  COMPANY_CNPJ: '12.345.678/0001-95',
  COMPANY_ADDRESS: 'Rua das Flores, 250, Centro, Itaitinga - CE, 61880-000, Brasil',
  COMPANY_CREDIT: 'Estúdio Caju',
  SUPPORT_WHATSAPP: '5585988887777',
}

const benefits = [
  'Vários atendentes conectados ao mesmo número, ao mesmo tempo.',
  'WhatsApp, Instagram, Facebook, e-mail e outros canais em uma só tela.',
  'Gestão de conversas com transferência entre departamentos e acompanhamento de desempenho.',
  'Respostas rápidas com mensagens automáticas, etiquetas e chatbots.',
  'Dados protegidos na nuvem, acessíveis de qualquer lugar.',
]

const demoPlans = [
  { id: 'plan_basic', name: 'Básico', price: 'R$ 99,00', popular: false },
  { id: 'plan_pro', name: 'Profissional', price: 'R$ 199,00', popular: true },
  { id: 'plan_business', name: 'Empresarial', price: 'R$ 399,00', popular: false },
]

const app = setupApp({ env: company })
let user: Account

beforeAll(async () => {
  user = await app.createAccount({ name: 'Joana Cliente', companyName: 'Loja da Joana' })
})

/** Signs the page's browser context in (page.request shares the context's cookies). */
const signIn = (page: Page) => app.signInByApi(page, user)

async function visible(locator: Locator) {
  await locator.waitFor({ state: 'visible', timeout: 10_000 })
}

async function metaDescription(page: Page) {
  return page.locator('meta[name="description"]').getAttribute('content')
}

async function expectNoHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  expect(overflow, 'horizontal overflow in px').toBeLessThanOrEqual(0)
}

/** Every request the page makes, to prove public pages never download dashboard code. */
function recordRequests(page: Page): string[] {
  const urls: string[] = []
  page.on('request', (request) => urls.push(request.url()))
  return urls
}

async function expectFooter(page: Page) {
  const footer = page.locator('footer')
  expect(await footer.getByRole('link', { name: 'Política de Privacidade' }).getAttribute('href')).toBe(
    '/privacy-policy',
  )
  expect(await footer.getByRole('link', { name: 'Termos de Serviço' }).getAttribute('href')).toBe('/terms-of-service')
  const text = await textOf(footer)
  expect(text).toContain('CHAT NORDESTE TECNOLOGIA LTDA')
  expect(text).toContain('CNPJ: 12.345.678/0001-95')
  expect(text).toContain('Rua das Flores, 250, Centro, Itaitinga - CE, 61880-000, Brasil')
  expect(text).toContain('By Estúdio Caju')
}

async function expectWhatsAppButton(page: Page) {
  const href = await page.getByRole('link', { name: 'Fale conosco pelo WhatsApp' }).getAttribute('href')
  expect(href).toMatch(/^https:\/\/wa\.me\/5585988887777\?text=.+/)
}

describe('server answers for the SPA', () => {
  it('serves the SPA for unknown pages and a JSON 404 for unknown API paths', async () => {
    const page = await fetch(`${app.url}/caminho/que/nao/existe`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await page.text()).toContain('<div id="root">')

    const api = await fetch(`${app.url}/api/nao-existe`)
    expect(api.status).toBe(404)
    expect(api.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(await api.json()).toMatchObject({ status: 404, code: 'not_found' })
  })

  it('caches hashed assets for a year, revalidates index.html and compresses', async () => {
    const index = await fetch(`${app.url}/`, { headers: { 'accept-encoding': 'gzip, br' } })
    expect(index.headers.get('cache-control')).toBe('no-cache')
    const html = await index.text()
    expect(html).toContain('<html lang="pt-BR">')
    // A prerendered page names its entry script in #app-modules (requested after the first paint).
    const script = html.match(/"entry":"(\/assets\/index-[\w-]+\.js)"/)?.[1]
    expect(script, 'entry script in the page').toBeDefined()
    // Public pages preload nothing of the dashboard.
    expect(html).not.toContain('dashboard-routes')

    const asset = await fetch(`${app.url}${script}`, { headers: { 'accept-encoding': 'gzip, br' } })
    expect(asset.status).toBe(200)
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(asset.headers.get('content-encoding')).toMatch(/^(br|gzip)$/)
  })
})

for (const viewport of ['mobile', 'desktop'] as const) {
  describe(`signed out, ${viewport} (${viewports[viewport].width} px)`, () => {
    let page: Page
    let requests: string[]
    const consoleErrors: string[] = []

    beforeAll(async () => {
      page = await app.newPage(viewport)
      requests = recordRequests(page)
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text())
      })
    })
    afterAll(async () => {
      await page.context().close()
    })

    it('landing: header, headline, five benefits, call to action, footer, WhatsApp button', async () => {
      await page.goto(`${app.url}/`)
      await visible(page.getByRole('heading', { level: 1 }))
      expect(await page.title()).toBe('Atendimento multicanal para sua empresa | Atendimento Multicanal')
      expect(await metaDescription(page)).toMatch(/WhatsApp, Instagram, Facebook e e-mail/)

      const header = page.locator('header').first()
      expect(await header.getByRole('link', { name: 'Fazer Login' }).getAttribute('href')).toBe('/login')
      expect(await header.getByRole('link', { name: 'Ir para o Dashboard' }).count()).toBe(0)
      const main = await textOf(page.locator('main'))
      for (const benefit of benefits) expect(main).toContain(benefit)
      expect(await page.getByRole('link', { name: 'Ver Planos de Assinatura' }).getAttribute('href')).toBe('/plans')
      await expectFooter(page)
      await expectWhatsAppButton(page)
      await expectNoHorizontalScroll(page)
      await expectAccessible(page)
      await screenshot(page, `public-landing-${viewport}`)
    })

    it('is keyboard navigable: skip link first, then the logo and the login button', async () => {
      await page.goto(`${app.url}/`)
      await visible(page.getByRole('heading', { level: 1 }))
      const focused = async () => normalized(await page.evaluate(() => document.activeElement?.textContent ?? null))
      await page.keyboard.press('Tab')
      expect(await focused()).toBe('Pular para o conteúdo')
      await page.keyboard.press('Tab')
      expect(await focused()).toBe('Atendimento Multicanal')
      await page.keyboard.press('Tab')
      expect(await focused()).toBe('Fazer Login')
      await page.keyboard.press('Tab')
      expect(await focused()).toBe('Ver Planos de Assinatura')
      await page.keyboard.press('Enter')
      await page.waitForURL(`${app.url}/plans`)
    })

    it('plans: one card per plan from the API, cheapest first, with badge, price per month and button', async () => {
      await page.goto(`${app.url}/`)
      await page.getByRole('link', { name: 'Ver Planos de Assinatura' }).click()
      await page.waitForURL(`${app.url}/plans`)
      await visible(page.getByRole('button', { name: 'Assinar Básico' }))
      expect(await page.title()).toBe('Planos de assinatura | Atendimento Multicanal')
      expect(await metaDescription(page)).toMatch(/PIX ou cartão/)

      const header = page.locator('header').first()
      expect(await header.getByRole('link', { name: 'Login', exact: true }).getAttribute('href')).toBe('/login')
      expect(await header.getByRole('link', { name: 'Cadastro', exact: true }).getAttribute('href')).toBe('/signup')
      expect(await header.getByRole('link', { name: 'Dashboard', exact: true }).count()).toBe(0)

      const cards = page.getByRole('group')
      expect(await cards.count()).toBe(3)
      for (const [index, plan] of demoPlans.entries()) {
        const card = cards.nth(index)
        const text = await textOf(card)
        expect(text).toContain(plan.name)
        expect(text).toContain(`${plan.price} /mês`)
        expect(text.includes('Popular'), `${plan.name} popular badge`).toBe(plan.popular)
        expect(await card.getByRole('listitem').count()).toBeGreaterThan(0)
        await visible(card.getByRole('button', { name: `Assinar ${plan.name}` }))
      }
      expect(await textOf(cards.nth(0))).toContain('Para quem está começando a centralizar o atendimento.')
      await expectFooter(page)
      await expectWhatsAppButton(page)
      await expectNoHorizontalScroll(page)
      await expectAccessible(page)
      await screenshot(page, `public-plans-${viewport}`)
    })

    it('plans: choosing a plan opens the payment dialog; paying signed out goes to /login?next=', async () => {
      await page.getByRole('button', { name: 'Assinar Profissional' }).click()
      const dialog = page.getByRole('dialog')
      await visible(dialog.getByRole('heading', { name: 'Assinar Profissional' }))
      expect(new URL(page.url()).searchParams.get('plan')).toBe('plan_pro')
      const text = await textOf(dialog)
      expect(text).toContain('R$ 199,00 /mês')
      expect(text).toContain('em até 24 horas')
      expect(text).toContain('imediata')
      await visible(dialog.getByRole('button', { name: 'Pagar com PIX' }))
      await visible(dialog.getByRole('button', { name: 'Pagar com Cartão' }))
      await expectAccessible(page)
      await screenshot(page, `public-plans-dialog-${viewport}`, { fullPage: false })

      // Escape closes it and gives the focus back to the plan's button.
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'detached' })
      expect(new URL(page.url()).searchParams.get('plan')).toBeNull()
      // Radix gives the focus back in a timer after the dialog leaves the DOM: wait for it, not for the same tick.
      await page
        .waitForFunction(() => document.activeElement?.textContent === 'Assinar Profissional', undefined, {
          timeout: 5_000,
        })
        .catch(() => undefined)
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Assinar Profissional')

      await page.keyboard.press('Enter')
      await visible(dialog.getByRole('button', { name: 'Pagar com PIX' }))
      await dialog.getByRole('button', { name: 'Pagar com PIX' }).click()
      await page.waitForURL(/\/login\?/)
      const url = new URL(page.url())
      expect(url.pathname).toBe('/login')
      expect(url.search).toBe(`?next=${encodeURIComponent('/plans?plan=plan_pro')}`)
      // A page without its own description gets the site's default back, not the previous page's
      // (the login page is a lazily loaded chunk: wait for it to render first).
      await page.waitForFunction(() => document.title.startsWith('Entrar'))
      expect(await metaDescription(page)).toMatch(/^Planos de assinatura da plataforma de atendimento multicanal/)
      expect(requests.filter((u) => u.includes('dashboard-routes'))).toEqual([])
    })

    for (const legal of [
      {
        path: '/privacy-policy',
        title: 'Política de Privacidade',
        must: ['Lei nº 13.709/2018', 'Stripe', 'Meta Platforms', 'art. 18', 'Encarregado', 'cookie de sessão'],
      },
      {
        path: '/terms-of-service',
        title: 'Termos de Serviço',
        must: ['24 (vinte e quatro) horas', 'Stripe', 'fim do período', 'proporcional', 'Comarca de Fortaleza/CE'],
      },
    ]) {
      it(`${legal.path}: the complete legal text with the company's data`, async () => {
        await page.goto(`${app.url}/`)
        await page.locator('footer').getByRole('link', { name: legal.title }).click()
        await page.waitForURL(`${app.url}${legal.path}`)
        await visible(page.getByRole('heading', { level: 1, name: legal.title }))
        expect(await page.title()).toBe(`${legal.title} | Atendimento Multicanal`)
        expect(await metaDescription(page)).toBeTruthy()
        const text = await textOf(page.locator('main'))
        expect(text).toContain('Última atualização: 01/10/2025')
        expect(text).toMatch(/rede social/)
        expect(text).toMatch(/18 \(dezoito\) anos/)
        expect(text).toContain('CHAT NORDESTE TECNOLOGIA LTDA')
        expect(text).toContain('12.345.678/0001-95')
        expect(text).toContain('Itaitinga - CE')
        expect(text).toContain('+55 (85) 98888-7777')
        for (const phrase of legal.must) expect(text).toContain(phrase)
        await expectFooter(page)
        await expectWhatsAppButton(page)
        await expectNoHorizontalScroll(page)
        await expectAccessible(page)
        await screenshot(page, `public${legal.path.replace('/', '-')}-${viewport}`)
      })
    }

    it('not found: 404 page, the path in the console, a link home', async () => {
      await page.goto(`${app.url}/pagina-que-nao-existe`)
      await visible(page.getByRole('heading', { name: '404' }))
      await visible(page.getByText('Oops! Page not found'))
      expect(await page.title()).toBe('Página não encontrada | Atendimento Multicanal')
      // The app logs the path once it runs (the prerendered page shows before its code is loaded).
      await page.locator('html[data-hydrated]').waitFor()
      expect(consoleErrors.some((m) => m.includes('/pagina-que-nao-existe'))).toBe(true)
      await expectWhatsAppButton(page)
      await expectAccessible(page)
      await screenshot(page, `public-not-found-${viewport}`)
      await page.getByRole('link', { name: 'Return to Home' }).click()
      await page.waitForURL(`${app.url}/`)
      await visible(page.getByRole('link', { name: 'Fazer Login' }))
    })
  })

  describe(`signed in, ${viewport}`, () => {
    let page: Page
    let requests: string[]
    beforeAll(async () => {
      page = await app.newPage(viewport)
      requests = recordRequests(page)
      await signIn(page)
    })
    afterAll(async () => {
      await page.context().close()
    })

    it('landing and plans headers lead to the dashboard; no dashboard code is loaded on the way', async () => {
      await page.goto(`${app.url}/`)
      const header = page.locator('header').first()
      await visible(header.getByRole('link', { name: 'Ir para o Dashboard' }))
      expect(await header.getByRole('link', { name: 'Ir para o Dashboard' }).getAttribute('href')).toBe('/dashboard')
      expect(await header.getByRole('link', { name: 'Fazer Login' }).count()).toBe(0)
      await screenshot(page, `public-landing-signed-in-${viewport}`)

      await page.getByRole('link', { name: 'Ver Planos de Assinatura' }).click()
      await visible(page.getByRole('button', { name: 'Assinar Básico' }))
      expect(await header.getByRole('link', { name: 'Dashboard', exact: true }).getAttribute('href')).toBe('/dashboard')
      expect(await header.getByRole('link', { name: 'Login', exact: true }).count()).toBe(0)
      expect(await header.getByRole('link', { name: 'Cadastro', exact: true }).count()).toBe(0)
      expect(requests.filter((u) => u.includes('dashboard-routes'))).toEqual([])
    })

    it('/plans?plan=<id> (where /login sends the visitor back) re-opens the dialog of that plan', async () => {
      await page.goto(`${app.url}/plans?plan=plan_business`)
      const dialog = page.getByRole('dialog')
      await visible(dialog.getByRole('heading', { name: 'Assinar Empresarial' }))
      expect(await textOf(dialog)).toContain('R$ 399,00 /mês')
    })

    it('choosing a payment method goes to the billing screen with the plan and the method', async () => {
      await page.goto(`${app.url}/plans`)
      await page.getByRole('button', { name: 'Assinar Básico' }).click()
      const dialog = page.getByRole('dialog')
      await visible(dialog.getByRole('heading', { name: 'Assinar Básico' }))
      // The billing screen may move on by itself (it starts the checkout): record every URL the page visits.
      // Last in this block for that reason: the page may still be navigating when the test ends.
      const visited: string[] = []
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) visited.push(frame.url())
      })
      await dialog.getByRole('button', { name: 'Pagar com Cartão' }).click()
      await expect
        .poll(() => visited.some((u) => u.endsWith('/dashboard/subscriptions?plan=plan_basic&method=card')))
        .toBe(true)
    })
  })
}

describe('coming back after logging in', () => {
  it('the login page honours next= and the plans page re-opens the chosen plan', async () => {
    const page = await app.newPage('mobile')
    try {
      await page.goto(`${app.url}/plans`)
      await page.getByRole('button', { name: 'Assinar Profissional' }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Pagar com Cartão' }).click()
      await page.waitForURL(/\/login\?next=/)
      await page.getByLabel('E-mail').fill(user.email)
      await page.getByLabel('Senha').fill(user.password)
      await page.getByRole('button', { name: 'Entrar' }).click()
      await page.waitForURL(`${app.url}/plans?plan=plan_pro`)
      await visible(page.getByRole('dialog').getByRole('heading', { name: 'Assinar Profissional' }))
    } finally {
      await page.context().close()
    }
  })
})

describe('plans page states', () => {
  let context: BrowserContext
  let page: Page
  beforeAll(async () => {
    page = await app.newPage('mobile')
    context = page.context()
  })
  afterAll(async () => {
    await context.close()
  })

  /** A prerendered /plans carries its plans in the HTML: these states show when it is reached inside the app. */
  async function openPlansFromHome() {
    await page.goto(`${app.url}/`, { waitUntil: 'networkidle' })
    await page.getByRole('link', { name: 'Ver Planos de Assinatura' }).click()
    await page.waitForURL(`${app.url}/plans`)
  }

  it('shows a loading state while the plans load', async () => {
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    await page.route('**/api/plans', async (route) => {
      await gate
      await route.fallback()
    })
    await openPlansFromHome()
    await visible(page.getByRole('status').filter({ hasText: 'Carregando planos…' }))
    release()
    await visible(page.getByRole('button', { name: 'Assinar Básico' }))
    await page.unroute('**/api/plans')
  })

  it('shows the empty state when there is no plan', async () => {
    await page.route('**/api/plans', (route) => route.fulfill({ json: [] }))
    await openPlansFromHome()
    await visible(page.getByText('Nenhum plano disponível no momento.'))
    await page.unroute('**/api/plans')
  })

  it('shows the error with a retry button when the API fails, and recovers', async () => {
    let failing = true
    await page.route('**/api/plans', (route) =>
      failing
        ? route.fulfill({
            status: 503,
            contentType: 'application/problem+json',
            body: JSON.stringify({ code: 'unknown', detail: 'Serviço temporariamente indisponível' }),
          })
        : route.fallback(),
    )
    await openPlansFromHome()
    const alert = page.getByRole('alert').filter({ hasText: 'Não foi possível carregar os dados.' })
    await visible(alert)
    expect(await textOf(alert)).toContain('Serviço temporariamente indisponível')
    await expectAccessible(page)
    failing = false
    await alert.getByRole('button', { name: 'Tentar novamente' }).click()
    await visible(page.getByRole('button', { name: 'Assinar Empresarial' }))
    await page.unroute('**/api/plans')
  })
})

describe('error screens', () => {
  it('a start-up failure shows the start-up error page with the message', async () => {
    const page = await app.newPage('mobile')
    try {
      await page.route('**/api/site-config', (route) =>
        route.fulfill({
          status: 500,
          contentType: 'application/problem+json',
          body: JSON.stringify({ code: 'unknown', detail: 'Ocorreu um erro desconhecido' }),
        }),
      )
      // Pages come with the site configuration embedded; only the bare shell (as the Vite dev server serves it)
      // asks the API for it at start-up.
      await page.goto(`${app.url}/index.html`)
      // The start-up query retries server errors with back-off before giving up.
      await page.getByRole('alert').filter({ hasText: 'Ocorreu um erro desconhecido' }).waitFor({ timeout: 20_000 })
      await visible(page.getByRole('heading', { name: 'Não foi possível iniciar o aplicativo' }))
      await expectAccessible(page)
      await screenshot(page, 'public-startup-error-mobile')
    } finally {
      await page.context().close()
    }
  })

  it('a route that fails to load shows the router-level error screen', async () => {
    const page = await app.newPage('desktop')
    try {
      await signIn(page)
      await page.route('**/assets/dashboard-routes-*.js', (route) => route.abort())
      await page.goto(`${app.url}/dashboard`)
      await visible(page.getByRole('heading', { name: 'Unexpected Application Error!' }))
      const detail = await textOf(page.locator('pre'))
      expect(detail).toMatch(/dynamically imported module|Importing a module script failed|dashboard-routes/i)
      await expectAccessible(page)
      await screenshot(page, 'public-route-error-desktop')
    } finally {
      await page.context().close()
    }
  })
})

describe('narrowest phone (360 px)', () => {
  it('no public page scrolls sideways', async () => {
    const context = await app.browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'pt-BR' })
    const page = await context.newPage()
    try {
      for (const path of ['/', '/plans', '/privacy-policy', '/terms-of-service', '/nao-existe']) {
        await page.goto(`${app.url}${path}`)
        await visible(page.getByRole('heading', { level: 1 }).first())
        await expectNoHorizontalScroll(page)
      }
      await page.goto(`${app.url}/plans?plan=plan_business`)
      await visible(page.getByRole('dialog'))
      await expectNoHorizontalScroll(page)
      await screenshot(page, 'public-plans-dialog-360', { fullPage: false })
    } finally {
      await context.close()
    }
  })
})
