import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isDatabaseUnavailable } from '../http/problem'
import { currentDatabaseName, testDatabaseUrl } from '../test/database-url'
import { createTestApp, type TestApp } from '../test/test-app'
import { connectPostgres } from './client'
import { hotRows, isoOf, isoOrNull, timestampOf } from './hot-rows'

const pgParse = pg.types.getTypeParser(1184, 'text') as (text: string) => Date

describe('timestampOf', () => {
  it("reads PostgreSQL's ISO output as node-postgres's own parser does", () => {
    const texts = [
      '2026-11-27 14:22:33.123456+00',
      '2026-11-27 14:22:33+00',
      '2026-11-27 14:22:33.1-03',
      '2026-11-27 14:22:33.1234+05:45',
      '2026-11-27 14:22:33.99999+14',
      '2026-11-27 14:22:33.9995-09:30',
      '2024-02-29 23:59:59.5+00',
      '1000-01-01 00:00:00+00',
      '9999-12-31 23:59:59.999999+00',
      // V8 cannot read these, or would misread the first (as 1999): node-postgres's parser takes them.
      '0099-01-01 00:00:00+00',
      '1890-01-01 00:00:00-03:06:28',
      '2026-01-01 00:00:00+00 BC',
    ]
    for (const text of texts) expect(timestampOf(text).getTime(), text).toBe(pgParse(text).getTime())
    const date = new Date('2026-11-27T14:22:33.123Z')
    expect(timestampOf(date)).toBe(date)
  })
})

describe('isoOf', () => {
  it('writes what toISOString writes, with or without a Date', () => {
    const texts = [
      '2026-11-27 14:22:33.123456+00',
      '2026-11-27 14:22:33+00',
      '2026-11-27 14:22:33.1+00',
      '2026-11-27 14:22:33.12+00',
      '2026-11-27 14:22:33.9999+00',
      '2026-11-27 14:22:33.12-03',
      '2026-11-27 14:22:33.1234+05:45',
      '0099-01-01 00:00:00+00',
      '2026-01-01 00:00:00+00 BC',
    ]
    // And a spread of instants as PostgreSQL writes them in UTC, with 0 to 6 fraction digits.
    for (let i = 0; i < 500; i++) {
      const iso = new Date(Date.UTC(1990, 0, 1) + Math.floor(Math.random() * 2e12)).toISOString()
      const micros = String(Math.floor(Math.random() * 1e6))
        .padStart(6, '0')
        .slice(0, i % 7)
      texts.push(`${iso.slice(0, 10)} ${iso.slice(11, 19)}${micros ? `.${micros}` : ''}+00`)
    }
    for (const text of texts) expect(isoOf(text), text).toBe(pgParse(text).toISOString())
    expect(isoOf(new Date('2026-11-27T14:22:33.123Z'))).toBe('2026-11-27T14:22:33.123Z')
    expect(isoOrNull(null)).toBeNull()
  })
})

describe('hotRows', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('reads a row as an array, its timestamps to the same instant on either database, bigint as a number', async () => {
    const rows = await hotRows(
      t.database,
      'hot_rows_test',
      `select $1::timestamptz, null::timestamptz, 12345678901::bigint, 'x'::text`,
      ['2026-11-27T14:22:33.123456Z'],
    )
    expect(rows).toHaveLength(1)
    const [at, none, big, text] = rows[0] ?? []
    expect(timestampOf(at).toISOString()).toBe('2026-11-27T14:22:33.123Z')
    expect(none).toBeNull()
    expect(big).toBe(12345678901)
    expect(text).toBe('x')
    // On PostgreSQL the column stays text until read; PGlite hands over its Date.
    expect(typeof at).toBe(t.database.kind === 'postgres' ? 'string' : 'object')

    // The same named statement again, with other values: its own answer.
    const again = await hotRows(
      t.database,
      'hot_rows_test',
      `select $1::timestamptz, null::timestamptz, 12345678901::bigint, 'x'::text`,
      ['2020-01-02T03:04:05Z'],
    )
    expect(timestampOf(again[0]?.[0]).toISOString()).toBe('2020-01-02T03:04:05.000Z')
  })

  it('rejects a statement that fails, and runs it again afterwards (the rows described anew)', async () => {
    const text = 'select 10 / $1::int, $2::text'
    expect(await hotRows(t.database, 'hot_rows_divide', text, [2, 'a'])).toEqual([[5, 'a']])
    await expect(hotRows(t.database, 'hot_rows_divide', text, [0, 'b'])).rejects.toThrow(/division by zero/)
    expect(await hotRows(t.database, 'hot_rows_divide', text, [5, null])).toEqual([[2, null]])
    // Many rows, on as many connections as the pool has, all at once.
    const many = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        hotRows(t.database, 'hot_rows_series', 'select g from generate_series(1, $1::int) g', [i + 1]),
      ),
    )
    expect(many.map((rows) => rows.length)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
    expect(many[29]?.at(-1)).toEqual([30])
  })

  it('reads a run in flight with its own parsers while another run of the statement fails', async () => {
    const text = 'select 10 / $2::int, true, pg_sleep($1::float8)::text'
    expect(await hotRows(t.database, 'hot_rows_race', text, [0, 1])).toEqual([[10, true, '']])
    // The runs after a failing one were sent with the kept parsers; its failure makes the pool forget them before
    // their rows come (on PostgreSQL they follow it on the line; the slow one only matters on a pool).
    const [failing, next, slow, last] = await Promise.allSettled([
      hotRows(t.database, 'hot_rows_race', text, [0, 0]),
      hotRows(t.database, 'hot_rows_race', text, [0, 5]),
      hotRows(t.database, 'hot_rows_race', text, [0.3, 2]),
      hotRows(t.database, 'hot_rows_race', text, [0, 0]),
    ])
    expect(failing.status).toBe('rejected')
    expect(next).toEqual({ status: 'fulfilled', value: [[2, true, '']] })
    expect(slow).toEqual({ status: 'fulfilled', value: [[5, true, '']] })
    expect(last.status).toBe('rejected')
  })

  // PGlite runs no named statements.
  it.skipIf(!testDatabaseUrl())(
    'refuses a value that is neither text nor a number before sending anything',
    async () => {
      const date = new Date() as unknown as string
      await expect(hotRows(t.database, 'hot_rows_value', 'select $1::timestamptz', [date])).rejects.toThrow(
        /nem número/,
      )
      expect(await hotRows(t.database, 'hot_rows_value', 'select $1::int', [7])).toEqual([[7]])
    },
  )

  it.skipIf(!testDatabaseUrl())('refuses a statement name already prepared with another text', async () => {
    await hotRows(t.database, 'hot_rows_named', 'select 1::int', [])
    await expect(hotRows(t.database, 'hot_rows_named', 'select 2::int', [])).rejects.toThrow(/outro texto/)
  })
})

// The line: on PostgreSQL the hot statements share one pipelined connection per pool.
describe.skipIf(!testDatabaseUrl())('hotRows on PostgreSQL: the line', () => {
  let t: TestApp
  let url: string
  beforeAll(async () => {
    t = await createTestApp({ env: { DATABASE_STATEMENT_TIMEOUT_MS: '3000' } })
    const address = new URL(testDatabaseUrl() as string)
    address.pathname = `/${await currentDatabaseName(t.database.db)}`
    url = address.toString()
  })
  afterAll(async () => {
    await t?.close()
  })

  async function other<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return await run(client)
    } finally {
      await client.end()
    }
  }

  const echo = 'select $1::int, repeat($2::text, $1::int), pg_backend_pid()'
  const divide = 'select 100 / $1::int, pg_backend_pid()'
  const backendOf = async () => (await hotRows(t.database, 'line_pid', 'select pg_backend_pid()', []))[0]?.[0]

  it('answers 300 runs written at once each with its own rows, on one backend; a failing run fails alone', async () => {
    const runs = await Promise.allSettled(
      Array.from({ length: 300 }, (_, i) =>
        i % 3 === 0
          ? hotRows(t.database, 'line_divide', divide, [i % 4])
          : hotRows(t.database, 'line_echo', echo, [i % 50, 'ab']),
      ),
    )
    const backends = new Set<unknown>()
    runs.forEach((run, i) => {
      if (i % 3 === 0 && i % 4 === 0) {
        expect(run.status, String(i)).toBe('rejected')
        return
      }
      if (run.status !== 'fulfilled') throw new Error(`run ${i}: ${String(run.reason)}`)
      const [row] = run.value
      if (i % 3 === 0) expect(row?.[0]).toBe(Math.trunc(100 / (i % 4)))
      else expect(row?.slice(0, 2)).toEqual([i % 50, 'ab'.repeat(i % 50)])
      backends.add(row?.at(-1))
    })
    expect(backends.size).toBe(1)
    // The failures left the line as it was.
    expect(await backendOf()).toBe([...backends][0])
  })

  it('a run that waits for a lock leaves the line for the pool; the runs behind it do not wait', async () => {
    const holder = new pg.Client({ connectionString: url })
    await holder.connect()
    try {
      await holder.query('begin')
      await holder.query('lock table plans in access exclusive mode')
      const order: string[] = []
      const locked = hotRows(t.database, 'line_plans', 'select count(*)::int from plans', []).then((rows) => {
        order.push('locked')
        return rows
      })
      await new Promise((resolve) => setTimeout(resolve, 20))
      const started = performance.now()
      expect(await hotRows(t.database, 'line_echo', echo, [2, 'x'])).toEqual([[2, 'xx', expect.any(Number)]])
      order.push('behind')
      // It waited for the locked run's 100 ms lock timeout at most, not for the lock.
      expect(performance.now() - started).toBeLessThan(1_000)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(order).toEqual(['behind'])
      await holder.query('rollback')
      const count = Number((await holder.query('select count(*) from plans')).rows[0]?.count)
      expect(await locked).toEqual([[count]])
      expect(order).toEqual(['behind', 'locked'])
    } finally {
      await holder.end()
    }
  })

  it('a line whose backend is ended fails the runs on it as "database unavailable", and the next run opens another', async () => {
    const backend = await backendOf()
    const sleeping = hotRows(t.database, 'line_sleep', 'select pg_sleep($1::float8)::text', [2]).then(
      () => null,
      (error: unknown) => error,
    )
    await new Promise((resolve) => setTimeout(resolve, 100))
    await other((client) => client.query('select pg_terminate_backend($1)', [backend]))
    const error = await sleeping
    expect(error).toBeInstanceOf(Error)
    expect(isDatabaseUnavailable(error)).toBe(true)
    const next = await backendOf()
    expect(typeof next).toBe('number')
    expect(next).not.toBe(backend)
  })

  it("closing the database ends the line's connection; a run after that is refused", async () => {
    const database = connectPostgres(url)
    const backend = (await hotRows(database, 'line_pid', 'select pg_backend_pid()', []))[0]?.[0]
    const alive = () =>
      other(async (client) => (await client.query('select 1 from pg_stat_activity where pid = $1', [backend])).rowCount)
    expect(await alive()).toBe(1)
    await database.close()
    for (let i = 0; i < 50 && (await alive()) !== 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await alive()).toBe(0)
    // As the pool answers once ended (the app answers 503 for that).
    await expect(hotRows(database, 'line_pid', 'select pg_backend_pid()', [])).rejects.toThrow(/after calling end/)
  })
})
