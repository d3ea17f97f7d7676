import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PixCheckoutResult } from '../../domain/contracts/billing'
import { confirmReceived, e2eId } from '../modules/admin/admin-fixtures'
import { openShop } from '../modules/billing/test-fixtures'
import { expectInvariantsHold } from '../test/invariants'
import { runScript, type ScriptRun } from '../test/scripts'
import { createTestApp, type TestApp } from '../test/test-app'
import { createUser, post, type TestUser } from '../test/users'
import { connectPglite, type Executor } from './client'
import { checkInvariants, formatReport, invariants } from './invariants'

// Each invariant of `npm run db:check` catches the corruption it is about: a database built through the API is
// clean, then each corruption (applied in a transaction that is rolled back) makes its invariant list the row.

let t: TestApp
let admin: TestUser
let maria: TestUser
let joao: TestUser
let paid: PixCheckoutResult // Maria's, confirmed by the admin: active
let open: PixCheckoutResult // João's, still waiting for the PIX

beforeAll(async () => {
  t = await createTestApp()
  admin = await openShop(t)
  maria = await createUser(t, { name: 'Maria Cliente' })
  joao = await createUser(t, { name: 'João Cliente' })
  const checkout = (user: TestUser) => post(t.app, '/api/checkout/pix', { plan_id: 'plan_pro' }, user.cookie)
  paid = (await checkout(maria)).json()
  open = (await checkout(joao)).json()
  await confirmReceived(t.app, admin.cookie, paid.payment.id, paid.payment.amountCents, {
    end_to_end_id: e2eId('invariants1'),
  })
}, 60_000)
afterAll(async () => {
  await t.close()
})

class Rollback extends Error {}

/** Applies `corrupt` in a transaction, runs the invariants inside it, and rolls everything back. */
async function violationsAfter(corrupt: (tx: Executor) => Promise<unknown>) {
  let report: Awaited<ReturnType<typeof checkInvariants>> | undefined
  await t.database.db
    .transaction(async (tx) => {
      await corrupt(tx)
      report = await checkInvariants(tx)
      throw new Rollback()
    })
    .catch((error) => {
      if (!(error instanceof Rollback)) throw error
    })
  if (!report) throw new Error('no report')
  return report
}

async function expectCaught(name: string, needle: string, corrupt: (tx: Executor) => Promise<unknown>) {
  const report = await violationsAfter(corrupt)
  const violation = report.violations.find((v) => v.name === name)
  expect(violation, formatReport(report)).toBeDefined()
  expect(JSON.stringify(violation?.rows)).toContain(needle)
}

const run = (tx: Executor, text: string) => tx.execute(sql.raw(text))

describe('a healthy database', () => {
  it('holds every invariant', async () => {
    await expectInvariantsHold(t.database.db)
    const report = await checkInvariants(t.database.db)
    expect(report.checked).toBe(invariants.length)
    expect(formatReport(report)).toMatch(/nenhuma violação/)
  })
})

describe('each invariant catches its corruption', () => {
  it('open_invoices_per_period: a second open invoice for the same subscription and period', async () => {
    await expectCaught('open_invoices_per_period', open.subscription.id, (tx) =>
      run(
        tx,
        `insert into payments (id, subscription_id, amount_cents, status, payment_method, type, due_date)
         select 'dup-invoice', subscription_id, amount_cents, status, payment_method, type, due_date
           from payments where id = '${open.payment.id}'`,
      ),
    )
  })

  it('paid_without_reference: a paid invoice naming no provider and no confirming admin', async () => {
    await expectCaught('paid_without_reference', 'ghost-paid', (tx) =>
      run(
        tx,
        `insert into payments (id, subscription_id, amount_cents, status, payment_method, type, due_date, paid_at)
         values ('ghost-paid', '${paid.subscription.id}', 19900, 'paid', 'pix', 'renewal', now(), now())`,
      ),
    )
  })

  it('paid_without_date: a paid invoice without its payment date', async () => {
    await expectCaught('paid_without_date', paid.payment.id, (tx) =>
      run(tx, `update payments set paid_at = null where id = '${paid.payment.id}'`),
    )
  })

  it('provider_reference_twice: one endToEndId on two payments (the unique constraint dropped)', async () => {
    await expectCaught('provider_reference_twice', e2eId('invariants1'), async (tx) => {
      await run(tx, 'alter table payments drop constraint payments_pix_end_to_end_id_unique')
      await run(tx, `update payments set pix_end_to_end_id = '${e2eId('invariants1')}' where id = '${open.payment.id}'`)
    })
  })

  it('payment_applied_twice: a payment confirmed, and its period applied, twice', async () => {
    const report = await violationsAfter((tx) =>
      run(
        tx,
        `insert into audit_log (actor_id, action, entity, entity_id, before, after)
         select actor_id, action, entity, entity_id, before, after from audit_log
          where (entity_id = '${paid.payment.id}' and action = 'payment.confirmed')
             or (entity_id = '${paid.subscription.id}' and action = 'subscription.activated')`,
      ),
    )
    const rows = report.violations.find((v) => v.name === 'payment_applied_twice')?.rows ?? []
    expect(rows.map((r) => r.effect).sort()).toEqual(['confirmado', 'período'])
    expect(rows.every((r) => r.payment_id === paid.payment.id && r.times === 2)).toBe(true)
  })

  it('stripe_event_applied_twice: one Stripe event with the same effect twice', async () => {
    await expectCaught('stripe_event_applied_twice', 'evt_twice', (tx) =>
      run(
        tx,
        `insert into audit_log (action, entity, entity_id, after)
         select 'payment.paid', 'payment', '${paid.payment.id}', '{"eventId": "evt_twice"}'::jsonb
           from generate_series(1, 2)`,
      ),
    )
  })

  it('active_period_unpaid: an active PIX subscription whose current period nobody paid', async () => {
    await expectCaught('active_period_unpaid', paid.subscription.id, (tx) =>
      run(
        tx,
        `update subscriptions set current_period_start = current_period_start + interval '2 months',
                current_period_end = current_period_end + interval '2 months'
          where id = '${paid.subscription.id}'`,
      ),
    )
  })

  it('card_subscription_without_stripe: an active card subscription with no Stripe subscription', async () => {
    await expectCaught('card_subscription_without_stripe', paid.subscription.id, (tx) =>
      run(tx, `update subscriptions set billing_method = 'card' where id = '${paid.subscription.id}'`),
    )
  })

  it('paid_amount_differs: a paid invoice that received another amount and never went through review', async () => {
    await expectCaught('paid_amount_differs', paid.payment.id, (tx) =>
      run(tx, `update payments set amount_received_cents = 100 where id = '${paid.payment.id}'`),
    )
  })

  it('refunds_exceed_received: refunds adding up to more than was received', async () => {
    await expectCaught('refunds_exceed_received', paid.payment.id, (tx) =>
      run(
        tx,
        `insert into pix_refunds (id, payment_id, refund_id, end_to_end_id, amount_cents, reason, status)
         values ('r1', '${paid.payment.id}', 'D1', '${e2eId('invariants1')}', 19900, 'x', 'DEVOLVIDO'),
                ('r2', '${paid.payment.id}', 'D2', '${e2eId('invariants1')}', 1, 'x', 'EM_PROCESSAMENTO')`,
      ),
    )
  })

  it('webhook_without_effect: a processed invoice.paid with no payment, a processed deletion not applied', async () => {
    const report = await violationsAfter(async (tx) => {
      await run(tx, `update subscriptions set stripe_subscription_id = 'sub_lost' where id = '${paid.subscription.id}'`)
      await run(
        tx,
        `insert into webhook_events (id, provider, type, payload, processed_at) values
         ('evt_paid', 'stripe', 'invoice.paid', '{"data": {"object": {"id": "in_lost", "amount_paid": 19900,
           "currency": "brl", "parent": {"subscription_details": {"subscription": "sub_lost"}}}}}'::jsonb, now()),
         ('evt_deleted', 'stripe', 'customer.subscription.deleted',
           '{"data": {"object": {"id": "sub_lost", "status": "canceled"}}}'::jsonb, now())`,
      )
    })
    const rows = report.violations.find((v) => v.name === 'webhook_without_effect')?.rows ?? []
    expect(rows.map((r) => r.event_id).sort()).toEqual(['evt_deleted', 'evt_paid'])
  })

  it('deleted_user_sessions: an erased account that still has its session and password', async () => {
    const report = await violationsAfter((tx) =>
      run(tx, `update profiles set deleted_at = now() where id = '${maria.id}'`),
    )
    const rows = report.violations.find((v) => v.name === 'deleted_user_sessions')?.rows ?? []
    expect(new Set(rows.map((r) => r.kind))).toEqual(new Set(['sessão', 'credencial']))
    expect(rows.every((r) => r.user_id === maria.id)).toBe(true)
  })

  it("notification_without_customer: a message whose customer's account is gone", async () => {
    await expectCaught('notification_without_customer', 'ghost-customer', (tx) =>
      run(
        tx,
        `insert into notifications (id, dedupe_key, kind, channel, user_id, recipient, body, next_attempt_at,
           created_at, updated_at)
         values ('ghost-message', 'overdue:ghost:email', 'overdue', 'email', 'ghost-customer', 'ghost@example.com',
           'Olá', now(), now(), now())`,
      ),
    )
  })

  it('history_without_subscription: a history row whose subscription is gone', async () => {
    await expectCaught('history_without_subscription', 'ghost-subscription', (tx) =>
      run(
        tx,
        `insert into subscription_history (subscription_id, user_id, plan_id, status, billing_method, mrr_cents,
           effective_at, source)
         values ('ghost-subscription', '${maria.id}', 'plan_pro', 'active', 'pix', 19900, now(), 'change')`,
      ),
    )
  })

  it('deleting a subscription deletes its history, as the foreign key cascade did (migration 0027)', async () => {
    const history = (tx: Executor) =>
      tx.execute(sql.raw("select status from subscription_history where subscription_id = 'short-lived'"))
    const rowsOf = (result: unknown) => (result as { rows: { status: string }[] }).rows
    const report = await violationsAfter(async (tx) => {
      await run(
        tx,
        `insert into subscriptions (id, user_id, plan_id, status, billing_method, current_period_start,
           current_period_end, anchor_day)
         values ('short-lived', '${maria.id}', 'plan_pro', 'pending_pix', 'pix', now(), now() + interval '1 month', 1)`,
      )
      await run(tx, "update subscriptions set status = 'active' where id = 'short-lived'")
      expect(rowsOf(await history(tx)).map((r) => r.status)).toEqual(['pending_pix', 'active'])
      await run(tx, "delete from subscriptions where id = 'short-lived'")
      expect(rowsOf(await history(tx))).toEqual([])
    })
    expect(report.violations, formatReport(report)).toEqual([])
  })

  it('audit_money_mismatch: an audit row that says another amount than the payment it describes', async () => {
    await expectCaught('audit_money_mismatch', paid.payment.id, (tx) =>
      run(
        tx,
        `update audit_log set after = jsonb_set(after, '{amountReceivedCents}', '1')
          where entity_id = '${paid.payment.id}' and action = 'payment.confirmed'`,
      ),
    )
    await expectCaught('audit_money_mismatch', paid.subscription.id, (tx) =>
      run(tx, `update payments set status = 'void' where id = '${paid.payment.id}'`),
    )
  })

  it('covers every invariant of the list', () => {
    // Keep this file in step with invariants.ts: one corruption per invariant above.
    expect(invariants.map((i) => i.name)).toEqual([
      'open_invoices_per_period',
      'paid_without_reference',
      'paid_without_date',
      'provider_reference_twice',
      'payment_applied_twice',
      'stripe_event_applied_twice',
      'active_period_unpaid',
      'card_subscription_without_stripe',
      'paid_amount_differs',
      'refunds_exceed_received',
      'webhook_without_effect',
      'deleted_user_sessions',
      'notification_without_customer',
      'history_without_subscription',
      'audit_money_mismatch',
    ])
  })
})

// The script as the operator runs it, on a copy of this database: a PGlite DATA_DIR, or the test's PostgreSQL.
describe('npm run db:check', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'billing-dbcheck-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  function runCheck(databaseUrl?: string): Promise<ScriptRun> {
    return runScript('db-check', [], { DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) })
  }

  it('exits 0 with a summary on a consistent database, 1 with the rows on a corrupted one', async () => {
    let databaseUrl: string | undefined
    let corrupt: (text: string) => Promise<void>
    if (t.database.kind === 'postgres') {
      databaseUrl = (t.database.pool as unknown as { options: { connectionString: string } }).options.connectionString
      corrupt = async (text) => {
        await t.database.db.execute(sql.raw(text))
      }
    } else {
      const dump = await t.database.pglite!.dumpDataDir('none')
      const copy = await connectPglite({ dataDir: path.join(dataDir, 'db'), loadDataDir: dump })
      await copy.close()
      corrupt = async (text) => {
        const again = await connectPglite({ dataDir: path.join(dataDir, 'db') })
        await again.db.execute(sql.raw(text))
        await again.close()
      }
    }

    const clean = await runCheck(databaseUrl)
    expect(clean.code, clean.stderr).toBe(0)
    expect(clean.stdout).toContain(`Invariantes: ${invariants.length} verificadas, nenhuma violação.`)

    await corrupt(`update payments set paid_at = null where id = '${paid.payment.id}'`)
    const broken = await runCheck(databaseUrl)
    expect(broken.code).toBe(1)
    expect(broken.stdout).toContain('VIOLADA paid_without_date: Todo pagamento pago tem data de pagamento.')
    expect(broken.stdout).toContain(`payment_id=${paid.payment.id}`)
    expect(broken.stderr).toContain('Banco inconsistente: paid_without_date')
    if (t.database.kind === 'postgres')
      await t.database.db.execute(sql.raw(`update payments set paid_at = now() where id = '${paid.payment.id}'`))
  }, 60_000)
})
