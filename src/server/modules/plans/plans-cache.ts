// GET /api/plans from memory: the plans on sale, serialized once, with an ETag (a browser revalidating gets 304).
// Invalidation, so that a plan change is visible on the next request on every instance:
// - a statement trigger on `plans` (migration 0021) runs pg_notify('plans_changed') in the writing transaction, and
//   every process LISTENs on a dedicated connection (PGlite: in-process listen): the cache is dropped on commit;
// - the admin plan service also drops this process's cache right after its commit (plansChanged), so the admin who
//   saved reads the new list at once without waiting for the notification;
// - a listener that is not connected (starting, lost connection, reconnecting) means no cache: every request reads
//   the table, so a missed notification can never serve a stale list; a load that raced with a change is not kept.
import { createHash } from 'node:crypto'
import pg from 'pg'
import type { Plan } from '../../../domain/contracts/plans'
import type { Database, Db } from '../../db/client'
import { listPlans } from './plans.service'

export const plansChannel = 'plans_changed'

type Entry = { body: string; etag: string }

export type PlansCache = {
  /** The serialized list and its ETag. */
  get(): Promise<Entry>
  invalidate(): void
  close(): Promise<void>
}

const byDb = new WeakMap<object, PlansCache>()

/** The admin plan service calls this after its transaction commits (the trigger tells the other processes). */
export function plansChanged(db: Db): void {
  byDb.get(db)?.invalidate()
}

export function serializePlans(list: Plan[]): Entry {
  const body = JSON.stringify(list)
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` }
}

export function createPlansCache(database: Database, log: { warn(obj: object, msg: string): void }): PlansCache {
  let entry: Entry | null = null
  let generation = 0
  let listening = false
  let closed = false
  let client: pg.Client | null = null
  let unlisten: (() => Promise<void>) | null = null
  let retry: NodeJS.Timeout | undefined

  const invalidate = () => {
    generation += 1
    entry = null
  }

  async function listen(): Promise<void> {
    if (closed) return
    try {
      if (database.pglite) {
        unlisten = await database.pglite.listen(plansChannel, invalidate)
      } else if (database.pool) {
        const c = new pg.Client(database.pool.options)
        client = c
        const lost = () => {
          if (client !== c) return
          listening = false
          invalidate()
          client = null
          void c.end().catch(() => {})
          if (!closed) retry = setTimeout(() => void listen(), 5000)
        }
        c.on('error', lost)
        c.on('end', lost)
        c.on('notification', invalidate)
        await c.connect()
        await c.query(`listen ${plansChannel}`)
      } else return
      invalidate() // whatever was loaded before listening may have missed a change
      listening = true
    } catch (error) {
      log.warn({ err: error }, 'plans cache: LISTEN failed; plans are read from the database until it works')
      listening = false
      const c = client
      client = null
      await c?.end().catch(() => {})
      if (!closed) retry = setTimeout(() => void listen(), 5000)
    }
  }
  void listen()

  const cache: PlansCache = {
    async get() {
      if (database.pglite?.closed) listening = false // its in-process LISTEN ended with it
      if (entry && listening) return entry
      const started = generation
      const fresh = serializePlans(await listPlans(database.db))
      if (listening && generation === started) entry = fresh
      return fresh
    },
    invalidate,
    async close() {
      closed = true
      clearTimeout(retry)
      listening = false
      const c = client
      client = null
      await c?.end().catch(() => {})
      await unlisten?.().catch(() => {})
    },
  }
  byDb.set(database.db, cache)
  return cache
}
