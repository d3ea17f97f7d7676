// Providers misbehaving, each through its local fake: WhatsApp Cloud API (fake Graph) on a verification code,
// Stripe (fake-stripe-server.ts) on the card checkout, the PSP's API Pix (fake-psp.ts, mTLS) on the PIX checkout,
// answering 500, never answering, or answering slowly; and an SMTP server (smtp-server on loopback) refusing
// connections or never greeting while the billing tick delivers e-mail notifications. The customer gets a
// Portuguese answer within 10 s (or, for API Pix, the static code the design falls back to), nothing is activated,
// the retry once the provider is back makes no duplicate (one code, one Stripe session key, one PSP charge), and an
// e-mail that failed is retried by a later pass and sent once.
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { pixTxidFor } from '../../src/domain/pix-txid'
import { startFakeStripe } from '../../src/server/modules/stripe/fake-stripe-server'
import { checkoutBucketMs } from '../../src/server/modules/stripe/stripe.routes'
import { startFakeGraph } from '../../src/server/test/fake-graph/fake-graph'
import { startFakePsp } from '../../src/server/test/fake-psp/fake-psp'
import {
  type Answer,
  type AppProcess,
  assertInvariants,
  baseEnv,
  billingTick,
  type Cluster,
  type Customer,
  call,
  check,
  createCustomers,
  insertDueRenewals,
  log,
  prepare,
  printOutputs,
  short,
  signIn,
  sleep,
  startProcess,
  startSmtp,
  stopGracefully,
} from './harness'

const portuguese = /[ãõçáéíóúâê]|não|tente|indisponível|erro/i

export async function providersScenario(cluster: Cluster, dir: string): Promise<Record<string, string>> {
  const database = await prepare(cluster.url)
  const pool = database.pool!
  const graph = await startFakeGraph({ templates: { codigo_verificacao: { bodyParams: 1, urlButton: true } } })
  const stripe = await startFakeStripe()
  const psp = await startFakePsp({ callbackRetryDelayMs: 10 })
  const smtp = await startSmtp()
  await smtp.mode('ok')
  await pool.query('update pix_settings set pix_key = $1 where id = 1', [psp.merchantKey])
  const env = baseEnv(cluster, path.join(dir, 'providers'), {
    ...graph.env(),
    ...psp.env(),
    STRIPE_SECRET_KEY: 'sk_test_x',
    STRIPE_WEBHOOK_SECRET: 'whsec_providers',
    STRIPE_API_URL: stripe.url,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Cobrança <cobranca@falhas.example.com.br>',
    RUN_JOBS: 'false',
  })
  let server: AppProcess | undefined
  const figures: Record<string, string> = {}
  /** Records the first answer's time and status, which must come within 10 s. */
  const timed = (name: string, first: Answer) => {
    figures[`${name}_ms`] = first.ms.toFixed(0)
    figures[`${name}_status`] = String(first.status)
    check(first.ms < 10_000, `${name}: answered after ${first.ms.toFixed(0)} ms`)
  }
  /** Signs `customer` in and gives the checkout request (`checkoutPath`, plan_pro) to send and to retry. */
  const checkoutAs = async (customer: Customer, checkoutPath: string) => {
    await signIn(server!.url, customer)
    return () =>
      call(server!.url, 'POST', checkoutPath, {
        body: { plan_id: 'plan_pro' },
        cookie: customer.cookie,
        ip: customer.ip,
        timeoutMs: 30_000,
      })
  }
  try {
    server = await startProcess('server', env)
    const faults: [string, () => void, boolean][] = [
      [
        'whatsapp_500',
        () => graph.failNext.push({ status: 500, code: 2, message: 'Service temporarily unavailable' }),
        false,
      ],
      ['whatsapp_hang', () => graph.stallNext.push({ mode: 'hang' }), false],
      ['whatsapp_slow_3s', () => graph.stallNext.push({ mode: 'slow', ms: 3000 }), true],
    ]
    let n = 0
    for (const [name, arm, succeeds] of faults) {
      n++
      const phone = `55859770${String(Date.now() % 100000).padStart(5, '0')}`.slice(0, 13)
      const ip = `10.99.0.${n}`
      arm()
      const first = await call(server.url, 'POST', '/api/whatsapp/send-code', { body: { phone_number: phone }, ip })
      timed(name, first)
      const sent = () => graph.calls.filter((c) => c.id && c.body.to === phone).length
      if (succeeds) {
        check(first.status === 200, `${name}: ${first.status} ${JSON.stringify(first.body)}`)
        check(sent() === 1, `${name}: ${sent()} messages sent`)
        continue
      }
      const message = String((first.body as { message?: unknown })?.message ?? '')
      check(first.status >= 400 && first.status !== 500, `${name}: ${first.status} ${JSON.stringify(first.body)}`)
      check(portuguese.test(message), `${name}: message not in Portuguese: ${message}`)
      check(sent() === 0, `${name}: a message went out although the call failed`)
      // Meta back: the customer's retry sends one code.
      const retry = await call(server.url, 'POST', '/api/whatsapp/send-code', { body: { phone_number: phone }, ip })
      check(retry.status === 200, `${name} retry: ${retry.status} ${JSON.stringify(retry.body)}`)
      check(sent() === 1, `${name}: ${sent()} messages after the retry`)
      log(`providers: ${name} → ${first.status} in ${first.ms.toFixed(0)} ms: ${message}`)
    }

    // ---- Stripe: the card checkout while Stripe answers 500 (twice: the SDK retries once), hangs, or is slow ----
    const cardFaults: [string, () => void, boolean][] = [
      [
        'stripe_500',
        () => {
          for (let i = 0; i < 2; i++)
            stripe.failNext({ method: 'POST', path: /^\/v1\/checkout\/sessions$/ }, 500, {
              type: 'api_error',
              message: 'An unknown error occurred',
            })
        },
        false,
      ],
      [
        'stripe_hang',
        () => {
          for (let i = 0; i < 2; i++)
            stripe.stallNext({ method: 'POST', path: /^\/v1\/checkout\/sessions$/ }, { mode: 'hang' })
        },
        false,
      ],
      [
        'stripe_slow_3s',
        () => stripe.stallNext({ method: 'POST', path: /^\/v1\/checkout\/sessions$/ }, { mode: 'slow', ms: 3000 }),
        true,
      ],
    ]
    const cardCustomers = await createCustomers(pool, cardFaults.length, `card${randomBytes(2).toString('hex')}`)
    for (const [i, [name, arm, succeeds]] of cardFaults.entries()) {
      const customer = cardCustomers[i]!
      // A purchase's idempotency key holds for a 10-minute window of the clock (stripe.routes.ts): a case whose first
      // call and retries straddle the window's end would rightly get two sessions. Each case takes under 20 s.
      const left = checkoutBucketMs - (Date.now() % checkoutBucketMs)
      if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 100))
      const send = await checkoutAs(customer, '/api/checkout/card')
      arm()
      const first = await send()
      timed(name, first)
      const sessions = () =>
        stripe.requests.filter(
          (r) => r.path === '/v1/checkout/sessions' && (r.body.metadata as { userId?: string })?.userId === customer.id,
        )
      if (succeeds) {
        check(first.status === 200, `${name}: ${first.status} ${JSON.stringify(first.body)}`)
      } else {
        const message = String((first.body as { message?: unknown })?.message ?? '')
        check(first.status === 502, `${name}: ${first.status} ${JSON.stringify(first.body)}`)
        check(portuguese.test(message), `${name}: message not in Portuguese: ${message}`)
        log(`providers: ${name} → ${first.status} in ${first.ms.toFixed(0)} ms: ${message}`)
      }
      // Stripe back: the retry (and a double click) get one session, every attempt under one idempotency key.
      const retry = await send()
      const again = await send()
      check(retry.status === 200 && again.status === 200, `${name} retry: ${retry.status}/${again.status}`)
      const url = (retry.body as { url?: string }).url
      check(url && url === (again.body as { url?: string }).url, `${name}: the retries got two sessions`)
      if (succeeds) check(url === (first.body as { url?: string }).url, `${name}: a second session after the slow one`)
      const keys = new Set(sessions().map((r) => r.headers['idempotency-key']))
      check(keys.size === 1, `${name}: ${keys.size} idempotency keys for one purchase`)
      const active = await pool.query<{ n: number }>(
        `select count(*)::int as n from subscriptions where user_id = $1 and status = 'active'`,
        [customer.id],
      )
      check(active.rows[0]?.n === 0, `${name}: a subscription was activated without a payment`)
    }

    // ---- API Pix: the PIX checkout while the PSP answers 500, hangs, or is slow ----
    // The design (billing/pix-invoice.ts): a PSP that fails leaves the invoice on the static code (answered 200,
    // `autoConfirm` false) and the charge is created on the next view; it is never created twice (txid per invoice).
    const pixFaults: [string, () => void, 'fallback' | 'charge'][] = [
      ['apipix_500', () => psp.controls.failNext({ path: '^/v2/cob/', status: 500, times: 2 }), 'fallback'],
      ['apipix_hang', () => psp.controls.failNext({ path: '^/v2/cob/', mode: 'hang', times: 2 }), 'fallback'],
      ['apipix_slow_3s', () => psp.controls.failNext({ path: '^/v2/cob/', mode: 'slow', delayMs: 3000 }), 'charge'],
    ]
    const pixCustomers = await createCustomers(pool, pixFaults.length, `pix${randomBytes(2).toString('hex')}`)
    for (const [i, [name, arm, outcome]] of pixFaults.entries()) {
      const customer = pixCustomers[i]!
      const send = await checkoutAs(customer, '/api/checkout/pix')
      arm()
      const first = await send()
      psp.controls.clearFailures()
      timed(name, first)
      check(first.status === 200, `${name}: ${first.status} ${JSON.stringify(first.body)}`)
      const result = first.body as { payment: { id: string } }
      const txid = pixTxidFor(result.payment.id)
      // The static code (its reference is still matched by the webhook and the reconciliation), or the PSP's charge.
      const status = async () =>
        (
          await pool.query<{ pix_charge_status: string }>('select pix_charge_status from payments where id = $1', [
            result.payment.id,
          ])
        ).rows[0]?.pix_charge_status
      const firstStatus = await status()
      check(
        firstStatus === (outcome === 'fallback' ? 'fallback' : 'active'),
        `${name}: charge status ${firstStatus} after the first answer`,
      )
      log(`providers: ${name} → ${first.status} in ${first.ms.toFixed(0)} ms (${outcome})`)
      // The PSP back: the retry (checkout again, then the invoice's PIX view) reuses the invoice and its one charge.
      const retry = await send()
      check(retry.status === 200, `${name} retry: ${retry.status}`)
      check(
        (retry.body as { payment: { id: string } }).payment.id === result.payment.id,
        `${name}: the retry made another invoice`,
      )
      const view = await call(server.url, 'GET', `/api/payments/${result.payment.id}/pix`, {
        cookie: customer.cookie,
        ip: customer.ip,
      })
      check(view.status === 200, `${name}: PIX view ${view.status}`)
      const charge = psp.charge(txid) as { loc?: { id: number } } | undefined
      check(charge, `${name}: no charge at the PSP after the retry`)
      const finalStatus = await status()
      check(finalStatus === 'active', `${name}: charge status ${finalStatus} after the retry`)
      const puts = psp.calls.filter((c) => c.method === 'PUT' && c.path === `/v2/cob/${txid}` && c.status === 201)
      check(puts.length === 1, `${name}: the PSP created ${puts.length} charges for one invoice`)
      const open = await pool.query<{ n: number; active: number }>(
        `select count(*) filter (where p.status in ('pending', 'pending_pix'))::int as n,
                count(*) filter (where s.status = 'active')::int as active
         from payments p join subscriptions s on s.id = p.subscription_id where s.user_id = $1`,
        [customer.id],
      )
      check(open.rows[0]?.n === 1 && open.rows[0]?.active === 0, `${name}: ${JSON.stringify(open.rows[0])}`)
    }

    // ---- SMTP: e-mail notifications delivered by the billing tick while the SMTP server refuses or never greets ----
    // The short (CI) run drives the harder of the two, the server that never greets.
    for (const mode of short ? (['hang'] as const) : (['refuse', 'hang'] as const)) {
      const [customer] = await createCustomers(pool, 1, `mail${mode}${randomBytes(2).toString('hex')}`)
      await insertDueRenewals(pool, [customer!], 'mail')
      await smtp.mode(mode)
      const started = Date.now()
      check((await billingTick(env).done) === 0, `smtp_${mode}: the billing tick failed`)
      figures[`smtp_${mode}_tick_ms`] = String(Date.now() - started)
      const mails = () =>
        pool.query<{ id: string; status: string; attempts: number; last_error: string | null }>(
          `select id, status, attempts, last_error from notifications where user_id = $1 and channel = 'email'`,
          [customer!.id],
        )
      const failed = (await mails()).rows
      check(failed.length > 0, `smtp_${mode}: no e-mail notification was due`)
      check(
        failed.every((m) => m.status === 'pending' && m.attempts >= 1 && m.last_error),
        `smtp_${mode}: after the failure ${JSON.stringify(failed)}`,
      )
      const sentBefore = smtp.received.filter((m) => m.to.includes(customer!.email)).length
      check(sentBefore === 0, `smtp_${mode}: ${sentBefore} e-mails arrived although SMTP failed`)
      // SMTP back; the back-off's wait is skipped (next_attempt_at now), then two passes: each e-mail sent once.
      await smtp.mode('ok')
      await pool.query(`update notifications set next_attempt_at = now() where user_id = $1 and channel = 'email'`, [
        customer!.id,
      ])
      check((await billingTick(env).done) === 0, `smtp_${mode}: the billing tick after the return failed`)
      check((await billingTick(env).done) === 0, `smtp_${mode}: a second billing tick failed`)
      const after = (await mails()).rows
      check(
        after.every((m) => m.status === 'sent'),
        `smtp_${mode}: after the return ${JSON.stringify(after)}`,
      )
      const arrived = smtp.received.filter((m) => m.to.includes(customer!.email)).length
      check(arrived === after.length, `smtp_${mode}: ${arrived} e-mails arrived for ${after.length} notifications`)
      figures[`smtp_${mode}_emails`] = String(arrived)
      log(`providers: smtp ${mode} → ${failed.length} e-mail(s) retried, ${arrived} sent once`)
    }
    // ---- SMTP: an account e-mail a request asks for (password reset) while SMTP never greets ----
    // The request answers after its short wait (sendAccountEmail: 3 s), never SMTP's 10 s greeting timeout; the e-mail
    // is kept in the outbox and sent exactly once by the delivery sweep after SMTP returns.
    {
      const [customer] = await createCustomers(pool, 1, `reset${randomBytes(2).toString('hex')}`)
      await smtp.mode('hang')
      const asked = await call(server.url, 'POST', '/api/auth/forgot-password', {
        body: { email: customer!.email },
        ip: customer!.ip,
        timeoutMs: 30_000,
      })
      timed('smtp_hang_reset', asked)
      check(asked.status === 200, `smtp_hang_reset: ${asked.status} ${JSON.stringify(asked.body)}`)
      const resets = () =>
        pool.query<{ status: string; attempts: number; body: string }>(
          `select status, attempts, body from notifications where user_id = $1 and kind = 'password_reset'`,
          [customer!.id],
        )
      const held = (await resets()).rows
      check(
        held.length === 1 && held[0]!.status === 'pending',
        `smtp_hang_reset: while SMTP hangs ${JSON.stringify(held)}`,
      )
      // SMTP back: the hung connection is cut, so the request's own attempt fails and is counted; then the sweep.
      await smtp.mode('ok')
      const deadline = Date.now() + 30_000
      while ((await resets()).rows[0]?.attempts === 0 && Date.now() < deadline) await sleep(200)
      await pool.query(`update notifications set next_attempt_at = now() where user_id = $1`, [customer!.id])
      check((await billingTick(env).done) === 0, 'smtp_hang_reset: the billing tick after the return failed')
      check((await billingTick(env).done) === 0, 'smtp_hang_reset: a second billing tick failed')
      const after = (await resets()).rows
      const arrived = smtp.received.filter((m) => m.to.includes(customer!.email)).length
      check(
        after.length === 1 &&
          after[0]!.status === 'sent' &&
          !after[0]!.body.includes('reset-password') &&
          arrived === 1,
        `smtp_hang_reset: after the return ${JSON.stringify(after)}, ${arrived} e-mail(s) arrived`,
      )
      log(`providers: smtp hang during a password reset → answered in ${asked.ms.toFixed(0)} ms, e-mail sent once`)
    }
    await assertInvariants(database.db, 'providers')
    return figures
  } catch (error) {
    printOutputs([server], 25)
    throw error
  } finally {
    if (server) await stopGracefully(server)
    await graph.close()
    await stripe.close()
    await psp.stop()
    await smtp.close()
    await database.close()
  }
}
