import { readFileSync } from 'node:fs'
import path from 'node:path'
import { startFakeStripe } from '../../src/server/modules/stripe/fake-stripe-server'
import {
  type Answer,
  type AppProcess,
  assertInvariants,
  baseEnv,
  billingTick,
  type Cluster,
  call,
  check,
  createCustomers,
  insertDueRenewals,
  kill9,
  log,
  paidCardSubscription,
  prepare,
  printOutputs,
  renewalTotals,
  signIn,
  sleep,
  startProcess,
  startSmtp,
  stopGracefully,
} from './harness'

export async function twoScenario(cluster: Cluster, dir: string): Promise<Record<string, string>> {
  const database = await prepare(cluster.url)
  const pool = database.pool!
  const dataDir = path.join(dir, 'two')
  const stripe = await startFakeStripe()
  const smtp = await startSmtp()
  await smtp.mode('ok')
  const webhookSecret = 'whsec_two'
  const env = baseEnv(cluster, dataDir, {
    RUN_JOBS: 'false',
    STRIPE_SECRET_KEY: 'sk_test_x',
    STRIPE_WEBHOOK_SECRET: webhookSecret,
    STRIPE_API_URL: stripe.url,
    SMTP_URL: smtp.url,
  })
  const processes: AppProcess[] = []
  try {
    const a = await startProcess('server', env)
    processes.push(a)
    const b = await startProcess('server', env)
    processes.push(b)
    const servers = [a, b]

    // Rate limit: codeSendPerIp (10 an hour) over both instances, alternating.
    const ip = '10.77.0.1'
    const statuses: number[] = []
    for (let i = 0; i < 11; i++) {
      const phone = `5585966${String(100000 + i).slice(0, 6)}`
      const answer = await call(servers[i % 2]!.url, 'POST', '/api/whatsapp/send-code', {
        body: { phone_number: phone },
        ip,
      })
      statuses.push(answer.status)
    }
    check(
      statuses.slice(0, 10).every((s) => s === 200) && statuses[10] === 429,
      `send-code limit across two instances: ${statuses.join(',')}`,
    )

    // Verification code: sent through A, verified through B with the browser cookie A set.
    const phone = '5585955501234'
    const sent = await call(a.url, 'POST', '/api/whatsapp/send-code', {
      body: { phone_number: phone },
      ip: '10.77.0.2',
    })
    check(sent.status === 200, `send-code: ${sent.status}`)
    const lines = readFileSync(path.join(dataDir, 'outbox.jsonl'), 'utf8').trim().split('\n')
    const entry = lines
      .map((l) => JSON.parse(l) as { to?: string; text?: string })
      .filter((e) => e.to === phone)
      .at(-1)
    const code = entry?.text?.match(/\b(\d{6})\b/)?.[1]
    check(code, 'no code in the outbox')
    const verified = await call(b.url, 'POST', '/api/whatsapp/verify-code', {
      body: { phone_number: phone, code },
      ip: '10.77.0.2',
      cookie: sent.setCookie,
    })
    check(
      verified.status === 200,
      `verify-code on the other instance: ${verified.status} ${JSON.stringify(verified.body)}`,
    )

    // Jobs: renewals due before two workers start (each queues a tick at start): one invoice per subscription.
    const customers = await createCustomers(pool, 6, 'two')
    const ids = await insertDueRenewals(pool, customers, 'two')
    processes.push(await startProcess('worker', env), await startProcess('worker', env))
    let renewals = 0
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline && renewals < ids.length) {
      const r = await pool.query<{ n: number }>(
        `select count(*)::int as n from payments where subscription_id = any($1) and type = 'renewal'`,
        [ids],
      )
      renewals = r.rows[0]?.n ?? 0
      await sleep(500)
    }
    await sleep(5000) // the other worker's tick, if any, has had its chance
    const final = await renewalTotals(pool, ids)
    check(
      final.n === ids.length && final.audits === ids.length,
      `two workers: ${JSON.stringify(final)} renewals/audits for ${ids.length} subscriptions`,
    )
    await assertInvariants(database.db, 'two instances: limits, codes, jobs')

    // ---- Webhook: one signed Stripe event delivered to both instances at once applies once ----
    const [cardCustomer] = await createCustomers(pool, 1, 'twocard')
    const { subId, deliver } = paidCardSubscription(stripe, cardCustomer!.id, webhookSecret)
    const both = await Promise.all([deliver(a.url), deliver(b.url)])
    const results = both.map((r) => `${r.status}:${(r.body as { result?: string }).result}`).sort()
    check(
      results.join(',') === '200:duplicate,200:processed',
      `one Stripe event on two instances: ${results.join(', ')}`,
    )
    const cardRows = await pool.query<{ n: number; payments: number }>(
      `select count(*)::int as n, coalesce(sum((select count(*) from payments p where p.subscription_id = s.id)), 0)::int as payments
       from subscriptions s where s.stripe_subscription_id = $1`,
      [subId],
    )
    check(
      cardRows.rows[0]?.n === 1 && cardRows.rows[0]?.payments === 1,
      `one Stripe event on two instances made ${JSON.stringify(cardRows.rows[0])}`,
    )

    // ---- Crash round: server A killed during a PIX checkout, the client's retry goes to B ----
    const [buyer] = await createCustomers(pool, 1, 'twocrash')
    await signIn(a.url, buyer!)
    const checkout = (to: AppProcess) =>
      call(to.url, 'POST', '/api/checkout/pix', { body: { plan_id: 'plan_pro' }, cookie: buyer!.cookie, ip: buyer!.ip })
    const pending = checkout(a)
    await sleep(Math.floor(Math.random() * 800))
    await kill9(a)
    const firstAnswer = await pending
    let retry = await checkout(b)
    for (let i = 0; i < 20 && retry.status !== 200; i++) {
      await sleep(250)
      retry = await checkout(b)
    }
    check(retry.status === 200, `checkout retried on B: ${retry.status} ${JSON.stringify(retry.body)}`)
    const invoiceIdB = (retry.body as { payment: { id: string } }).payment.id
    if (firstAnswer.status === 200)
      check(
        (firstAnswer.body as { payment: { id: string } }).payment.id === invoiceIdB,
        'the retry on B after a 2xx on A made another invoice',
      )
    const openInvoices = await pool.query<{ n: number }>(
      `select count(*)::int as n from payments p join subscriptions s on s.id = p.subscription_id
       where s.user_id = $1 and p.status in ('pending', 'pending_pix')`,
      [buyer!.id],
    )
    check(openInvoices.rows[0]?.n === 1, `kill of A: ${openInvoices.rows[0]?.n} open invoices for one customer`)
    const a2 = await startProcess('server', env, { port: a.port })
    processes[processes.indexOf(a)] = a2

    // ---- Crash round: one worker killed mid-pass while the other runs; the killed one restarted ----
    const dueCustomers = await createCustomers(pool, 5, 'twokill')
    const dueIds = await insertDueRenewals(pool, dueCustomers, 'twok')
    const workerIndex = processes.findIndex((p) => p.kind === 'worker')
    const doomed = processes[workerIndex]!
    await kill9(doomed)
    const restarted = await startProcess('worker', env) // queues a tick at start
    processes[workerIndex] = restarted
    await sleep(Math.floor(Math.random() * 1000))
    await kill9(restarted)
    processes[workerIndex] = await startProcess('worker', env)
    const renewDeadline = Date.now() + 60_000
    let issued = 0
    while (Date.now() < renewDeadline && issued < dueIds.length) {
      const r = await pool.query<{ n: number }>(
        `select count(distinct subscription_id)::int as n from payments where subscription_id = any($1) and type = 'renewal'`,
        [dueIds],
      )
      issued = r.rows[0]?.n ?? 0
      await sleep(300)
    }
    await sleep(2000)
    const once = await renewalTotals(pool, dueIds)
    check(
      once.n === dueIds.length && once.audits === dueIds.length,
      `worker killed beside another: ${JSON.stringify(once)} renewals/audits for ${dueIds.length}`,
    )
    await assertInvariants(database.db, 'two instances: webhook and crash rounds')

    // ---- Provider: the SMTP server refuses while two workers and two billing ticks send; each e-mail sent once ----
    const [mailed] = await createCustomers(pool, 1, 'twomail')
    await smtp.mode('refuse')
    await insertDueRenewals(pool, [mailed!], 'twom')
    const ticks = async () => {
      const codes = await Promise.all([billingTick(env).done, billingTick(env).done])
      check(
        codes.every((c) => c === 0),
        `two billing ticks at once: exit codes ${codes.join(',')}`,
      )
    }
    const mails = () =>
      pool.query<{ id: string; status: string; attempts: number }>(
        `select id, status, attempts from notifications where user_id = $1 and channel = 'email'`,
        [mailed!.id],
      )
    await ticks()
    const failedMails = (await mails()).rows
    check(
      failedMails.length > 0 && failedMails.every((m) => m.status === 'pending' && m.attempts >= 1),
      `SMTP refusing on two instances: ${JSON.stringify(failedMails)}`,
    )
    await smtp.mode('ok')
    await pool.query(`update notifications set next_attempt_at = now() where user_id = $1 and channel = 'email'`, [
      mailed!.id,
    ])
    await ticks()
    await ticks()
    const sentMails = (await mails()).rows
    const arrived = smtp.received.filter((m) => m.to.includes(mailed!.email)).length
    check(
      sentMails.every((m) => m.status === 'sent') && arrived === sentMails.length,
      `SMTP back on two instances: ${arrived} e-mails arrived for ${JSON.stringify(sentMails)}`,
    )
    await assertInvariants(database.db, 'two instances: SMTP refusing')

    // ---- Outage: PostgreSQL stopped 8 s under light load on both servers ----
    const servers2 = processes.filter((p) => p.kind === 'server')
    const answers: Answer[] = []
    let running = true
    const loops = servers2.map(async (server, i) => {
      while (running) {
        answers.push(await call(server.url, 'GET', '/api/plans', { ip: `10.78.0.${i + 1}`, timeoutMs: 20_000 }))
        await sleep(100)
      }
    })
    await sleep(1000)
    const stoppedAt = Date.now()
    cluster.stop('fast')
    await sleep(8000)
    cluster.start()
    const backAt = Date.now()
    const recovered: number[] = []
    for (const server of servers2) {
      while (Date.now() - backAt < 30_000) {
        const r = await call(server.url, 'GET', '/api/payments', { cookie: buyer!.cookie, ip: buyer!.ip })
        if (r.status === 200) break
        await sleep(100)
      }
      recovered.push(Date.now() - backAt)
    }
    await sleep(1000)
    running = false
    await Promise.all(loops)
    const during = answers.filter((x) => x.at - x.ms > stoppedAt + 500 && x.at - x.ms < backAt - 5000)
    const bad = during.filter(
      (x) => x.ms > 5000 || (x.status >= 500 && (x.body as { code?: string })?.code !== 'service_unavailable'),
    )
    check(during.length > 0, 'two instances: no request during the outage')
    check(bad.length === 0, `two instances during the outage: ${JSON.stringify(bad.slice(0, 3))}`)
    for (const ms of recovered) check(ms < 10_000, `two instances: a server recovered after ${ms} ms`)
    for (const p of processes) check(p.child.exitCode === null, `a ${p.kind} died during the outage`)
    await assertInvariants(database.db, 'two instances: outage')
    const figures = {
      send_code_statuses: statuses.join('/'),
      renewals: String(final.n),
      stripe_event_on_both: results.join('+'),
      checkout_killed_answer: String(firstAnswer.status),
      emails_retried_sent_once: `${failedMails.length}/${arrived}`,
      outage_answers: String(during.length),
      outage_503: String(during.filter((x) => x.status === 503).length),
      recovered_ms: recovered.join('/'),
    }
    log(`two: ${JSON.stringify(figures)}`)
    return figures
  } catch (error) {
    printOutputs(processes, 15)
    throw error
  } finally {
    for (const p of processes) await stopGracefully(p)
    await database.close()
    await stripe.close()
    await smtp.close()
  }
}
