// The statements that run on every request (the session lookup, the customer's two lists) are read through here:
// as arrays, on PostgreSQL as named statements (parsed and planned once per connection) run by `HotQuery`, with
// their timestamptz columns left as PostgreSQL's text and parsed only where they are read (`timestampOf`).
// node-postgres would parse every timestamp of every row with its regular expression, the session's three included,
// which repeat on each row of a list and are read from the first.
import pg from 'pg'
import type { Database } from './client'

const timestamptzOid = 1184
const parseTimestamptz = pg.types.getTypeParser(timestamptzOid, 'text') as (text: string) => Date
type Parser = (text: string) => unknown
const keepText = (text: string) => text
/** A column's parser: node-postgres's (ours for bigint included), but timestamptz stays text. */
const columnParser = (oid: number): Parser =>
  oid === timestamptzOid ? keepText : (pg.types.getTypeParser(oid, 'text') as Parser)

/** What node-postgres's connection offers a submittable query (the part used here). */
type Connection = {
  stream: { cork?: () => void; uncork?: () => void }
  parsedStatements: Record<string, string>
  submittedNamedStatements: Record<string, string>
  parse(message: { text: string; name: string; types: never[] }): void
  bind(message: { portal: string; statement: string; values: unknown[]; valueMapper: (v: unknown) => unknown }): void
  describe(message: { type: 'P'; name: string }): void
  execute(message: { portal: string; rows: number }): void
  sync(): void
  sendCopyFail(message: string): void
}
type Field = { dataTypeID: number }

/** The values of a hot statement are strings and numbers (a token, a page size, an offset), checked before sending. */
type Value = string | number | null
const asText = (value: unknown) => (value === null ? null : String(value))

/**
 * One run of a named statement, handed to node-postgres as a submittable query (the interface pg-cursor uses) instead
 * of a query config. Its first run on a pool asks PostgreSQL to describe the rows (Describe) and keeps their parsers
 * (`parsers`, per pool and statement); later runs skip the description and parse each row with those. node-postgres's
 * own path copies the config, builds a Query (an EventEmitter) and a Result, and sets up every column again from the
 * row description on each run: about a tenth of the session call's time. A failed run forgets the parsers, so the
 * next run describes the rows again.
 */
class HotQuery {
  readonly rows: unknown[][] = []
  /** This run's parsers: taken when it is sent (a failure of another run may forget the pool's meanwhile). */
  private rowParsers: Parser[] | undefined
  private failure: Error | null = null
  private finished = false
  constructor(
    readonly name: string,
    readonly text: string,
    private readonly values: Value[],
    private readonly parsers: Map<string, Parser[]>,
    private readonly done: (error: Error | null, rows: unknown[][]) => void,
  ) {}

  submit(connection: Connection): Error | null {
    const previous = connection.parsedStatements[this.name] ?? connection.submittedNamedStatements[this.name]
    if (previous !== undefined && previous !== this.text)
      return new Error(`a instrução ${this.name} já foi preparada com outro texto`)
    connection.stream.cork?.()
    try {
      if (previous === undefined) {
        connection.parse({ text: this.text, name: this.name, types: [] })
        connection.submittedNamedStatements[this.name] = this.text
      }
      connection.bind({ portal: '', statement: this.name, values: this.values, valueMapper: asText })
      this.rowParsers = this.parsers.get(this.name)
      if (!this.rowParsers) connection.describe({ type: 'P', name: '' })
      connection.execute({ portal: '', rows: 0 })
      connection.sync()
    } finally {
      connection.stream.uncork?.()
    }
    return null
  }

  handleRowDescription(message: { fields: Field[] }): void {
    this.rowParsers = message.fields.map((field) => columnParser(field.dataTypeID))
    this.parsers.set(this.name, this.rowParsers)
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    // A row that cannot be read fails the run when it ends (a throw here would escape node-postgres's socket handler).
    if (this.failure) return
    const parsers = this.rowParsers
    if (!parsers) {
      this.failure = new Error(`linhas de ${this.name} sem descrição`)
      return
    }
    try {
      const fields = message.fields
      const row = new Array<unknown>(fields.length)
      for (let i = 0; i < fields.length; i++) {
        const value = fields[i]
        row[i] = value === null || value === undefined ? null : (parsers[i] ?? keepText)(value)
      }
      this.rows.push(row)
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error))
    }
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail('sem dados para COPY')
  }

  handleError(error: Error): void {
    this.parsers.delete(this.name)
    this.finish(error)
  }

  handleReadyForQuery(): void {
    if (this.failure) this.parsers.delete(this.name)
    this.finish(this.failure)
  }

  private finish(error: Error | null): void {
    if (this.finished) return
    this.finished = true
    this.done(error, this.rows)
  }
}

/** Each pool's row parsers, by statement name (a pool is one database: its types' oids are its own). */
const parsersByPool = new WeakMap<pg.Pool, Map<string, Parser[]>>()

async function runHot(pool: pg.Pool, name: string, text: string, values: Value[]): Promise<unknown[][]> {
  // Checked here, not while binding: a throw in the middle of the messages would leave the connection half-written.
  for (const value of values)
    if (!(value === null || typeof value === 'string' || typeof value === 'number'))
      throw new TypeError(`valor de ${name} não é texto nem número`)
  let parsers = parsersByPool.get(pool)
  if (!parsers) {
    parsers = new Map()
    parsersByPool.set(pool, parsers)
  }
  const client = await pool.connect()
  return new Promise((resolve, reject) => {
    const query = new HotQuery(name, text, values, parsers, (error, rows) => {
      // As pool.query does: a client whose query failed is not reused.
      client.release(error ?? undefined)
      if (error) reject(error)
      else resolve(rows)
    })
    client.query(query as unknown as pg.Submittable)
  })
}

export async function hotRows(database: Database, name: string, text: string, values: Value[]): Promise<unknown[][]> {
  if (database.pool) return runHot(database.pool, name, text, values)
  if (!database.pglite) throw new Error('sem banco de dados')
  return (await database.pglite.query<unknown[]>(text, values, { rowMode: 'array' })).rows
}

/**
 * A timestamptz column of a hot row: PostgreSQL's text from node-postgres (ISO DateStyle: "2026-11-27
 * 14:22:33.123456+00", "…-03", "…+05:45"), a Date from PGlite. V8 reads the text as it is, in about a third of the time
 * of node-postgres's parser, for years 1000 to 9999 (it would take "0099" for 1999); anything else, or anything V8
 * cannot read (a BC year, a historical offset with seconds), goes to node-postgres's parser.
 */
export function timestampOf(value: unknown): Date {
  if (value instanceof Date) return value
  const text = String(value)
  const first = text.charCodeAt(0)
  if (first >= 49 && first <= 57) {
    const parsed = new Date(text)
    if (!Number.isNaN(parsed.getTime())) return parsed
  }
  return parseTimestamptz(text)
}

/** The same for a nullable column. */
export const timestampOrNull = (value: unknown): Date | null => (value === null ? null : timestampOf(value))

/**
 * A timestamptz column of a hot row as the API writes it (`toISOString()`). Text PostgreSQL wrote in UTC
 * ("2026-11-27 14:22:33.123456+00", years 1000-9999) is rearranged without a Date, the fraction cut to milliseconds as
 * a Date would; anything else goes through `timestampOf`.
 */
export function isoOf(value: unknown): string {
  if (typeof value === 'string' && value.endsWith('+00') && value[10] === ' ') {
    const first = value.charCodeAt(0)
    if (first >= 49 && first <= 57 && (value.length === 22 || value[19] === '.')) {
      const fraction = value.length === 22 ? '.000' : `${value.slice(19, -3)}000`.slice(0, 4)
      return `${value.slice(0, 10)}T${value.slice(11, 19)}${fraction}Z`
    }
  }
  return timestampOf(value).toISOString()
}

/** The same for a nullable column. */
export const isoOrNull = (value: unknown): string | null => (value === null ? null : isoOf(value))
