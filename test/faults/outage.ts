// Database outage: the test cluster stopped for 30 s (short: 8 s) under load, with one server (jobs off) and one
// worker. Requests fail within 5 s with 503 service_unavailable, /api/health says not ready, the worker stays up
// and backs off, everything recovers within 10 s of the database returning, and no job is lost.
import path from 'node:path'
import { PgBoss } from 'pg-boss'
import { queues } from '../../src/server/jobs'
import {
  type Answer,
  type AppProcess,
  assertInvariants,
  baseEnv,
  type Cluster,
  call,
  check,
  createCustomers,
  log,
  prepare,
  printOutputs,
  short,
  signIn,
  sleep,
  startProcess,
  stopGracefully,
} from './harness'

export async function outageScenario(cluster: Cluster, dir: string): Promise<Record<string, string>> {
  const outageMs = short ? 8_000 : 30_000
  const database = await prepare(cluster.url)
  const env = baseEnv(cluster, path.join(dir, 'outage'), { RUN_JOBS: 'false' })
  const server = await startProcess('server', env)
  const worker = await startProcess('worker', env)
  const processes: AppProcess[] = [server, worker]
  try {
    const customers = await createCustomers(database.pool!, 8)
    for (const c of customers) await signIn(server.url, c)

    const answers: Answer[] = []
    let running = true
    const loops = customers.map(async (c, i) => {
      const paths = ['/api/plans', '/api/payments', '/api/subscriptions', '/api/health']
      let n = i
      while (running) {
        const p = paths[n++ % paths.length]!
        answers.push(await call(server.url, 'GET', p, { cookie: c.cookie, ip: c.ip, timeoutMs: 20_000 }))
        if (n % 7 === 0) {
          answers.push(
            await call(server.url, 'POST', '/api/checkout/pix', {
              body: { plan_id: 'plan_basic' },
              cookie: c.cookie,
              ip: c.ip,
              timeoutMs: 20_000,
            }),
          )
        }
        await sleep(50)
      }
    })

    await sleep(3000)
    const warm = answers.filter((a) => a.status >= 500 || a.status === 0)
    check(warm.length === 0, `errors before the outage: ${JSON.stringify(warm.slice(0, 3))}`)

    // A job the worker has to run, queued just before the database goes: it must be done after it returns.
    const boss = new PgBoss({ connectionString: cluster.url, supervise: false, schedule: false, migrate: false })
    boss.on('error', () => {})
    await boss.start()
    // Due 3 s later, while the database is down: queued just before the outage, the worker cannot have run it before
    // (without the delay it was done before the stop, and the check proved nothing).
    const jobId = await boss.send(
      queues.platformEvents,
      { from: 'outage' },
      { singletonKey: `outage-${Date.now()}`, startAfter: new Date(Date.now() + 3000) },
    )
    await boss.stop({ graceful: false, close: true })

    log(`outage: stopping PostgreSQL for ${outageMs / 1000} s (job ${jobId})`)
    const stoppedAt = Date.now()
    cluster.stop('fast')
    await sleep(1000)
    const health = await call(server.url, 'GET', '/api/health', { timeoutMs: 10_000 })
    check(health.status === 503, `health during the outage: ${health.status} ${JSON.stringify(health.body)}`)
    await sleep(outageMs - 1000)
    cluster.start()
    const startedAt = Date.now()
    log('outage: PostgreSQL back')

    // Recovery: one of each kind answered 2xx, measured from the database's return.
    const recovered: Record<string, number> = {}
    const c0 = customers[0]!
    const probes: [string, () => Promise<Answer>][] = [
      ['health', () => call(server.url, 'GET', '/api/health')],
      ['plans', () => call(server.url, 'GET', '/api/plans', { ip: c0.ip })],
      ['payments', () => call(server.url, 'GET', '/api/payments', { cookie: c0.cookie, ip: c0.ip })],
      [
        'checkout',
        () =>
          call(server.url, 'POST', '/api/checkout/pix', {
            body: { plan_id: 'plan_pro' },
            cookie: c0.cookie,
            ip: c0.ip,
          }),
      ],
    ]
    for (const [name, probe] of probes) {
      while (Date.now() - startedAt < 30_000) {
        const a = await probe()
        if (a.status >= 200 && a.status < 300) break
        await sleep(100)
      }
      recovered[name] = Date.now() - startedAt
    }
    await sleep(2000)
    running = false
    await Promise.all(loops)

    // During: every answer within 5 s, a 503 service_unavailable (never another 5xx, never silence).
    // Requests sent while the database was away (and early enough to have had their 5 s before it returned).
    const inOutage = answers.filter((a) => a.at - a.ms > stoppedAt + 500 && a.at - a.ms < startedAt - 5000)
    const slow = inOutage.filter((a) => a.ms > 5000)
    const wrong = inOutage.filter(
      (a) =>
        a.status >= 500 &&
        !(a.status === 503 && ['service_unavailable'].includes(String((a.body as { code?: string })?.code))) &&
        !(a.path === '/api/health' && a.status === 503),
    )
    const nonAnswers = inOutage.filter((a) => a.status === 0)
    const unavailable = inOutage.filter((a) => a.status === 503).length
    check(slow.length === 0, `answers slower than 5 s during the outage: ${JSON.stringify(slow.slice(0, 3))}`)
    check(nonAnswers.length === 0, `no answer during the outage: ${JSON.stringify(nonAnswers.slice(0, 3))}`)
    check(wrong.length === 0, `5xx other than service_unavailable: ${JSON.stringify(wrong.slice(0, 3))}`)
    check(unavailable > 0, 'no 503 at all during the outage (did the load run?)')
    const after = answers.filter((a) => a.at > startedAt + 10_000)
    const failedAfter = after.filter((a) => a.status >= 500 || a.status === 0)
    check(failedAfter.length === 0, `errors 10 s after the return: ${JSON.stringify(failedAfter.slice(0, 3))}`)
    for (const [name, ms] of Object.entries(recovered)) check(ms < 10_000, `${name} recovered only after ${ms} ms`)
    check(worker.child.exitCode === null && server.child.exitCode === null, 'a process died during the outage')
    // Back-off: the lines the worker logged while the database was away, by their own timestamps (what it logs once
    // the database is back, e.g. the notifications it then delivers, is work, not retrying).
    const workerLines = worker.output.filter((line) => {
      const time = loggedAt(line)
      return time !== undefined && time >= stoppedAt && time < startedAt
    }).length
    const perSecond = workerLines / ((startedAt - stoppedAt) / 1000)
    check(perSecond < 5, `worker logged ${workerLines} lines in ${(startedAt - stoppedAt) / 1000} s: no back-off`)

    // The job queued before the outage: completed after it (pg-boss retries a job whose worker failed on it).
    let state = ''
    const jobDeadline = Date.now() + 60_000
    while (Date.now() < jobDeadline) {
      const row = await database.pool!.query<{ state: string }>('select state from pgboss.job where id = $1', [jobId])
      state = row.rows[0]?.state ?? 'missing'
      if (state === 'completed') break
      await sleep(500)
    }
    check(state === 'completed', `the job queued before the outage ended ${state}`)
    // When it completed, against the database's return (same machine, same clock): negative = before the outage.
    const completed = await database.pool!.query<{ at: Date }>(
      'select completed_on as at from pgboss.job where id = $1',
      [jobId],
    )
    const jobAfterReturnMs = (completed.rows[0]?.at.getTime() ?? Number.NaN) - startedAt
    check(jobAfterReturnMs > 0, `the job queued before the outage completed ${-jobAfterReturnMs} ms before the return`)
    await assertInvariants(database.db, 'outage')

    const maxMs = Math.max(...inOutage.map((a) => a.ms))
    const figures = {
      outage_s: String(outageMs / 1000),
      answers_during: String(inOutage.length),
      answers_503: String(unavailable),
      slowest_during_ms: maxMs.toFixed(0),
      worker_log_lines_per_s: perSecond.toFixed(2),
      job_completed_after_return_ms: jobAfterReturnMs.toFixed(0),
      ...Object.fromEntries(Object.entries(recovered).map(([k, v]) => [`recovered_${k}_ms`, String(v)])),
    }
    log(`outage: ${JSON.stringify(figures)}`)
    return figures
  } catch (error) {
    printOutputs(processes, 25)
    throw error
  } finally {
    for (const p of processes) await stopGracefully(p)
    await database.close()
  }
}

/** The `time` of a pino JSON line (ms since the epoch), or undefined for a line that is not one. */
function loggedAt(line: string): number | undefined {
  try {
    const time = (JSON.parse(line) as { time?: unknown }).time
    return typeof time === 'number' ? time : undefined
  } catch {
    return undefined
  }
}
