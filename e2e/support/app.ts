// The one fixture every e2e file starts with: `const app = setupApp({ ... })` at the top of the file starts the
// provider fakes it asks for, the built server on a fresh database and Chromium before the first test, and stops
// them after the last. The returned object is the file's way to the app: its URL, pages at 375/1280 px, accounts
// made through the real API (codes and links read like a phone and a mailbox would), signing in through /login
// or the API, and the admin's side of a PIX payment.
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import {
  type ApprovedTemplate,
  type FakeGraph,
  type GraphCall,
  startFakeGraph,
} from '../../src/server/test/fake-graph/fake-graph'
import { type FakePsp, type FakePspOptions, startFakePsp } from '../../src/server/test/fake-psp/fake-psp'
import { apiClient } from './api-client'
import { launchBrowser, viewports } from './browser'
import { verifyEmailLink, waitForOutbox, whatsappCode } from './outbox'
import { submitLogin } from './page'
import { type RunningServer, startServer } from './server'

export type Credentials = { email: string; password: string }
export type Account = Credentials & { name: string; phone: string }
export type Viewport = keyof typeof viewports
type Env = Record<string, string>

export type AppOptions = {
  /** Server environment; a function runs first in beforeAll (e.g. to seed a data directory it returns). */
  env?: Env | (() => Env | Promise<Env>)
  /** The admin made at start-up (ADMIN_EMAIL / ADMIN_PASSWORD). */
  admin?: Credentials
  /** The fake PSP (API Pix over mTLS) with these options; the server's webhook registration is awaited. */
  psp?: FakePspOptions
  /** The Meta Graph API fake with these approved templates; WhatsApp codes are then read from its calls. */
  graph?: { templates?: Record<string, ApprovedTemplate> }
}

let phoneCounter = 0
/** A WhatsApp number no other account of this run has. */
export function uniquePhone(): string {
  phoneCounter += 1
  return `55859${String(Date.now() % 1e6).padStart(6, '0')}${String(phoneCounter).padStart(2, '0')}`.slice(0, 13)
}

/** The calls the Graph fake accepted for this number and type, waiting for `count` of them like a phone. */
export async function waitForGraphCalls(
  graph: FakeGraph,
  to: string,
  type: 'template' | 'text',
  count = 1,
): Promise<GraphCall[]> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const calls = graph.calls.filter((c) => c.id && c.body.to === to && c.body.type === type)
    if (calls.length >= count) return calls
    if (Date.now() > deadline) throw new Error(`no ${type} message to ${to}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** The sign-up code a template call carries (its first body parameter). */
export function graphCode(call: GraphCall): string {
  const template = call.body.template as { components: { parameters: { text: string }[] }[] }
  return template.components[0]!.parameters[0]!.text
}

export type E2eApp = ReturnType<typeof setupApp>

export function setupApp(options: AppOptions = {}) {
  let server: RunningServer | undefined
  let browser: Browser | undefined
  let psp: FakePsp | undefined
  let graph: FakeGraph | undefined
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not running (setupApp options, or used outside a test)`)
    return value
  }

  beforeAll(async () => {
    const env = typeof options.env === 'function' ? await options.env() : (options.env ?? {})
    if (options.psp) psp = await startFakePsp(options.psp)
    if (options.graph) graph = await startFakeGraph(options.graph)
    const admin: Env = options.admin ? { ADMIN_EMAIL: options.admin.email, ADMIN_PASSWORD: options.admin.password } : {}
    ;[server, browser] = await Promise.all([
      startServer({ ...psp?.env(), ...graph?.env(), ...admin, ...env }),
      launchBrowser(),
    ])
    if (psp) {
      // The server registers its webhook at start-up (best effort, after listening).
      const deadline = Date.now() + 15_000
      while (!psp.webhook(psp.merchantKey) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    }
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await psp?.stop()
    await graph?.close()
  })

  const app = {
    get server() {
      return started(server, 'the server')
    },
    get browser() {
      return started(browser, 'the browser')
    },
    get psp() {
      return started(psp, 'the fake PSP')
    },
    get graph() {
      return started(graph, 'the Graph fake')
    },
    get url() {
      return app.server.url
    },
    at: (path: string) => `${app.server.url}${path}`,

    /** A browser context of its own (cookies, viewport) in pt-BR. */
    newContext: async (viewport: Viewport = 'desktop', extra: { acceptDownloads?: boolean } = {}) => {
      const context = await app.browser.newContext({ viewport: viewports[viewport], locale: 'pt-BR', ...extra })
      const newPage = context.newPage.bind(context)
      context.newPage = async () => hydratingGoto(await newPage())
      return context
    },
    /** A page in a context of its own; close it with `page.context().close()`. */
    async newPage(viewport: Viewport = 'desktop'): Promise<Page> {
      return (await app.newContext(viewport)).newPage()
    },

    /** The WhatsApp code sent to this number: from the Graph fake when it runs, else from the dev outbox. */
    async whatsappCode(phone: string): Promise<string> {
      if (graph) return graphCode((await waitForGraphCalls(graph, phone, 'template'))[0]!)
      return waitForOutbox(app.server.outboxPath, { channel: 'whatsapp', to: phone }, whatsappCode)
    },

    /** A confirmed account made through the real API: WhatsApp code, sign-up, e-mail confirmation link. */
    async createAccount(input: { name?: string; companyName?: string; emailPrefix?: string } = {}): Promise<Account> {
      const name = input.name ?? 'Ana Cliente'
      const phone = uniquePhone()
      const email = `${input.emailPrefix ?? 'cliente'}${phone}@example.com`
      const password = 'senha-segura-123'
      // One client is one browser: the verification cookie of send-code goes back with verify-code and sign-up.
      const client = apiClient(app.url)
      await client.post('/api/whatsapp/send-code', { phone_number: phone })
      await client.post('/api/whatsapp/verify-code', { phone_number: phone, code: await app.whatsappCode(phone) })
      await client.post('/api/auth/sign-up', {
        name,
        companyName: input.companyName ?? 'Loja da Ana',
        whatsappNumber: phone,
        email,
        password,
      })
      const link = await waitForOutbox(app.server.outboxPath, { channel: 'email', to: email }, verifyEmailLink)
      const confirmed = await fetch(link, { redirect: 'manual' })
      expect(confirmed.status).toBe(302)
      return { name, email, password, phone }
    },

    /** Signs in through /login as a person does and waits for /dashboard. */
    async signIn(page: Page, account: Credentials): Promise<void> {
      await page.goto(app.at('/login'))
      await submitLogin(page, account)
      await page.waitForURL((url) => url.pathname === '/dashboard')
    },

    /** Signs a browser context in through the API (its pages and `request` then share the session cookie). */
    async signInByApi(target: Page | BrowserContext, account: Credentials): Promise<void> {
      const response = await target.request.post(app.at('/api/auth/sign-in'), {
        data: { email: account.email, password: account.password },
        headers: { origin: app.url },
      })
      expect(response.status(), await response.text()).toBe(200)
    },

    /** A POST with the context's cookies and the app's Origin; answers below 300 only. */
    async post(target: Page | BrowserContext, path: string, data: unknown): Promise<unknown> {
      const response = await target.request.post(app.at(path), { data, headers: { origin: app.url } })
      expect(response.status(), `${path}: ${await response.text()}`).toBeLessThan(300)
      return response.json()
    },

    /** Opens a page and waits for its level-1 heading. */
    async open(page: Page, path: string, heading: string): Promise<void> {
      await page.goto(app.at(path))
      await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor()
    },

    /** The admin's side of a PIX payment (their screens are tested elsewhere): confirmed through the API. */
    async confirmPixAsAdmin(paymentId: string, amountCents: number, endToEndId: string): Promise<void> {
      const admin = started(options.admin, 'an admin')
      const client = apiClient(app.url)
      await client.post('/api/auth/sign-in', admin)
      await client.post(`/api/admin/payments/${paymentId}/confirm`, {
        amount_received_cents: amountCents,
        end_to_end_id: endToEndId,
      })
    },
  }
  return app
}

/**
 * A prerendered page asks for its code after its first paint (server/modules/site/after-paint.ts), so its `load`
 * event can come before React handles its events. The journeys act on hydrated pages, as they did when that code
 * loaded from <head> (before `load`): `goto` of a prerendered page also waits for `html[data-hydrated]`. What a
 * visitor does before that (a button pressed) is tested on its own in prerender.test.ts.
 */
function hydratingGoto(page: Page): Page {
  const goto = page.goto.bind(page)
  page.goto = async (url, options) => {
    const response = await goto(url, options)
    if ((await page.locator('#app-modules').count()) > 0)
      await page.locator('html[data-hydrated]').waitFor({ state: 'attached' })
    return response
  }
  return page
}
