// Crash anywhere: kill -9 of the server (during a PIX checkout, an admin confirmation, a Stripe webhook, an API Pix
// webhook), of the billing tick (`npm run billing:tick`) or of the worker (`npm run worker`) mid-pass, at a random
// moment, N times (50; short: 6, one of each), each followed by a restart and the client's (or provider's) retry.
// After each: every answer that was 2xx is in the database, the retry gives the same effect (no second invoice, no
// second confirmation or activation, no second renewal, no second card subscription or payment), and the
// invariants hold. The Stripe and API Pix webhook rounds run the server against the fakes (fake-stripe-server.ts,
// fake-psp.ts over mTLS): the PSP's callback is only a trigger to re-read the charge, so a callback answered 200
// whose re-read the kill cut short is completed by the reconciliation pass (the billing tick), which is counted.
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { pixTxidFor } from '../../src/domain/pix-txid'
import { startFakeStripe } from '../../src/server/modules/stripe/fake-stripe-server'
import { startFakePsp } from '../../src/server/test/fake-psp/fake-psp'
import {
  adminEmail,
  type AppProcess,
  assertInvariants,
  billingTick,
  baseEnv,
  type Cluster,
  type Customer,
  call,
  check,
  createCustomers,
  insertDueRenewals,
  kill9,
  log,
  paidCardSubscription,
  prepare,
  printOutputs,
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

const kinds = ['checkout', 'confirm', 'tick', 'stripe', 'pixhook', 'worker'] as const
type Kind = (typeof kinds)[number]

const _day = 86_400

export async function crashScenario(cluster: Cluster, dir: string): Promise<Record<string, string>> {
  const rounds = short ? kinds.length : 50
  const database = await prepare(cluster.url)
  const pool = database.pool!
  const stripe = await startFakeStripe()
  const psp = await startFakePsp({ callbackRetryDelayMs: 10 })
  const webhookSecret = 'whsec_faults'
  const stripeEnv = { STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_API_URL: stripe.url }
  // Manual PIX (static code + admin confirmation) for checkout/confirm/tick/worker; the PSP's API for pixhook.
  const manualEnv = baseEnv(cluster, path.join(dir, 'crash'), { RUN_JOBS: 'false', ...stripeEnv })
  const apiEnv = { ...manualEnv, ...psp.env() }
  // The PSP refuses charges for another key: the demo settings take the fake's key (the static code works with any).
  await pool.query('update pix_settings set pix_key = $1 where id = 1', [psp.merchantKey])
  let env = manualEnv
  let server: AppProcess = await startProcess('server', env)
  const port = server.port
  const startMs: number[] = []
  const restart = async () => {
    server = await startProcess('server', env, { port })
    startMs.push(server.startMs)
  }
  /** The next round needs the other PIX configuration: a graceful restart with it. */
  const switchEnv = async (wanted: typeof env) => {
    if (wanted === env) return
    env = wanted
    await stopGracefully(server)
    await restart()
  }
  const admin = { email: adminEmail, ip: '10.200.0.1', cookie: '' }
  await signIn(server.url, admin)
  const counts = {
    checkout: 0,
    confirm: 0,
    tick: 0,
    stripe: 0,
    pixhook: 0,
    worker: 0,
    killedBeforeAnswer: 0,
    answered2xxBeforeKill: 0,
    pixhookReconciled: 0,
  }
  const roundMs: Record<Kind, number[]> = { checkout: [], confirm: [], tick: [], stripe: [], pixhook: [], worker: [] }
  const pendingToConfirm: { customer: Customer; paymentId: string; amount: number; subscriptionId: string }[] = []
  let worker: AppProcess | undefined

  /** Sends `request`, kills the server after a random 0-`maxDelay` ms, restarts it, and returns the first answer. */
  async function underKill<T>(request: () => Promise<T>, maxDelay: number): Promise<T> {
    const pending = request()
    await sleep(Math.floor(Math.random() * maxDelay))
    await kill9(server)
    const first = await pending
    await restart()
    return first
  }

  /** The client's retry: again until 200 (at most ~5 s of 503/connection errors after the restart). */
  async function retryUntil200(send: () => ReturnType<typeof call>, label: string) {
    let retry = await send()
    for (let i = 0; i < 20 && retry.status !== 200; i++) {
      await sleep(250)
      retry = await send()
    }
    check(retry.status === 200, `${label} retry: ${retry.status} ${JSON.stringify(retry.body)}`)
    return retry
  }

  const tick = (tickEnv: typeof env) => billingTick(tickEnv).done

  /** Five active PIX subscriptions (their period paid) whose renewal invoice is due now. */
  async function dueRenewals(tag: string): Promise<string[]> {
    return insertDueRenewals(pool, await createCustomers(pool, 5, tag), 'fault')
  }

  async function renewalCounts(ids: string[]) {
    const renewals = await pool.query<{ subscription_id: string; n: number; audits: number }>(
      `select p.subscription_id, count(*)::int as n,
              (select count(*)::int from audit_log a where a.action = 'payment.renewal_invoice'
                and a.entity_id = any(array_agg(p.id))) as audits
       from payments p where p.subscription_id = any($1) and p.type = 'renewal' group by p.subscription_id`,
      [ids],
    )
    return renewals.rows
  }

  function checkRenewals(rows: { n: number; audits: number }[], ids: string[]) {
    check(rows.length === ids.length, `renewals for ${rows.length} of ${ids.length} subscriptions`)
    for (const r of rows) check(r.n === 1 && r.audits === 1, `renewal issued ${r.n}× (${r.audits} audits)`)
  }

  /** A customer signed in on the running server. */
  async function newCustomer(tag: string): Promise<Customer> {
    const [customer] = await createCustomers(pool, 1, tag)
    await signIn(server.url, customer!)
    return customer!
  }

  /** One confirmation applied once: the payment paid with this E2E id, one payment.confirmed, one activation. */
  async function checkConfirmedOnce(paymentId: string, subscriptionId: string, endToEndId: string) {
    const payment = await pool.query('select status, pix_end_to_end_id from payments where id = $1', [paymentId])
    check(payment.rows[0]?.status === 'paid', `confirmed payment is ${payment.rows[0]?.status}`)
    check(payment.rows[0]?.pix_end_to_end_id === endToEndId, 'confirmed with another E2E id')
    const audits = await pool.query<{ action: string; n: number }>(
      `select action, count(*)::int as n from audit_log where entity_id in ($1, $2)
       and action in ('payment.confirmed', 'subscription.activated') group by action`,
      [paymentId, subscriptionId],
    )
    const by = Object.fromEntries(audits.rows.map((r) => [r.action, r.n]))
    check(
      by['payment.confirmed'] === 1 && by['subscription.activated'] === 1,
      `confirmation applied ${JSON.stringify(by)} times`,
    )
    const sub = await pool.query('select status from subscriptions where id = $1', [subscriptionId])
    check(sub.rows[0]?.status === 'active', `subscription is ${sub.rows[0]?.status} after confirmation`)
  }

  try {
    for (let round = 0; round < rounds; round++) {
      const kind = kinds[round % kinds.length]!
      const roundStarted = Date.now()
      await switchEnv(kind === 'pixhook' ? apiEnv : manualEnv)
      if (kind === 'checkout' || (kind === 'confirm' && pendingToConfirm.length === 0)) {
        // ---- PIX checkout ----
        const customer = await newCustomer(`c${round}x`)
        const send = () =>
          call(server.url, 'POST', '/api/checkout/pix', {
            body: { plan_id: 'plan_pro' },
            cookie: customer.cookie,
            ip: customer.ip,
          })
        const first = await underKill(send, 1500)
        const retry = await retryUntil200(send, 'checkout')
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
          [customer.id],
        )
        check(open.rows[0]?.n === 1, `checkout: ${open.rows[0]?.n} open invoices for one customer`)
        pendingToConfirm.push({
          customer,
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
        await retryUntil200(send, 'confirm')
        await checkConfirmedOnce(target.paymentId, target.subscriptionId, body.end_to_end_id)
        counts.confirm++
      } else if (kind === 'tick') {
        // ---- billing tick: renewals for subscriptions ending in two days, the tick killed mid-way ----
        const ids = await dueRenewals(`t${round}x`)
        // Killed at a random moment between start-up and the end of its passes.
        const { child, done: ended } = billingTick(env)
        await sleep(300 + Math.floor(Math.random() * 1500))
        child.kill('SIGKILL')
        await ended
        check((await tick(env)) === 0, 'the billing tick after the crash failed')
        check((await tick(env)) === 0, 'a second billing tick failed')
        checkRenewals(await renewalCounts(ids), ids)
        counts.tick++
      } else if (kind === 'worker') {
        // ---- worker (`npm run worker`): killed during its first pass (it queues a tick at start), restarted ----
        const ids = await dueRenewals(`w${round}x`)
        worker = await startProcess('worker', env)
        await sleep(Math.floor(Math.random() * 1500))
        await kill9(worker)
        const killedWith = (await renewalCounts(ids)).length
        worker = await startProcess('worker', env)
        const deadline = Date.now() + 60_000
        let rows = await renewalCounts(ids)
        while (Date.now() < deadline && rows.length < ids.length) {
          await sleep(300)
          rows = await renewalCounts(ids)
        }
        await sleep(1000) // a second tick, if any, has had its chance to issue twice
        checkRenewals(await renewalCounts(ids), ids)
        await stopGracefully(worker)
        worker = undefined
        if (killedWith > 0 && killedWith < ids.length) counts.answered2xxBeforeKill++
        counts.worker++
      } else if (kind === 'stripe') {
        // ---- Stripe webhook: invoice.paid of a new card subscription, the server killed while applying it ----
        const customer = (await createCustomers(pool, 1, `s${round}x`))[0]!
        const { subId, event, deliver } = paidCardSubscription(stripe, customer.id, webhookSecret)
        const send = () => deliver(server.url)
        const first = await underKill(send, 800)
        if (first.status === 200) counts.answered2xxBeforeKill++
        else counts.killedBeforeAnswer++
        // Stripe delivers again until it gets a 2xx; after a 2xx it does not, so the first answer must hold.
        if (first.status !== 200) await retryUntil200(send, 'stripe webhook')
        const rows = await pool.query<{ id: string; status: string; n: number }>(
          `select s.id, s.status, (select count(*)::int from payments p where p.subscription_id = s.id) as n
           from subscriptions s where s.stripe_subscription_id = $1`,
          [subId],
        )
        check(rows.rows.length === 1, `stripe: ${rows.rows.length} subscriptions for one Stripe subscription`)
        check(rows.rows[0]?.status === 'active', `stripe: the subscription is ${rows.rows[0]?.status}`)
        check(rows.rows[0]?.n === 1, `stripe: ${rows.rows[0]?.n} payments for one invoice`)
        const recorded = await pool.query<{ n: number }>(
          'select count(*)::int as n from webhook_events where id = $1',
          [event.id],
        )
        check(recorded.rows[0]?.n === 1, `stripe: the event recorded ${recorded.rows[0]?.n} times`)
        // A late duplicate delivery changes nothing.
        const replay = await retryUntil200(send, 'stripe replay')
        check(
          (replay.body as { result?: string }).result === 'duplicate',
          `stripe replay: ${JSON.stringify(replay.body)}`,
        )
        counts.stripe++
      } else {
        // ---- API Pix webhook: the PSP's callback for a paid charge, the server killed while re-reading it ----
        const customer = await newCustomer(`p${round}x`)
        const checkout = await retryUntil200(
          () =>
            call(server.url, 'POST', '/api/checkout/pix', {
              body: { plan_id: 'plan_pro' },
              cookie: customer.cookie,
              ip: customer.ip,
            }),
          'api pix checkout',
        )
        const { payment, subscription } = checkout.body as CheckoutBody
        const txid = pixTxidFor(payment.id)
        check(psp.charge(txid), 'api pix: no charge at the PSP for the invoice')
        // Paid in the bank app; the callback comes from us below (the fake's own delivery is dropped).
        const pix = (await psp.controls.pay({ txid, callback: 'drop' })) as { endToEndId: string }
        const body = { pix: [{ endToEndId: pix.endToEndId, txid, valor: '199.00', horario: new Date().toISOString() }] }
        const send = () => call(server.url, 'POST', '/api/webhooks/pix', { body })
        const first = await underKill(send, 600)
        if (first.status === 200) counts.answered2xxBeforeKill++
        else {
          counts.killedBeforeAnswer++
          // The PSP delivers again until it gets a 2xx.
          await retryUntil200(send, 'pix webhook')
        }
        const paid = async () =>
          (await pool.query('select status from payments where id = $1', [payment.id])).rows[0]?.status === 'paid'
        const deadline = Date.now() + 3000
        while (Date.now() < deadline && !(await paid())) await sleep(200)
        if (!(await paid())) {
          // Answered 200 and killed before the re-read finished: the reconciliation pass (every tick) finds the PIX.
          check((await tick(apiEnv)) === 0, 'the billing tick (reconciliation) failed')
          counts.pixhookReconciled++
        }
        await checkConfirmedOnce(payment.id, subscription.id, pix.endToEndId)
        const puts = psp.calls.filter((c) => c.method === 'PUT' && c.path === `/v2/cob/${txid}` && c.status < 300)
        check(puts.length >= 1, 'api pix: the charge was never created')
        counts.pixhook++
      }
      roundMs[kind].push(Date.now() - roundStarted)
      await assertInvariants(
        database.db,
        `crash round ${round + 1}/${rounds} (${kind}, ${Date.now() - roundStarted} ms)`,
      )
    }
    const mean = (xs: number[]) => (xs.length ? (xs.reduce((a, b) => a + b, 0) / xs.length / 1000).toFixed(1) : '-')
    log(`crash: mean seconds per round ${JSON.stringify(Object.fromEntries(kinds.map((k) => [k, mean(roundMs[k])])))}`)
    log(
      `crash: server restarts ${startMs.length}, mean ${mean(startMs)} s, max ${(Math.max(...startMs) / 1000).toFixed(1)} s`,
    )
    return Object.fromEntries(Object.entries({ rounds, ...counts }).map(([k, v]) => [k, String(v)]))
  } catch (error) {
    printOutputs([server, worker], 25)
    throw error
  } finally {
    if (worker) await stopGracefully(worker)
    await stopGracefully(server)
    await database.close()
    await stripe.close()
    await psp.stop()
  }
}
