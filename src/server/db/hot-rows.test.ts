import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testDatabaseUrl } from '../test/database-url'
import { createTestApp, type TestApp } from '../test/test-app'
import { hotRows, isoOf, isoOrNull, timestampOf, timestampOrNull } from './hot-rows'

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
    expect(timestampOrNull(null)).toBeNull()
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
    expect(timestampOrNull(none)).toBeNull()
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
    // The slow run was sent with the kept parsers; the failing one makes the pool forget them before it ends.
    const [slow, failing] = await Promise.allSettled([
      hotRows(t.database, 'hot_rows_race', text, [0.3, 2]),
      hotRows(t.database, 'hot_rows_race', text, [0, 0]),
    ])
    expect(failing.status).toBe('rejected')
    expect(slow).toEqual({ status: 'fulfilled', value: [[5, true, '']] })
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
