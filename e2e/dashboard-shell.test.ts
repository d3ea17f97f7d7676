import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, newPage } from './support/browser'
import { type RunningServer, startServer } from './support/server'

// The dashboard's shell (src/server/modules/site/prerender.ts) carries the signed-in user and preloads what the
// first screen needs, so the dashboard renders without asking for the session first (issue 13).

let server: RunningServer
let browser: Browser
const admin = { email: 'admin.shell@example.com', password: 'admin-senha-shell-123' }

async function signInCookie(): Promise<string> {
  const response = await fetch(`${server.url}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: JSON.stringify(admin),
  })
  expect(response.status).toBe(200)
  return response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')
}

function embeddedState(html: string): Record<string, unknown> {
  const json = /<script id="app-state" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1]
  expect(json).toBeDefined()
  return JSON.parse(json!)
}

beforeAll(async () => {
  const env = { ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password, RUN_JOBS: 'false' }
  server = await startServer(env).catch(() => startServer(env))
  browser = await launchBrowser()
}, 300_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe('the dashboard shell', () => {
  it('embeds the session user, is never stored, and preloads the route chunk and the admin overview', async () => {
    const cookie = await signInCookie()
    const response = await fetch(`${server.url}/dashboard`, { headers: { cookie } })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const html = await response.text()
    const state = embeddedState(html)
    expect(state.prerendered).toBe(false)
    expect(state.session).toMatchObject({ email: admin.email, isAdmin: true })
    expect(html).toMatch(/<link rel="modulepreload" crossorigin href="\/assets\/dashboard-routes-[^"]+\.js">/)
    expect(html).toMatch(/<link rel="modulepreload" crossorigin href="\/assets\/admin-home-page-[^"]+\.js">/)
    expect(html).toContain('<link rel="preload" as="fetch" crossorigin href="/api/admin/insights">')

    // Another dashboard page: its chunk, no overview preloads.
    const other = await (await fetch(`${server.url}/dashboard/account`, { headers: { cookie } })).text()
    expect(embeddedState(other).session).toMatchObject({ email: admin.email })
    expect(other).not.toContain('admin-home-page')
    expect(other).not.toContain('/api/admin/insights')
  })

  it('embeds null for a cookie that is no longer a session, and nothing without a cookie', async () => {
    const stale = await fetch(`${server.url}/dashboard`, {
      headers: { cookie: 'billing.session_token=nao-existe.assinatura' },
    })
    expect(embeddedState(await stale.text()).session).toBeNull()
    const html = await (await fetch(`${server.url}/dashboard`)).text()
    expect(embeddedState(html).session).toBeNull()
    expect(html).not.toContain('/api/admin/insights')
  })

  it('renders the admin overview in the browser without a session request, fetching the insights once', async () => {
    const page = await newPage(browser)
    const cookie = await signInCookie()
    await page.context().addCookies(
      cookie.split('; ').map((pair) => {
        const [name, value] = pair.split(/=(.*)/s) as [string, string]
        return { name, value, url: server.url }
      }),
    )
    const requests: string[] = []
    page.on('request', (request) => requests.push(new URL(request.url()).pathname))
    await page.goto(`${server.url}/dashboard`)
    await expect
      .poll(() => page.getByRole('heading', { name: 'Visão geral do negócio' }).count(), { timeout: 30_000 })
      .toBe(1)
    await page.waitForLoadState('networkidle')
    expect(requests.filter((p) => p === '/api/auth/session')).toHaveLength(0)
    expect(requests.filter((p) => p === '/api/admin/insights')).toHaveLength(1)
    await page.context().close()
  })
})
