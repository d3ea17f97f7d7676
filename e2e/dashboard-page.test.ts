import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { type Credentials, setupApp } from './support/app'

// The dashboard's page (src/server/modules/site/prerender.ts): its home comes rendered by the server for the
// signed-in user, with the answers of the reads it makes first embedded (web/app/first-queries.ts), so it paints
// before any script and hydrates without asking the API; other dashboard pages are the shell with the user embedded
// and their chunk preloaded (issue 13).

const admin = { email: 'admin.dashpage@example.com', password: 'admin-senha-dash-123' }
const app = setupApp({ admin, env: { RUN_JOBS: 'false' } })

type State = { prerendered: boolean; session: unknown; queries?: { key: unknown[]; data: unknown }[] }

async function signInCookie(account: Credentials): Promise<string> {
  const response = await fetch(app.at('/api/auth/sign-in'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app.url },
    body: JSON.stringify({ email: account.email, password: account.password }),
  })
  expect(response.status).toBe(200)
  return response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')
}

function embeddedState(html: string): State {
  const json = /<script id="app-state" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1]
  expect(json).toBeDefined()
  return JSON.parse(json!)
}

const embedded = (state: State, key: unknown[]) =>
  state.queries?.find((q) => JSON.stringify(q.key) === JSON.stringify(key))?.data

async function apiGet(path: string, cookie: string): Promise<unknown> {
  const response = await fetch(app.at(path), { headers: { cookie } })
  expect(response.status).toBe(200)
  return response.json()
}

/** A page whose console errors and uncaught exceptions (a hydration mismatch among them) are collected. */
async function watchedPage(account: Credentials, viewport: 'mobile' | 'desktop' = 'desktop') {
  const page = await app.newPage(viewport)
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  await app.signInByApi(page, account)
  const api: string[] = []
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname
    if (path.startsWith('/api/')) api.push(path)
  })
  return { page, errors, api }
}

async function textWithoutJavaScript(account: Credentials, path: string): Promise<string> {
  const context = await app.browser.newContext({ javaScriptEnabled: false, locale: 'pt-BR' })
  try {
    const page = await context.newPage()
    const response = await page.request.post(app.at('/api/auth/sign-in'), {
      data: { email: account.email, password: account.password },
      headers: { origin: app.url },
    })
    expect(response.status()).toBe(200)
    await page.goto(app.at(path))
    return ((await page.locator('body').textContent()) ?? '').replace(/\s+/g, ' ')
  } finally {
    await context.close()
  }
}

describe('the dashboard home, rendered on the server', () => {
  it("an admin's: the business overview in the HTML with the insights it shows, never stored", async () => {
    const cookie = await signInCookie(admin)
    const response = await fetch(app.at('/dashboard'), { headers: { cookie } })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const html = await response.text()
    const state = embeddedState(html)
    expect(state.prerendered).toBe(true)
    expect(state.session).toMatchObject({ email: admin.email, isAdmin: true })
    const insights = embedded(state, ['admin', 'insights']) as Record<string, unknown>
    const fromApi = (await apiGet('/api/admin/insights', cookie)) as Record<string, unknown>
    // The same answer as the API's (the clock fields aside: two reads, two instants).
    expect({ ...insights, now: null, refreshedAt: null }).toEqual({ ...fromApi, now: null, refreshedAt: null })
    expect(html).toMatch(/<h1[^>]*>Visão geral do negócio<\/h1>/)
    // Its scripts come after the first paint (the loader's list), the overview's chunk among them.
    expect(html).toMatch(/<script id="app-modules" type="application\/json">[^<]*\/assets\/admin-home-page-[^"]+\.js/)
    // Answered inside the page: no separate request to start early, and no inline script but the loader.
    expect(html).not.toContain('<link rel="preload" as="fetch"')
    expect(html.match(/<script>/g)).toHaveLength(1)
    expect(await textWithoutJavaScript(admin, '/dashboard')).toContain('MRR (receita recorrente mensal)')
  })

  it("a customer's: their overview with their own reads, and nothing of an admin's", async () => {
    const customer = await app.createAccount({ name: 'Beatriz Painel', emailPrefix: 'dashpage' })
    const cookie = await signInCookie(customer)
    const html = await (await fetch(app.at('/dashboard'), { headers: { cookie } })).text()
    const state = embeddedState(html)
    expect(state.prerendered).toBe(true)
    expect(state.session).toMatchObject({ email: customer.email, isAdmin: false })
    expect(state.queries?.map((q) => q.key[1])).toEqual(['subscriptions', 'payments'])
    expect(embedded(state, ['billing', 'subscriptions', { current: true, pageSize: 1 }])).toEqual(
      await apiGet('/api/subscriptions?pageSize=1&current=true', cookie),
    )
    expect(embedded(state, ['billing', 'payments', { open: true, pageSize: 100 }])).toEqual(
      await apiGet('/api/payments?pageSize=100&open=true', cookie),
    )
    expect(html).not.toContain('insights')
    expect(html).not.toContain('admin-home-page')
    expect(await textWithoutJavaScript(customer, '/dashboard')).toContain('Olá, Beatriz!')

    // With a PIX subscription awaiting its first payment: the plan and the open invoice are in the HTML.
    const checkout = await fetch(app.at('/api/checkout/pix'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: app.url, cookie },
      body: JSON.stringify({ plan_id: 'plan_pro' }),
    })
    expect(checkout.status).toBeLessThan(300)
    const after = embeddedState(await (await fetch(app.at('/dashboard'), { headers: { cookie } })).text())
    const subscriptions = embedded(after, ['billing', 'subscriptions', { current: true, pageSize: 1 }])
    expect(subscriptions).toMatchObject({ items: [{ planId: 'plan_pro', status: 'pending_pix' }] })
    expect(embedded(after, ['billing', 'payments', { open: true, pageSize: 100 }])).toMatchObject({
      items: [{ amountCents: 19900 }],
    })
    const text = await textWithoutJavaScript(customer, '/dashboard')
    expect(text).toContain('Profissional')
    expect(text).toContain('R$ 199,00')
  })

  it('other dashboard pages, a stale cookie and no cookie get the shell', async () => {
    const cookie = await signInCookie(admin)
    const other = await (await fetch(app.at('/dashboard/account'), { headers: { cookie } })).text()
    expect(embeddedState(other)).toMatchObject({ prerendered: false, session: { email: admin.email } })
    expect(other).toMatch(/<link rel="modulepreload" crossorigin href="\/assets\/dashboard-routes-[^"]+\.js">/)
    expect(other).not.toContain('admin-home-page')
    for (const headers of [{ cookie: 'billing.session_token=nao-existe.assinatura' }, {}] as Record<string, string>[]) {
      const html = await (await fetch(app.at('/dashboard'), { headers })).text()
      expect(embeddedState(html)).toMatchObject({ prerendered: false, session: null })
      expect(html).not.toContain('Visão geral do negócio')
      expect(html).not.toContain('/api/admin/insights')
    }
  })

  for (const viewport of ['mobile', 'desktop'] as const) {
    it(`hydrates at ${viewport === 'mobile' ? 375 : 1280} px without a mismatch and without asking the API`, async () => {
      const { page, errors, api } = await watchedPage(admin, viewport)
      await page.goto(app.at('/dashboard'))
      await page.getByRole('heading', { level: 1, name: 'Visão geral do negócio' }).waitFor()
      await page.waitForLoadState('networkidle')
      expect(errors).toEqual([])
      expect(api).toEqual([])
      // Hydrated, it is the app: its links navigate in place.
      await followInApp(page, 'Pagamentos', '/dashboard/admin-payments')
      await page.context().close()
    })
  }

  it("a customer's overview hydrates without a mismatch and without asking the API", async () => {
    const customer = await app.createAccount({ name: 'Carla Painel', emailPrefix: 'dashhyd' })
    const { page, errors, api } = await watchedPage(customer, 'mobile')
    await page.goto(app.at('/dashboard'))
    await page.getByRole('heading', { level: 1, name: 'Painel' }).waitFor()
    await page.waitForLoadState('networkidle')
    expect(errors).toEqual([])
    expect(api).toEqual([])
    await page.context().close()
  })
})

/** Clicks an admin link (through the menu on a phone): a hydrated page navigates in place, without a new document. */
async function followInApp(page: Page, link: string, path: string): Promise<void> {
  const documents: string[] = []
  page.on('request', (request) => {
    if (request.resourceType() === 'document') documents.push(request.url())
  })
  const menu = page.getByRole('button', { name: 'Abrir menu' })
  if (await menu.isVisible()) await menu.click()
  await page.getByRole('navigation', { name: 'Administração' }).last().getByRole('link', { name: link }).click()
  await page.waitForURL((url) => url.pathname === path)
  expect(documents).toEqual([])
}
