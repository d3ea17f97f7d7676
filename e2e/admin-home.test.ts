import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { eq } from 'drizzle-orm'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectPglite } from '../src/server/db/client'
import { subscriptions } from '../src/server/db/schema/billing'
import { seedPlans } from '../src/server/modules/billing/test-fixtures'
import { insertCustomer, insertPayment, insertSubscription } from '../src/server/modules/lifecycle/lifecycle-fixtures'
import { parseCsv } from '../src/server/test/csv'
import { setupApp } from './support/app'
import { expectAccessible, screenshot, viewports } from './support/browser'
import type { RunningServer } from './support/server'

// The admin home against a seeded history, relative to today's month M (the server runs on the real clock):
//   Ana   plan_pro      R$ 199,00  active since M−3 (PIX, paid)
//   Bruno plan_business R$ 399,00  active since M−2 (card, paid), canceled in M−1
//   Carla plan_basic    R$ 99,00   active since M−1 (PIX, paid)
//   Davi  plan_basic    R$ 99,00   PIX invoice open for 20 hours (waiting for a confirmation: red past 12 h)
// So MRR today is R$ 298,00; M−3 new R$ 199,00; M−2 new R$ 399,00; M−1 new R$ 99,00 and churned R$ 399,00
// (logo churn 1 of 2 = 50 %, revenue churn 399/598 = 66,7 %).

let server: RunningServer
let browser: Browser
let dataDir: string
const admin = { email: 'admin@example.com', password: 'admin-senha-123' }

/** Day `day` of the month `offset` months from now (São Paulo), 15:00 UTC. */
function dayOf(offset: number, day: number): Date {
  const local = new Date(Date.now() - 3 * 3_600_000)
  return new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth() + offset, day, 15))
}
/** 'março de 2026': the month as the charts' tables name it. */
function monthLabel(offset: number): string {
  return new Intl.DateTimeFormat('pt-BR', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(dayOf(offset, 1))
}

async function seedHistory(dir: string) {
  const database = await connectPglite({ dataDir: path.join(dir, 'db') })
  await database.migrate()
  const db = database.db
  await seedPlans(db)
  const paidSubscription = async (name: string, planId: string, cents: number, method: 'pix' | 'card', start: Date) => {
    const customer = await insertCustomer(db, { name })
    const end = new Date(Date.now() + 20 * 86_400_000) // in force today (no renewal, past_due or cancellation due)
    const sub = await insertSubscription(db, {
      userId: customer.id,
      planId,
      billingMethod: method,
      currentPeriodStart: start,
      currentPeriodEnd: end,
    })
    await insertPayment(db, {
      subscriptionId: sub.id,
      amountCents: cents,
      status: 'paid',
      paymentMethod: method,
      dueDate: start,
      createdAt: start,
      paidAt: new Date(start.getTime() + 2 * 3_600_000),
      ...(method === 'card' ? { pixReference: null } : { pixConfirmedVia: 'manual' as const }),
    })
    return sub
  }
  await paidSubscription('Ana Histórico', 'plan_pro', 19_900, 'pix', dayOf(-3, 5))
  const bruno = await paidSubscription('Bruno Histórico', 'plan_business', 39_900, 'card', dayOf(-2, 10))
  const canceledAt = dayOf(-1, 15)
  await db
    .update(subscriptions)
    .set({ status: 'canceled', canceledAt, updatedAt: canceledAt })
    .where(eq(subscriptions.id, bruno.id))
  await paidSubscription('Carla Histórico', 'plan_basic', 9_900, 'pix', dayOf(-1, 3))
  const davi = await insertCustomer(db, { name: 'Davi Pendente' })
  const opened = new Date(Date.now() - 20 * 3_600_000)
  const daviSub = await insertSubscription(db, {
    userId: davi.id,
    planId: 'plan_basic',
    status: 'pending_pix',
    currentPeriodStart: opened,
    currentPeriodEnd: new Date(opened.getTime() + 30 * 86_400_000),
  })
  await insertPayment(db, {
    subscriptionId: daviSub.id,
    amountCents: 9_900,
    dueDate: new Date(opened.getTime() + 3 * 86_400_000),
    createdAt: opened,
  })
  await database.close()
}

const signIn = (page: Page) => app.signIn(page, admin)

/** The cells of the sr-only table row of a chart for one month. */
async function tableRow(page: Page, chart: string, month: string): Promise<string[]> {
  const table = page.locator('table').filter({ has: page.locator('caption', { hasText: chart }) })
  const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: month, exact: true }) })
  return (await row.locator('td').allTextContents()).map((c) => c.replace(/\s+/g, ' ').trim())
}

// Registered before setupApp, so it runs after the server has stopped (after-hooks run in reverse).
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true })
})

// No billing tick: the seeded history is all there is (the page computes its months on first read).
const app = setupApp({
  admin,
  env: async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'billing-e2e-home-'))
    await seedHistory(dataDir)
    return { DATA_DIR: dataDir, RUN_JOBS: 'false' }
  },
})

beforeAll(() => {
  ;({ server, browser } = app)
})

describe('admin home', () => {
  it('opens /dashboard on the business overview with the seeded figures, links to the filtered list and exports it', async () => {
    const context = await browser.newContext({ viewport: viewports.desktop, locale: 'pt-BR', acceptDownloads: true })
    const page = await context.newPage()
    await signIn(page)
    await page.getByRole('heading', { level: 1, name: 'Visão geral do negócio' }).waitFor()
    expect(await page.getByRole('link', { name: 'Minha assinatura' }).first().getAttribute('href')).toBe(
      '/dashboard/minha-assinatura',
    )

    const mrr = page.getByRole('link', { name: /MRR \(receita recorrente mensal\)/ })
    expect(((await mrr.textContent()) ?? '').replace(/\s+/g, ' ')).toContain('R$ 298,00')
    const waiting = page.getByRole('link', { name: /PIX aguardando confirmação/ })
    expect(((await waiting.textContent()) ?? '').replace(/\s+/g, ' ')).toContain('1')
    const late = page.getByRole('listitem').filter({ hasText: 'Davi Pendente' })
    expect((await late.textContent()) ?? '').toMatch(/há 20 h/)
    expect(await late.locator('.text-destructive').count()).toBe(1)

    const moves = (offset: number) => tableRow(page, 'Movimentos de MRR', monthLabel(offset))
    // Novos, Expansão, Reativação, Contração, Cancelamentos, MRR líquido
    expect(await moves(-3)).toEqual(['R$ 199,00', 'R$ 0,00', 'R$ 0,00', 'R$ 0,00', 'R$ 0,00', 'R$ 199,00'])
    expect(await moves(-2)).toEqual(['R$ 399,00', 'R$ 0,00', 'R$ 0,00', 'R$ 0,00', 'R$ 0,00', 'R$ 399,00'])
    expect(await moves(-1)).toEqual(['R$ 99,00', 'R$ 0,00', 'R$ 0,00', 'R$ 0,00', '-R$ 399,00', '-R$ 300,00'])
    expect(await moves(0)).toEqual(['R$ 0,00', 'R$ 0,00', 'R$ 0,00', 'R$ 0,00', 'R$ 0,00', 'R$ 0,00'])
    expect(await tableRow(page, 'Churn de clientes e de receita', monthLabel(-1))).toEqual(['50%', '66,7%'])
    expect(await tableRow(page, 'Receita recebida por meio de pagamento', monthLabel(-2))).toEqual([
      'R$ 0,00',
      'R$ 399,00',
      'R$ 0,00',
    ])

    await expectAccessible(page)
    await screenshot(page, 'admin-home-1280')
    const phoneContext = await browser.newContext({ viewport: viewports.mobile, locale: 'pt-BR' })
    await phoneContext.addCookies(await context.cookies())
    const phone = await phoneContext.newPage()
    await phone.goto(`${server.url}/dashboard`)
    await phone.getByRole('heading', { level: 1, name: 'Visão geral do negócio' }).waitFor()
    await phone.getByText('Movimentos de MRR').first().waitFor()
    await expectAccessible(phone)
    await screenshot(phone, 'admin-home-375')
    await phoneContext.close()

    await waiting.click()
    await page.waitForURL((url) => url.pathname === '/dashboard/admin-payments')
    expect(new URL(page.url()).searchParams.get('status')).toBe('pending_pix')
    expect(new URL(page.url()).searchParams.get('method')).toBe('pix')
    await page.getByRole('row').filter({ hasText: 'Davi Pendente' }).waitFor()
    expect(await page.getByRole('row').filter({ hasText: 'Histórico' }).count()).toBe(0)

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Exportar CSV' }).click(),
    ])
    expect(download.suggestedFilename()).toMatch(/^pagamentos-\d{4}-\d{2}-\d{2}\.csv$/)
    const file = await download.path()
    const bytes = readFileSync(file)
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const [header, ...rows] = parseCsv(bytes.toString('utf8').slice(1))
    expect(header?.slice(0, 8)).toEqual(['ID', 'Cliente', 'E-mail', 'Plano', 'Tipo', 'Status', 'Método', 'Valor (R$)'])
    expect(rows.map((r) => [r[1], r[3], r[5], r[6], r[7]])).toEqual([
      ['Davi Pendente', 'Básico', 'Aguardando PIX', 'PIX', '99,00'],
    ])

    // 'PIX × Cartão': PIX opens exactly the paying PIX subscriptions it counts.
    await page.goto(`${server.url}/dashboard`)
    await page.getByRole('link', { name: /^PIX: 2 / }).click()
    await page.waitForURL((url) => url.pathname === '/dashboard/admin-subscriptions')
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ status: 'paying', method: 'pix' })
    await page.getByRole('row').filter({ hasText: 'Ana Histórico' }).waitFor()
    await page.getByRole('row').filter({ hasText: 'Carla Histórico' }).waitFor()
    expect(
      await page
        .getByRole('row')
        .filter({ hasText: /Bruno Histórico|Davi Pendente/ })
        .count(),
    ).toBe(0)
    await context.close()
  })

  it('keeps the customer overview for customers (no business figures)', async () => {
    const response = await fetch(`${server.url}/api/admin/insights`)
    expect(response.status).toBe(401)
  })
})
