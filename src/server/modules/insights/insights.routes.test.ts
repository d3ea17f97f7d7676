import { asc, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AdminInsights, InsightsMonth } from '../../../domain/contracts/insights'
import { payments, subscriptions } from '../../db/schema/billing'
import { plans } from '../../db/schema/plans'
import { insightsMonthly, subscriptionHistory } from '../../db/schema/insights'
import { createTestApp, type TestApp, TestClock } from '../../test/test-app'
import { createUser, get, origin, post, type TestUser } from '../../test/users'
import { confirmReceived } from '../admin/admin-fixtures'
import { openShop } from '../billing/test-fixtures'
import { depsOf } from '../lifecycle/lifecycle-fixtures'
import type { LifecycleDeps } from '../lifecycle/pass-runner'
import { dailyPasses } from '../lifecycle/lifecycle.service'
import { refreshStaleInsights } from './insights.service'

// A known history, built through the real endpoints with the test clock (no billing tick runs in between, so no
// renewal, past_due or expiry interferes): plan_basic R$ 99,00, plan_pro R$ 199,00, plan_business R$ 399,00.
//   Ana   (PIX)  2026-02-10 new basic (confirmed 2 h later) · 2026-03-05 upgrade to pro (invoice confirmed 3 h later)
//                · 2026-05-20 downgraded to basic by an admin
//   Bruno (card) 2026-03-15 new business · 2026-06-10 canceled by an admin
//   Carla (PIX)  2026-04-01 new pro (1 h) · 2026-05-02 canceled by an admin · 2026-07-05 subscribes basic again,
//                confirmed the next day (reactivation)
//   Davi, Eva (PIX) check out on 2026-07-20 and 2026-07-19 and do not pay (open receivables, waiting PIX).
// The page is read on 2026-07-20 15:00 UTC (12:00 in São Paulo).

const at = (iso: string) => new Date(iso)

/** Only the insights pass of the tick (the other passes would act on this history's long-ended periods). */
async function runBillingTickFree(deps: LifecycleDeps, iso: string) {
  expect(dailyPasses.map(([name]) => name)).toContain('insights')
  const pass = dailyPasses.find(([name]) => name === 'insights')?.[1]
  await pass?.(deps, at(iso))
}
const clock = new TestClock(at('2026-01-01T15:00:00.000Z'))
let t: TestApp
let admin: TestUser
let ana: TestUser
let bruno: TestUser
let carla: TestUser
let davi: TestUser
let eva: TestUser
let upgradeCents = 0

function put(url: string, payload: unknown, cookie: string) {
  return t.app.inject({ method: 'PUT', url, payload: payload as Record<string, unknown>, headers: { origin, cookie } })
}

function submit(url: string, cookie: string) {
  return t.app.inject({
    method: 'POST',
    url,
    payload: '',
    headers: { origin, cookie, 'content-type': 'application/x-www-form-urlencoded' },
  })
}

async function pixCheckout(user: TestUser, planId: string, when: string) {
  clock.set(when)
  const response = await post(t.app, '/api/checkout/pix', { plan_id: planId }, user.cookie)
  expect(response.statusCode, response.body).toBe(200)
  return { subscriptionId: response.json().subscription.id as string, paymentId: response.json().payment.id as string }
}

async function confirm(paymentId: string, cents: number, when: string) {
  clock.set(when)
  await confirmReceived(t.app, admin.cookie, paymentId, cents)
}

async function adminCancel(subscriptionId: string, when: string) {
  clock.set(when)
  const response = await post(t.app, `/api/admin/subscriptions/${subscriptionId}/cancel`, {}, admin.cookie)
  expect(response.statusCode, response.body).toBe(200)
}

beforeAll(async () => {
  t = await createTestApp({ clock })
  const db = t.database.db
  admin = await openShop(t)
  ana = await createUser(t, { name: 'Ana PIX' })
  bruno = await createUser(t, { name: 'Bruno Cartão' })
  carla = await createUser(t, { name: 'Carla Volta' })
  davi = await createUser(t, { name: 'Davi Aberto' })
  eva = await createUser(t, { name: 'Eva Esperando' })

  // Ana: new, upgrade, downgrade by an admin.
  const anaSub = await pixCheckout(ana, 'plan_basic', '2026-02-10T15:00:00.000Z')
  await confirm(anaSub.paymentId, 9_900, '2026-02-10T17:00:00.000Z')
  clock.set('2026-03-05T15:00:00.000Z')
  const upgrade = await post(
    t.app,
    '/api/subscriptions/upgrade',
    { subscription_id: anaSub.subscriptionId, new_plan_id: 'plan_pro' },
    ana.cookie,
  )
  expect(upgrade.statusCode, upgrade.body).toBe(200)
  expect(upgrade.json().kind).toBe('pix')
  upgradeCents = upgrade.json().payment.amountCents
  await confirm(upgrade.json().payment.id, upgradeCents, '2026-03-05T18:00:00.000Z')

  // Bruno: a card subscription (the card simulator, the same event handler as Stripe's webhooks).
  clock.set('2026-03-15T15:00:00.000Z')
  const card = await post(t.app, '/api/checkout/card', { plan_id: 'plan_business' }, bruno.cookie)
  expect(card.statusCode, card.body).toBe(200)
  const approved = await submit(`${new URL(card.json().url).pathname}/approve`, bruno.cookie)
  expect(approved.statusCode, approved.body).toBe(302)
  const [brunoSub] = await db.select().from(subscriptions).where(eq(subscriptions.userId, bruno.id))
  expect(brunoSub).toMatchObject({ status: 'active', billingMethod: 'card' })

  // Carla: new, churn, reactivation.
  const carlaFirst = await pixCheckout(carla, 'plan_pro', '2026-04-01T15:00:00.000Z')
  await confirm(carlaFirst.paymentId, 19_900, '2026-04-01T16:00:00.000Z')
  await adminCancel(carlaFirst.subscriptionId, '2026-05-02T15:00:00.000Z')

  // Ana downgraded by an admin (keeps her dates, stays active).
  clock.set('2026-05-20T15:00:00.000Z')
  const [anaRow] = await db.select().from(subscriptions).where(eq(subscriptions.id, anaSub.subscriptionId))
  const downgrade = await put(
    `/api/admin/subscriptions/${anaSub.subscriptionId}`,
    {
      user_id: ana.id,
      plan_id: 'plan_basic',
      status: 'active',
      current_period_start: anaRow?.currentPeriodStart.toISOString(),
      current_period_end: anaRow?.currentPeriodEnd.toISOString(),
      cancel_at_period_end: false,
    },
    admin.cookie,
  )
  expect(downgrade.statusCode, downgrade.body).toBe(200)

  await adminCancel(brunoSub?.id ?? '', '2026-06-10T15:00:00.000Z')

  const carlaAgain = await pixCheckout(carla, 'plan_basic', '2026-07-05T15:00:00.000Z')
  await confirm(carlaAgain.paymentId, 9_900, '2026-07-06T15:00:00.000Z')

  await pixCheckout(eva, 'plan_pro', '2026-07-19T00:00:00.000Z')
  await pixCheckout(davi, 'plan_basic', '2026-07-20T09:00:00.000Z')
  clock.set('2026-07-20T15:00:00.000Z')
}, 240_000)
afterAll(async () => {
  await t.close()
})

const zeroMonth = (month: string): InsightsMonth => ({
  month,
  mrrStartCents: 0,
  mrrEndCents: 0,
  newCents: 0,
  expansionCents: 0,
  contractionCents: 0,
  churnedCents: 0,
  reactivatedCents: 0,
  netCents: 0,
  customersStart: 0,
  customersEnd: 0,
  newCustomers: 0,
  churnedCustomers: 0,
  reactivatedCustomers: 0,
  logoChurnRate: null,
  revenueChurnRate: null,
  revenuePixCents: 0,
  revenueCardCents: 0,
  revenueManualCents: 0,
  pixAutoCount: 0,
  pixAutoP50Seconds: null,
  pixAutoP95Seconds: null,
  pixManualCount: 0,
  pixManualP50Seconds: null,
  pixManualP95Seconds: null,
})

describe('admin home (GET /api/admin/insights)', () => {
  it('is for admins only: anonymous 401, a customer 403', async () => {
    expect((await get(t.app, '/api/admin/insights')).statusCode).toBe(401)
    const customer = await get(t.app, '/api/admin/insights', ana.cookie)
    expect(customer.statusCode).toBe(403)
  })

  it('records every plan and status change in subscription_history at the application clock', async () => {
    const [anaSub] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.userId, ana.id))
    const rows = await t.database.db
      .select()
      .from(subscriptionHistory)
      .where(eq(subscriptionHistory.subscriptionId, anaSub?.id ?? ''))
      .orderBy(asc(subscriptionHistory.effectiveAt), asc(subscriptionHistory.id))
    expect(rows.map((r) => [r.effectiveAt.toISOString(), r.status, r.planId, r.mrrCents])).toEqual([
      ['2026-02-10T15:00:00.000Z', 'pending_pix', 'plan_basic', 0],
      ['2026-02-10T17:00:00.000Z', 'active', 'plan_basic', 9_900],
      ['2026-03-05T18:00:00.000Z', 'active', 'plan_pro', 19_900],
      ['2026-05-20T15:00:00.000Z', 'active', 'plan_basic', 9_900],
    ])
  })

  it('answers every monthly figure to the centavo, from the history (not from today’s state)', async () => {
    expect(upgradeCents).toBeGreaterThan(0)
    expect(upgradeCents).toBeLessThan(10_000)
    const response = await get(t.app, '/api/admin/insights', admin.cookie)
    expect(response.statusCode, response.body).toBe(200)
    const body: AdminInsights = response.json()
    expect(body.months.map((m) => m.month)).toEqual([
      '2025-08-01',
      '2025-09-01',
      '2025-10-01',
      '2025-11-01',
      '2025-12-01',
      '2026-01-01',
      '2026-02-01',
      '2026-03-01',
      '2026-04-01',
      '2026-05-01',
      '2026-06-01',
      '2026-07-01',
    ])
    for (const m of body.months.slice(0, 6)) expect(m).toEqual(zeroMonth(m.month))
    expect(body.months.slice(6)).toEqual([
      {
        ...zeroMonth('2026-02-01'),
        mrrEndCents: 9_900,
        newCents: 9_900,
        netCents: 9_900,
        customersEnd: 1,
        newCustomers: 1,
        revenuePixCents: 9_900,
        pixManualCount: 1,
        pixManualP50Seconds: 7_200,
        pixManualP95Seconds: 7_200,
      },
      {
        ...zeroMonth('2026-03-01'),
        mrrStartCents: 9_900,
        mrrEndCents: 59_800,
        newCents: 39_900,
        expansionCents: 10_000,
        netCents: 49_900,
        customersStart: 1,
        customersEnd: 2,
        newCustomers: 1,
        logoChurnRate: 0,
        revenueChurnRate: 0,
        revenuePixCents: upgradeCents,
        revenueCardCents: 39_900,
        pixManualCount: 1,
        pixManualP50Seconds: 10_800,
        pixManualP95Seconds: 10_800,
      },
      {
        ...zeroMonth('2026-04-01'),
        mrrStartCents: 59_800,
        mrrEndCents: 79_700,
        newCents: 19_900,
        netCents: 19_900,
        customersStart: 2,
        customersEnd: 3,
        newCustomers: 1,
        logoChurnRate: 0,
        revenueChurnRate: 0,
        revenuePixCents: 19_900,
        pixManualCount: 1,
        pixManualP50Seconds: 3_600,
        pixManualP95Seconds: 3_600,
      },
      {
        ...zeroMonth('2026-05-01'),
        mrrStartCents: 79_700,
        mrrEndCents: 49_800,
        contractionCents: 10_000,
        churnedCents: 19_900,
        netCents: -29_900,
        customersStart: 3,
        customersEnd: 2,
        churnedCustomers: 1,
        logoChurnRate: 0.3333,
        revenueChurnRate: 0.3752,
      },
      {
        ...zeroMonth('2026-06-01'),
        mrrStartCents: 49_800,
        mrrEndCents: 9_900,
        churnedCents: 39_900,
        netCents: -39_900,
        customersStart: 2,
        customersEnd: 1,
        churnedCustomers: 1,
        logoChurnRate: 0.5,
        revenueChurnRate: 0.8012,
      },
      {
        ...zeroMonth('2026-07-01'),
        mrrStartCents: 9_900,
        mrrEndCents: 19_800,
        reactivatedCents: 9_900,
        netCents: 9_900,
        customersStart: 1,
        customersEnd: 2,
        reactivatedCustomers: 1,
        logoChurnRate: 0,
        revenueChurnRate: 0,
        revenuePixCents: 9_900,
        pixManualCount: 1,
        pixManualP50Seconds: 86_400,
        pixManualP95Seconds: 86_400,
      },
    ])
  })

  it('answers today’s figures and what needs an admin', async () => {
    const db = t.database.db
    const open = await db
      .select()
      .from(payments)
      .where(eq(payments.status, 'pending_pix'))
      .orderBy(asc(payments.createdAt))
    expect(open.map((p) => p.amountCents)).toEqual([19_900, 9_900])
    const now = clock.now().getTime()
    const overdue = open.filter((p) => p.dueDate.getTime() < now)
    const body: AdminInsights = (await get(t.app, '/api/admin/insights', admin.cookie)).json()
    expect(body.current).toEqual({
      mrrCents: 19_800,
      byPlan: [{ planId: 'plan_basic', planName: 'Básico', count: 2, mrrCents: 19_800 }],
      byMethod: [
        { method: 'pix', count: 2, mrrCents: 19_800 },
        { method: 'card', count: 0, mrrCents: 0 },
      ],
      receivables: {
        count: 2,
        totalCents: 29_800,
        dueCount: 2 - overdue.length,
        dueCents: 29_800 - overdue.reduce((s, p) => s + p.amountCents, 0),
        overdueCount: overdue.length,
        overdueCents: overdue.reduce((s, p) => s + p.amountCents, 0),
      },
      pastDue: 0,
      cancellationsThisMonth: 0,
    })
    expect(body.needsYou.pixAwaiting.count).toBe(2)
    expect(body.needsYou.pixAwaiting.oldest.map((w) => [w.customerName, w.amountCents, w.ageSeconds])).toEqual([
      ['Eva Esperando', 19_900, 39 * 3600],
      ['Davi Aberto', 9_900, 6 * 3600],
    ])
    expect(body.needsYou.inReview).toEqual({ count: 0, oldest: [] })
    // The trigger-kept counts equal a count over the rows.
    const counted = (await db.execute(
      sql`select plan_id, billing_method::text, status::text, count(*)::int as n from subscriptions group by 1, 2, 3 order by 1, 2, 3`,
    )) as unknown as { rows: unknown[] }
    const kept = (await db.execute(
      sql`select plan_id, billing_method::text, status::text, count::int as n from subscription_counts where count <> 0 order by 1, 2, 3`,
    )) as unknown as { rows: unknown[] }
    expect(kept.rows).toEqual(counted.rows)
    expect(body.needsYou.failedDeliveries).toEqual({ count: 0, oldest: [] })
  })

  it('the billing tick refreshes at most every 10 minutes, and only the months that can still change', async () => {
    const deps = depsOf(t)
    const refreshedAt = async () => {
      const rows = await t.database.db
        .select({ month: insightsMonthly.month, at: insightsMonthly.refreshedAt })
        .from(insightsMonthly)
        .orderBy(asc(insightsMonthly.month))
      expect(rows).toHaveLength(12)
      return Object.fromEntries(rows.map((r) => [r.month, r.at.toISOString()]))
    }
    const before = await refreshedAt()
    await runBillingTickFree(deps, '2026-07-20T15:00:00.000Z')
    expect(await refreshedAt()).toEqual({ ...before, '2026-07-01': '2026-07-20T15:00:00.000Z' })
    await runBillingTickFree(deps, '2026-07-20T15:05:00.000Z')
    expect(await refreshedAt()).toEqual({ ...before, '2026-07-01': '2026-07-20T15:00:00.000Z' })
    await runBillingTickFree(deps, '2026-07-20T15:10:00.000Z')
    // June was computed after its end plus the grace days: final. Only July is recomputed.
    expect(await refreshedAt()).toEqual({ ...before, '2026-07-01': '2026-07-20T15:10:00.000Z' })
  })

  it('a plan price change today moves this month only; past months stay as they were', async () => {
    const db = t.database.db
    const read = async () => (await get(t.app, '/api/admin/insights', admin.cookie)).json() as AdminInsights
    const before = await read()
    clock.set('2026-07-20T15:20:00.000Z')
    await db.update(plans).set({ priceCents: 12_900, updatedAt: clock.now() }).where(eq(plans.id, 'plan_basic'))
    // The next tick after the change (a refresh counts what is effective before its instant).
    await runBillingTickFree(depsOf(t), '2026-07-20T15:21:00.000Z')
    const after = await read()
    expect(after.months.slice(0, 11)).toEqual(before.months.slice(0, 11))
    const july = before.months[11] as InsightsMonth
    // Ana (active on Básico) expands by R$ 30,00; Carla's reactivation is now worth R$ 129,00.
    expect(after.months[11]).toEqual({
      ...july,
      mrrEndCents: 25_800,
      netCents: 25_800 - july.mrrStartCents,
      expansionCents: 3_000,
      reactivatedCents: 12_900,
    })
    expect(after.current.mrrCents).toBe(25_800)
  })

  it('incremental refreshes over a year of ticks give the same rows as a rebuild from empty (backfill)', async () => {
    const db = t.database.db
    const figures = async () =>
      (await db.select().from(insightsMonthly).orderBy(asc(insightsMonthly.month)))
        .filter((r) => r.month >= '2025-08-01')
        .map(({ refreshedAt: _at, ...rest }) => rest)
    const end = at('2026-07-20T15:30:00.000Z')
    await db.delete(insightsMonthly)
    expect(await refreshStaleInsights(db, end)).toMatchObject({ mode: 'full' })
    const rebuilt = await figures()
    expect(rebuilt).toHaveLength(12)

    // Ticks every 5 days and 7 hours from an empty table a year ago (the first one rebuilds), then at the end.
    await db.delete(insightsMonthly)
    const modes: string[] = []
    for (let tick = at('2025-07-03T12:00:00.000Z'); tick < end; tick = new Date(tick.getTime() + 127 * 3_600_000)) {
      modes.push((await refreshStaleInsights(db, tick)).mode)
    }
    const last = await refreshStaleInsights(db, end)
    expect(last).toEqual({ mode: 'incremental', months: ['2026-07-01'] })
    expect(modes[0]).toBe('full')
    expect(modes.slice(1).every((m) => m === 'incremental')).toBe(true)
    expect(await figures()).toEqual(rebuilt)
  })
})
