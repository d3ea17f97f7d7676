// The durable job queue (pg-boss, in the same database) that runs the billing lifecycle: in the API process (unless
// RUN_JOBS=false) and in `npm run worker`. pg-boss gives each job to one worker and retries a job whose worker died;
// the passes themselves are safe to run concurrently and twice (modules/lifecycle/lifecycle.service.ts).
import type pg from 'pg'
import type { Db as BossDb, PgBoss } from 'pg-boss'
import { deliveryPasses, detectionPasses, dailyPasses, runPasses } from './modules/lifecycle/lifecycle.service'
import type { LifecycleDeps } from './modules/lifecycle/pass-runner'

export const queues = {
  tick: 'billing-tick',
  notifications: 'deliver-notifications',
  platformEvents: 'deliver-platform-events',
  reconcile: 'card-reconcile',
} as const

export type Jobs = { stop(): Promise<void> }

const every = { minute: '* * * * *', hour: '0 * * * *' }

function pass(name: string) {
  const found = [...detectionPasses, ...deliveryPasses, ...dailyPasses].filter(([n]) => n === name)
  if (found.length !== 1) throw new Error(`unknown lifecycle pass ${name}`)
  return found
}

/**
 * pg-boss on the application's own pool (the same database as ctx.db, one pool per process). Multi-statement
 * texts (pg-boss's DDL) come back from node-postgres as one result per statement: their rows are joined, as
 * pg-boss's own driver does.
 */
function fromPool(pool: pg.Pool): BossDb {
  return {
    executeSql: async (text, values) => {
      const result: pg.QueryResult | pg.QueryResult[] = await pool.query(text, values)
      return Array.isArray(result) ? { rows: result.flatMap((r) => r.rows ?? []) } : result
    },
  }
}

/**
 * Two instances starting on a fresh database would both create pg-boss's schema, and one fails on the catalog's
 * unique index: starts are serialised by a session advisory lock held on a connection of its own.
 */
async function withStartLock(pool: pg.Pool, start: () => Promise<unknown>): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query("select pg_advisory_lock(hashtext('billing-jobs-start'))")
    try {
      await start()
    } finally {
      await client.query("select pg_advisory_unlock(hashtext('billing-jobs-start'))")
    }
  } finally {
    client.release()
  }
}

/**
 * Starts pg-boss, declares the queues and their schedules (idempotent: every instance does it at start), and
 * works them. A first tick is queued at once, so a fresh start does not wait for the next minute.
 */
export async function startJobs(deps: LifecycleDeps): Promise<Jobs> {
  const { database, log } = deps
  // Loaded here, not with the server: `npm start` answers its health check before the queue's code is even read.
  const { fromPglite, PgBoss } = await import('pg-boss')
  let boss: PgBoss
  if (database.pglite) boss = new PgBoss({ db: fromPglite(database.pglite), backend: 'pglite' })
  else if (database.pool) boss = new PgBoss({ db: fromPool(database.pool) })
  else throw new Error('no database connection for the job queue')
  boss.on('error', (error) => log.error({ err: error }, 'job queue error'))
  if (database.pool) await withStartLock(database.pool, () => boss.start())
  else await boss.start()

  // 'short': at most one job waiting per queue, so a slow tick never piles up more ticks; running jobs are not
  // limited, so the job of a worker that died (still 'active' until it expires) does not hold the queue back.
  const queueOptions = { policy: 'short', retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: 900 }
  for (const name of Object.values(queues)) await boss.createQueue(name, queueOptions)
  await boss.schedule(queues.tick, every.minute)
  await boss.schedule(queues.notifications, every.minute)
  await boss.schedule(queues.platformEvents, every.minute)
  await boss.schedule(queues.reconcile, every.hour)

  const report = (what: string, result: Record<string, number>) => {
    if (Object.values(result).some((n) => n > 0)) log.info({ job: what, processed: result }, 'billing lifecycle')
  }
  const work = { pollingIntervalSeconds: 2 }
  await boss.work(queues.tick, work, async () => {
    report(queues.tick, await runPasses(deps, detectionPasses))
    // Whatever the tick enqueued goes out now rather than at the next minute.
    await boss.send(queues.notifications)
    await boss.send(queues.platformEvents)
  })
  await boss.work(queues.notifications, work, async () => {
    report(queues.notifications, await runPasses(deps, pass('deliver_notifications')))
  })
  await boss.work(queues.platformEvents, work, async () => {
    report(queues.platformEvents, await runPasses(deps, pass('deliver_platform_events')))
  })
  await boss.work(queues.reconcile, work, async () => {
    report(queues.reconcile, await runPasses(deps, dailyPasses))
  })
  await boss.send(queues.tick)
  log.info({ queues: Object.values(queues) }, 'billing jobs started')

  return {
    stop: async () => {
      // Waits for running jobs (up to the timeout); pg-boss closes only the pool it opened itself.
      await boss.stop({ graceful: true, timeout: 20_000 })
    },
  }
}
