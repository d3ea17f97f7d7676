// Crash anywhere: kill -9 of the server (during a PIX checkout or an admin confirmation) or of the billing tick
// (`npm run billing:tick`, the worker's pass) at a random moment, N times (50; short: 6), each followed by a restart
// and the client's retry. After each: every answer that was 2xx is in the database, the retry gives the same
// effect (no second invoice, no second confirmation or activation, no second renewal), and the invariants hold.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import {
  adminEmail,
  type AppProcess,
  assertInvariants,
  baseEnv,
  type Cluster,
  type Customer,
  call,
  check,
  createCustomers,
  kill9,
  prepare,
  root,
  short,
  signIn,
  sleep,
  startProcess,
  stopGracefully,
} from './harness'

type CheckoutBody = { payment: { id: string; amountCents: number }; subscription: { id: string }; reused: boolean }

function e2eId(): string {
  return `E${randomBytes(16).toString('hex').slice(0, 31)}`
}

export async function crashScenario(cluster: Cluster, dir: string): Promise<Record<string, string>> {
  const rounds = short ? 6 : 50
  const database = await prepare(cluster.url)
  const pool = database.pool!
  const env = baseEnv(cluster, path.join(dir, 'crash'), { RUN_JOBS: 'false' })
  let server: AppProcess = await startProcess('server', env)
  const port = server.port
  const restart = async () => {
    server = await startProcess('server', env, { port })
  }
  const admin = { email: adminEmail, ip: '10.200.0.1', cookie: '' }
  await signIn(server.url, admin)
  const counts = { checkout: 0, confirm: 0, tick: 0, killedBeforeAnswer: 0, answered2xxBeforeKill: 0 }
  const pendingToConfirm: { customer: Customer; paymentId: string; amount: number; subscriptionId: string }[] = []

  /** Sends `request`, kills the server after a random 0-`maxDelay` ms, restarts it, and returns the first answer. */
  async function underKill<T>(request: () => Promise<T>, maxDelay: number): Promise<T> {
    const pending = request()
    await sleep(Math.floor(Math.random() * maxDelay))
    await kill9(server)
    const first = await pending
    await restart()
    return first
  }

  try {
    for (let round = 0; round < rounds; round++) {
      const kind = (['checkout', 'confirm', 'tick'] as const)[round % 3]!
      if (kind === 'checkout' || (kind === 'confirm' && pendingToConfirm.length === 0)) {
        // ---- PIX checkout ----
        const [customer] = await createCustomers(pool, 1, `c${round}x`)
        await signIn(server.url, customer!)
        const send = () =>
          call(server.url, 'POST', '/api/checkout/pix', {
            body: { plan_id: 'plan_pro' },
            cookie: customer!.cookie,
            ip: customer!.ip,
          })
        const first = await underKill(send, 1500)
        let retry = await send()
        for (let i = 0; i < 20 && retry.status !== 200; i++) {
          await sleep(250)
          retry = await send()
        }
        check(retry.status === 200, `checkout retry: ${retry.status} ${JSON.stringify(retry.body)}`)
        const again = retry.body as CheckoutBody
        if (first.status === 200) {
          counts.answered2xxBeforeKill++
          const body = first.body as CheckoutBody
          check(again.payment.id === body.payment.id, 'the retry after a 2xx checkout made another invoice')
          const row = await pool.query('select status from payments where id = $1', [body.payment.id])
          check(row.rows[0]?.status === 'pending_pix', `2xx checkout lost: ${JSON.stringify(row.rows)}`)
        } else counts.killedBeforeAnswer++
        const open = await pool.query<{ n: number }>(
          `select count(*)::int as n from payments p join subscriptions s on s.id = p.subscription_id
           where s.user_id = $1 and p.status in ('pending', 'pending_pix')`,
          [customer!.id],
        )
        check(open.rows[0]?.n === 1, `checkout: ${open.rows[0]?.n} open invoices for one customer`)
        pendingToConfirm.push({
          customer: customer!,
          paymentId: again.payment.id,
          amount: again.payment.amountCents,
          subscriptionId: again.subscription.id,
        })
        counts.checkout++
      } else if (kind === 'confirm') {
        // ---- admin confirmation ----
        const target = pendingToConfirm.shift()!
        const body = { amount_received_cents: target.amount, end_to_end_id: e2eId() }
        const send = () =>
          call(server.url, 'POST', `/api/admin/payments/${target.paymentId}/confirm`, {
            body,
            cookie: admin.cookie,
            ip: admin.ip,
          })
        const first = await underKill(send, 1500)
        if (first.status === 200) counts.answered2xxBeforeKill++
        else counts.killedBeforeAnswer++
        let retry = await send()
        for (let i = 0; i < 20 && retry.status !== 200; i++) {
          await sleep(250)
          retry = await send()
        }
        check(retry.status === 200, `confirm retry: ${retry.status} ${JSON.stringify(retry.body)}`)
        const payment = await pool.query('select status, pix_end_to_end_id from payments where id = $1', [
          target.paymentId,
        ])
        check(payment.rows[0]?.status === 'paid', `confirmed payment is ${payment.rows[0]?.status}`)
        check(payment.rows[0]?.pix_end_to_end_id === body.end_to_end_id, 'confirmed with another E2E id')
        const audits = await pool.query<{ action: string; n: number }>(
          `select action, count(*)::int as n from audit_log where entity_id in ($1, $2)
           and action in ('payment.confirmed', 'subscription.activated') group by action`,
          [target.paymentId, target.subscriptionId],
        )
        const by = Object.fromEntries(audits.rows.map((r) => [r.action, r.n]))
        check(
          by['payment.confirmed'] === 1 && by['subscription.activated'] === 1,
          `confirmation applied ${JSON.stringify(by)} times`,
        )
        const sub = await pool.query('select status from subscriptions where id = $1', [target.subscriptionId])
        check(sub.rows[0]?.status === 'active', `subscription is ${sub.rows[0]?.status} after confirmation`)
        counts.confirm++
      } else {
        // ---- billing tick: renewals for subscriptions ending in two days, the tick killed mid-way ----
        const customers = await createCustomers(pool, 5, `t${round}x`)
        const ids: string[] = []
        for (const c of customers) {
          const id = `sub_fault_${randomBytes(6).toString('hex')}`
          ids.push(id)
          await pool.query(
            `insert into subscriptions (id, user_id, plan_id, status, billing_method, current_period_start, current_period_end, anchor_day)
             values ($1, $2, 'plan_basic', 'active', 'pix', now() - interval '28 days', now() + interval '2 days',
                     extract(day from now() - interval '28 days')::int)`,
            [id, c.id],
          )
          // The period in force was paid (by PIX, with its endToEndId), as db:check requires of an active subscription.
          await pool.query(
            `insert into payments (id, subscription_id, amount_cents, status, payment_method, type, due_date, paid_at,
                                   pix_reference, pix_end_to_end_id)
             values ($1, $2, 9900, 'paid', 'pix', 'new', now() - interval '28 days', now() - interval '28 days', $3, $4)`,
            [
              `pay_fault_${randomBytes(6).toString('hex')}`,
              id,
              `ASS${randomBytes(11).toString('hex')}`,
              `E${randomBytes(15).toString('hex')}F`,
            ],
          )
        }
        const tick = () =>
          new Promise<number | null>((resolve) => {
            const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/billing-tick.ts'], {
              cwd: root,
              env: { ...process.env, ...env },
              stdio: 'ignore',
            })
            child.once('exit', (code) => resolve(code))
          })
        // Killed at a random moment between start-up and the end of its passes.
        const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/billing-tick.ts'], {
          cwd: root,
          env: { ...process.env, ...env },
          stdio: 'ignore',
        })
        const ended = new Promise((resolve) => child.once('exit', resolve))
        await sleep(1500 + Math.floor(Math.random() * 3000))
        child.kill('SIGKILL')
        await ended
        check((await tick()) === 0, 'the billing tick after the crash failed')
        check((await tick()) === 0, 'a second billing tick failed')
        const renewals = await pool.query<{ subscription_id: string; n: number; audits: number }>(
          `select p.subscription_id, count(*)::int as n,
                  (select count(*)::int from audit_log a where a.action = 'payment.renewal_invoice'
                    and a.entity_id = any(array_agg(p.id))) as audits
           from payments p where p.subscription_id = any($1) and p.type = 'renewal' group by p.subscription_id`,
          [ids],
        )
        check(
          renewals.rows.length === ids.length,
          `renewals for ${renewals.rows.length} of ${ids.length} subscriptions`,
        )
        for (const r of renewals.rows) check(r.n === 1 && r.audits === 1, `renewal issued ${r.n}× (${r.audits} audits)`)
        counts.tick++
      }
      await assertInvariants(database.db, `crash round ${round + 1}/${rounds} (${kind})`)
    }
    return Object.fromEntries(Object.entries({ rounds, ...counts }).map(([k, v]) => [k, String(v)]))
  } catch (error) {
    console.error(`--- server (exit ${server.child.exitCode}):\n${server.output.slice(-25).join('\n')}`)
    throw error
  } finally {
    await stopGracefully(server)
    await database.close()
  }
}
