// Two servers and two workers on one PostgreSQL: a per-IP rate limit counts hits on both instances, a verification
// code sent through one instance is accepted by the other, and renewals due while two workers run are issued once.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import {
  type AppProcess,
  assertInvariants,
  baseEnv,
  type Cluster,
  call,
  check,
  createCustomers,
  prepare,
  sleep,
  startProcess,
  stopGracefully,
} from './harness'

export async function twoScenario(cluster: Cluster, dir: string): Promise<Record<string, string>> {
  const database = await prepare(cluster.url)
  const pool = database.pool!
  const dataDir = path.join(dir, 'two')
  const env = baseEnv(cluster, dataDir, { RUN_JOBS: 'false' })
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
    const ids: string[] = []
    for (const c of customers) {
      const id = `sub_two_${randomBytes(6).toString('hex')}`
      ids.push(id)
      await pool.query(
        `insert into subscriptions (id, user_id, plan_id, status, billing_method, current_period_start, current_period_end, anchor_day)
         values ($1, $2, 'plan_basic', 'active', 'pix', now() - interval '28 days', now() + interval '2 days',
                 extract(day from now() - interval '28 days')::int)`,
        [id, c.id],
      )
    }
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
    const final = await pool.query<{ n: number; audits: number }>(
      `select count(*)::int as n,
              (select count(*)::int from audit_log where action = 'payment.renewal_invoice'
                and entity_id in (select id from payments where subscription_id = any($1))) as audits
       from payments where subscription_id = any($1) and type = 'renewal'`,
      [ids],
    )
    check(
      final.rows[0]?.n === ids.length && final.rows[0]?.audits === ids.length,
      `two workers: ${JSON.stringify(final.rows[0])} renewals/audits for ${ids.length} subscriptions`,
    )
    await assertInvariants(database.db, 'two instances')
    return { send_code_statuses: statuses.join('/'), renewals: String(final.rows[0]?.n) }
  } catch (error) {
    for (const p of processes)
      console.error(`--- ${p.kind} (exit ${p.child.exitCode}):\n${p.output.slice(-15).join('\n')}`)
    throw error
  } finally {
    for (const p of processes) await stopGracefully(p)
    await database.close()
  }
}
