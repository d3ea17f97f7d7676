// How every lifecycle pass claims and handles rows (the rules are in lifecycle.service.ts).
import { asc, type SQL, sql } from 'drizzle-orm'
import { addDays } from '../../../domain/billing-period'
import type { AppContext } from '../../context'
import type { Executor, Tx } from '../../db/client'
import { type SubscriptionRow, subscriptions } from '../../db/schema/billing'
import { claimPassSlot, claimPixSubscriptions } from './lifecycle.repo'

export type LifecycleLog = {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

/** What the passes use from the app context (the worker and the tick script build the same one). */
export type LifecycleDeps = Pick<
  AppContext,
  'db' | 'database' | 'config' | 'mail' | 'whatsapp' | 'card' | 'now' | 'pix'
> & {
  log: LifecycleLog
}

export type PassResult = { processed: number }
export type Pass = (deps: LifecycleDeps, now: Date) => Promise<PassResult>

/** Rows one delivery sweep handles per run at most; the rest waits for the next tick (a minute later). */
export const maxRowsPerRun = 500

/**
 * Rows a detection pass claims (one query) and handles per transaction on PostgreSQL: a batch is handled with a few
 * set-based statements where the pass allows it (renewals, overdue, cancellations), so a batch costs a handful of
 * round trips and one commit. PGlite is one connection shared with the requests, so there a transaction stays one
 * row long and a request never waits behind a batch.
 */
export const claimBatchSize = { postgres: 500, pglite: 1 }

/** A detection pass stops after this long and leaves the rest to the next tick (one tick never piles onto the next). */
export const passBudgetMs = 45_000

/** Handles a batch of claimed (locked) rows; answers the ids it handled (the others had nothing left to do). */
export type BatchHandler<Row> = (tx: Tx, rows: Row[]) => Promise<string[]>

/**
 * Claims a batch of rows with one `claim` (a SELECT … FOR UPDATE SKIP LOCKED … LIMIT n inside the transaction),
 * hands the batch to `handle` in a savepoint, commits, and repeats until nothing is left (or passBudgetMs). A row
 * another worker holds is skipped, so two workers share the work and never handle the same row at once; `handle`
 * re-checks what it needs under the lock and leaves out of its answer a row with nothing left to do. When the batch
 * fails, it is rolled back to its savepoint and its rows are handled again one by one, each in its own savepoint:
 * a row that fails alone is rolled back (logged; the rest of the batch commits) and, like a skipped one, excluded
 * from the next claims of this run: it is retried on the next tick. A handled row no longer matches its claim; one
 * that does anyway is handled again, finds nothing to do and is excluded.
 * On PostgreSQL BILLING_PASS_CONCURRENCY transactions (default 2) run at once, each a worker of its own to the others
 * (SKIP LOCKED): while one batch's statements run in the database, another is rendered in JavaScript or runs in a
 * second backend. Their claims are taken one after the other, so a claim cursor (claimCursor) moves in claim order,
 * and a claim that finds fewer rows than asked for means that the rest is locked by the batches being handled: the
 * run stops there. PGlite is one connection: one transaction.
 */
export async function forEachClaimed<Row extends { id: string }>(
  deps: LifecycleDeps,
  pass: string,
  claim: (tx: Executor, seen: string[], limit: number) => Promise<Row[]>,
  handle: BatchHandler<Row>,
): Promise<number> {
  // Most ticks find nothing: one autocommit query says so, instead of a transaction per pass.
  if ((await claim(deps.db, [], 1)).length === 0) return 0
  const postgres = deps.database.kind === 'postgres'
  const batch = postgres ? claimBatchSize.postgres : claimBatchSize.pglite
  const started = performance.now()
  let processed = 0
  const excluded: string[] = [] // skipped or failed in this run
  const handled = new Set<string>()
  let more = true
  let claiming: Promise<unknown> = Promise.resolve()
  /** `claim`, after the claim before it has returned. */
  const claimInTurn = (tx: Tx): Promise<Row[]> => {
    const mine = claiming.then(() => claim(tx, excluded, batch))
    claiming = mine.catch(() => undefined)
    return mine
  }
  const loop = async () => {
    while (more && performance.now() - started < passBudgetMs) {
      const done = await deps.db.transaction(async (tx) => {
        // A batch claim's plan is costed over the whole walk (its LIMIT aside), enough to start JIT compilation, which
        // then takes longer than the query (0.8 s of 1 s for the renewal claim at 200 000 subscriptions).
        if (postgres) await tx.execute(sql`set local jit = off`)
        if (!more) return 0
        const rows = await claimInTurn(tx)
        if (rows.length < batch) more = false
        if (rows.length === 0) return 0
        const ok = await handleBatch(deps, pass, tx, rows, handle)
        const now = new Set(ok)
        let n = 0
        for (const row of rows) {
          if (now.has(row.id) && !handled.has(row.id)) {
            handled.add(row.id)
            n += 1
          } else excluded.push(row.id)
        }
        return n
      })
      processed += done // after the await: `processed += await …` would add to the value read before it
    }
  }
  await Promise.all(Array.from({ length: postgres ? deps.config.BILLING_PASS_CONCURRENCY : 1 }, loop))
  return processed
}

/** `handle` on the batch in a savepoint; when it fails, on each row in its own (see forEachClaimed). */
async function handleBatch<Row extends { id: string }>(
  deps: LifecycleDeps,
  pass: string,
  tx: Tx,
  rows: Row[],
  handle: BatchHandler<Row>,
): Promise<string[]> {
  try {
    return await tx.transaction((sp) => handle(sp, rows))
  } catch (error) {
    if (rows.length === 1) {
      deps.log.error({ err: error, pass, id: rows[0]?.id }, 'lifecycle: a row failed; it is retried on the next tick')
      return []
    }
    deps.log.warn({ err: error, pass, rows: rows.length }, 'lifecycle: a batch failed; its rows go one by one')
    const ok: string[] = []
    for (const row of rows) {
      try {
        ok.push(...(await tx.transaction((sp) => handle(sp, [row]))))
      } catch (rowError) {
        deps.log.error({ err: rowError, pass, id: row.id }, 'lifecycle: a row failed; it is retried on the next tick')
      }
    }
    return ok
  }
}

/** A pass without a set-based form: its rows handled one after the other (a failure sends the batch row by row). */
export function eachRow<Row extends { id: string }>(handle: (tx: Tx, row: Row) => Promise<boolean>): BatchHandler<Row> {
  return async (tx, rows) => {
    const ok: string[] = []
    for (const row of rows) if (await handle(tx, row)) ok.push(row.id)
    return ok
  }
}

/**
 * The order of a pass's claims over subscriptions, and where they resume within one run.
 *
 * Order. A run's claims first walk (current_period_end, id): the longest due first, and a tick with a few rows due
 * reads only those. A claim that comes back full means a backlog (a catch-up after the jobs were down, a day on
 * which many periods end): from there the run walks its candidates in id order (the partial indexes on id of
 * migration 0028), from the first. In period-end order each row of a batch has a random id, so its entries in the
 * indexes that begin with the subscription (its payments, renewals and history) land on random pages, each written
 * whole into the WAL again after every checkpoint; in id order a batch fills neighbouring pages. Not from the start:
 * walking the id index for rows due, the planner cannot tell a tick with none due from a backlog and reads every
 * candidate (0.2 s a claim at 130 000 PIX subscriptions in force), where the period-end walk stops at the first
 * row not yet due. The probe for anything to do (limit 1) and PGlite's one-row batches never switch.
 *
 * Resuming. Each claim starts at the last row the previous one returned (inclusive: that row is looked at again, and
 * no longer matches once handled; a skipped or failed one is in `seen`). Without it every claim walked again over all
 * the rows handled before it in the run (still in the index range), which made a run quadratic in the rows due. A
 * row passed over because another worker held it is that worker's; if its handling fails there, the next tick (a new
 * cursor) sees it again.
 */
export function claimCursor() {
  let byId = false
  let last: { end: Date; id: string } | null = null
  return {
    /** The claim's ORDER BY. */
    order(): SQL[] {
      return byId ? [asc(subscriptions.id)] : [asc(subscriptions.currentPeriodEnd), asc(subscriptions.id)]
    },
    /** Where the claim resumes (undefined: from the first). */
    from(): SQL | undefined {
      if (!last) return undefined
      if (byId) return sql`${subscriptions.id} >= ${last.id}`
      return sql`(${subscriptions.currentPeriodEnd}, ${subscriptions.id}) >= (${last.end.toISOString()}::timestamptz, ${last.id})`
    },
    /** Records a claim's rows (asked for `limit`); answers them. */
    moved<Row extends { id: string; currentPeriodEnd: Date }>(rows: Row[], limit: number): Row[] {
      const row = rows.at(-1)
      if (!byId && limit > 1 && rows.length === limit) {
        byId = true
        last = null
      } else if (row) last = { end: row.currentPeriodEnd, id: row.id }
      return rows
    },
  }
}
export type ClaimCursor = ReturnType<typeof claimCursor>

/**
 * A run's claims of PIX subscriptions in the given statuses matching `where`, locked, through one cursor (claimCursor);
 * others' locked rows are skipped.
 */
export function claimPix(statuses: SubscriptionRow['status'][], where: SQL | undefined) {
  const cursor = claimCursor()
  return (tx: Executor, seen: string[], limit: number) =>
    claimPixSubscriptions(tx, statuses, where, cursor, seen, limit)
}

const running = new WeakMap<object, Map<string, Promise<unknown>>>()

/**
 * Runs `task` after any run of the same pass in this process has finished. Across processes the row locks do the
 * work; inside one process this keeps a delivery sweep single, which PGlite (where a claimed row is not held
 * locked during the network call) relies on.
 */
export async function exclusive<T>(owner: object, name: string, task: () => Promise<T>): Promise<T> {
  let byName = running.get(owner)
  if (!byName) {
    byName = new Map()
    running.set(owner, byName)
  }
  const previous = byName.get(name) ?? Promise.resolve()
  const current = previous.catch(() => undefined).then(task)
  byName.set(name, current)
  try {
    return await current
  } finally {
    if (byName.get(name) === current) byName.delete(name)
  }
}

export type Attempt = { ok: true } | { ok: false; error: string }

/**
 * One delivery: claim a row, call the provider, record the outcome. On PostgreSQL the row stays locked (FOR UPDATE)
 * in one transaction from the claim to the recorded outcome, so no other worker can send it meanwhile, and a worker
 * that dies mid-call releases the lock with its connection: the row is still pending and is sent again (at least
 * once). PGlite is one connection in one process: holding a transaction across a network call would stall every
 * request, and no other process can claim the row, so there the claim, the call and the outcome are separate steps
 * (the `exclusive` lock keeps the sweep single).
 */
export async function deliverOne<Row>(
  deps: LifecycleDeps,
  claim: (tx: Tx) => Promise<Row | undefined>,
  send: (row: Row) => Promise<void>,
  settle: (tx: Tx, row: Row, attempt: Attempt) => Promise<void>,
): Promise<Attempt | null> {
  const attempt = async (row: Row): Promise<Attempt> => {
    try {
      await send(row)
      return { ok: true }
    } catch (error) {
      return { ok: false, error: (error instanceof Error ? error.message : String(error)).slice(0, 500) }
    }
  }
  if (deps.database.kind === 'postgres') {
    return deps.db.transaction(async (tx) => {
      const row = await claim(tx)
      if (row === undefined) return null
      const result = await attempt(row)
      await settle(tx, row, result)
      return result
    })
  }
  const row = await deps.db.transaction((tx) => claim(tx))
  if (row === undefined) return null
  const result = await attempt(row)
  await deps.db.transaction((tx) => settle(tx, row, result))
  return result
}

/**
 * A delivery sweep: deliverOne until nothing due is left (each row at most once per sweep), single per process.
 * `claim` must select … FOR UPDATE SKIP LOCKED the oldest due row not in `seen`.
 */
export function sweep<Row extends { id: string }>(
  deps: LifecycleDeps,
  name: string,
  claim: (tx: Executor, seen: string[]) => Promise<Row | undefined>,
  send: (row: Row) => Promise<void>,
  settle: (tx: Tx, row: Row, attempt: Attempt) => Promise<void>,
): Promise<PassResult> {
  return exclusive(deps.db, name, async () => {
    if (!(await claim(deps.db, []))) return { processed: 0 }
    let processed = 0
    const seen: string[] = []
    while (seen.length < maxRowsPerRun) {
      const result = await deliverOne(
        deps,
        async (tx) => {
          const row = await claim(tx, seen)
          if (row) seen.push(row.id)
          return row
        },
        send,
        settle,
      )
      if (!result) break
      if (result.ok) processed += 1
    }
    return { processed }
  })
}

/** Exponential back-off: 1 min, 2, 4, 8 … capped at 1 hour. */
export function retryDelayMs(attempts: number): number {
  return Math.min(60_000 * 2 ** Math.max(0, attempts - 1), 3_600_000)
}

/**
 * Claims today's run of a once-a-day pass: the slot in lifecycle_pass_runs is taken atomically, so of several
 * instances exactly one gets true within 24 hours of the last run.
 */
export function claimDailySlot(db: Executor, name: string, now: Date): Promise<boolean> {
  return claimPassSlot(db, name, now, addDays(now, -1))
}

/** The same for a pass that runs at most once every `minutes` (the insights refresh): one instance gets true. */
export function claimSlotEvery(db: Executor, name: string, now: Date, minutes: number): Promise<boolean> {
  return claimPassSlot(db, name, now, new Date(now.getTime() - minutes * 60_000))
}
