// The statements that run on every request (the session lookup, the customer's two lists) are read through here:
// as arrays, on PostgreSQL as named statements (parsed and planned once per connection) run by `HotQuery` on one
// pipelined connection per pool (`HotLine`), with their timestamptz columns left as PostgreSQL's text and parsed only
// where they are read (`timestampOf`). node-postgres would parse every timestamp of every row with its regular
// expression, the session's three included, which repeat on each row of a list and are read from the first.
import pg from 'pg'
import { raiseTrimThresholdSql } from './backend-memory'
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

/** node-postgres's Query, as its constructor and the fields its client reads are (its typings declare `submit` a property). */
const QueryBase = pg.Query as unknown as new (text: string) => { name: string; text: string }

/**
 * One run of a named statement, handed to node-postgres as a query of its own (a subclass of its Query, whose methods
 * it overrides; the interface pg-cursor uses) instead of a query config. Its first run on a pool asks PostgreSQL to
 * describe the rows (Describe) and keeps their parsers (in its `Statement`, per pool); later runs skip the
 * description and parse each row with those. node-postgres's own path sets up every column again from the row
 * description on each run, and builds a row object for each row even in array mode. A failed run forgets the
 * parsers, so the next run describes the rows again.
 */
class HotQuery extends QueryBase {
  /** The rows read (not `rows`: node-postgres reads that as a row limit per Execute, refused in pipeline mode). */
  readonly found: unknown[][] = []
  /** This run's parsers: taken when it is sent (a failure of another run may forget the pool's meanwhile). */
  private rowParsers: Parser[] | undefined
  private failure: Error | null = null
  private finished = false
  constructor(
    name: string,
    private readonly statement: Statement,
    private readonly hotValues: Value[],
    private readonly line: HotLine,
    private readonly done: (error: Error | null, rows: unknown[][]) => void,
  ) {
    // Given the text alone (a config object would be copied), and named after.
    super(statement.text)
    this.name = name
  }

  submit(connection: Connection): null {
    // Written with the other runs of this turn of the event loop (HotLine.holdWrites).
    this.line.holdWrites(connection.stream)
    // A name has one text (runHot checks): prepared on this connection already, or sent to be.
    if ((connection.parsedStatements[this.name] ?? connection.submittedNamedStatements[this.name]) === undefined) {
      connection.parse({ text: this.text, name: this.name, types: [] })
      connection.submittedNamedStatements[this.name] = this.text
    }
    connection.bind({ portal: '', statement: this.name, values: this.hotValues, valueMapper: asText })
    this.rowParsers = this.statement.parsers
    if (!this.rowParsers) connection.describe({ type: 'P', name: '' })
    connection.execute({ portal: '', rows: 0 })
    connection.sync()
    return null
  }

  handleRowDescription(message: { fields: Field[] }): void {
    this.rowParsers = message.fields.map((field) => columnParser(field.dataTypeID))
    this.statement.parsers = this.rowParsers
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
      this.found.push(row)
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

  handleError(error: Error, connection: Connection): void {
    this.statement.parsers = undefined
    // The server ends the connection after a FATAL error (57P01 when the backend is terminated): no run may go on it
    // in the moment before its socket closes.
    const severity = (error as { severity?: unknown }).severity
    if (severity === 'FATAL' || severity === 'PANIC') this.line.abandon(connection)
    this.finish(error)
  }

  handleReadyForQuery(): void {
    if (this.failure) this.statement.parsers = undefined
    this.finish(this.failure)
  }

  private finish(error: Error | null): void {
    if (this.finished) return
    this.finished = true
    this.done(error, this.found)
  }
}

/** The line was ended with its database: its runs go to the pool, which answers as a closed pool does. */
class LineClosed extends Error {}

/**
 * A connection for the hot statements, in node-postgres's pipeline mode: each request's run is written at once, without
 * waiting for the answers of the runs before it, and ends with its own Sync (its own implicit transaction: a run that
 * fails fails alone). The runs written in one turn of the event loop leave in one write and PostgreSQL reads them in
 * one; its backend answers them one after the other without waiting for the app in between. Against a pool's
 * connection per run, that halved the CPU PostgreSQL and the app spend per request (bench/api.bench.ts).
 */
class HotLine {
  private client: pg.Client | null = null
  private connecting: Promise<pg.Client> | null = null
  private holding = false
  private closed = false
  constructor(private readonly config: pg.ClientConfig) {}

  send(query: HotQuery, fail: (error: unknown) => void): void {
    if (this.client) this.client.query(query as unknown as pg.Submittable)
    else this.open().then((client) => client.query(query as unknown as pg.Submittable), fail)
  }

  /** Stops sending on the line's connection, if `connection` is still it; the next run opens another. */
  abandon(connection: unknown): void {
    if (this.client && this.client.connection === connection) this.drop(this.client)
  }

  /** Ends `client`, and the line no longer sends on it if it was the line's. */
  private drop(client: pg.Client): void {
    if (this.client === client) this.client = null
    void client.end().catch(() => {})
  }

  /** Holds the connection's writes until the end of this turn of the event loop: one write for all its runs. */
  holdWrites(stream: { cork?: () => void; uncork?: () => void }): void {
    if (this.holding || !stream.cork || !stream.uncork) return
    this.holding = true
    stream.cork()
    process.nextTick(() => {
      this.holding = false
      stream.uncork?.()
    })
  }

  /** One connection at a time: the runs that come while it connects wait for the same one. */
  private open(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new LineClosed())
    if (this.connecting) return this.connecting
    const client = new pg.Client({ ...this.config, pipeline: true, lock_timeout: lineLockTimeoutMs })
    // A connection that fails (the server gone, a socket error) fails the runs written on it, as node-postgres does
    // for any query, and the next run opens another.
    const drop = () => this.drop(client)
    client.on('error', drop)
    client.on('end', drop)
    this.connecting = client
      .connect()
      .then(() => client.query(raiseTrimThresholdSql))
      .then(
        () => {
          this.connecting = null
          if (this.closed) {
            void client.end().catch(() => {})
            throw new LineClosed()
          }
          this.client = client
          return client
        },
        (error: unknown) => {
          this.connecting = null
          drop()
          throw error
        },
      )
    return this.connecting
  }

  async close(): Promise<void> {
    this.closed = true
    const client = this.client ?? (await this.connecting?.catch(() => null))
    this.client = null
    await client?.end().catch(() => {})
  }
}

/**
 * How long a run on the line may wait for a lock. The hot statements only read, and a read waits only for a table
 * locked whole (a migration's ALTER TABLE, a LOCK TABLE): every run behind it on the line would wait as long. So a
 * run gives up after this and is run again on one of the pool's connections, where it waits like any other statement
 * (up to the statement timeout) without holding up the line.
 */
const lineLockTimeoutMs = 100
const lockNotAvailable = '55P03'

/** A hot statement of a pool: its text and, once described, its rows' parsers. */
type Statement = { text: string; parsers: Parser[] | undefined }
/** A pool's hot statements (by name) and their line. */
type Hot = { line: HotLine; statements: Map<string, Statement> }
const hotByPool = new WeakMap<pg.Pool, Hot>()

function hotOf(pool: pg.Pool): Hot {
  let hot = hotByPool.get(pool)
  if (!hot) {
    const config = { ...(pool as unknown as { options: pg.ClientConfig }).options }
    hot = { line: new HotLine(config), statements: new Map() }
    hotByPool.set(pool, hot)
  }
  return hot
}

/** Ends the pool's line for the hot statements, if it has one (the database's close does). */
export async function closeHotLine(pool: pg.Pool): Promise<void> {
  await hotByPool.get(pool)?.line.close()
}

function runHot(pool: pg.Pool, name: string, text: string, values: Value[]): Promise<unknown[][]> {
  // Checked here, not while binding: a throw in the middle of the messages would leave the connection half-written.
  for (const value of values)
    if (!(value === null || typeof value === 'string' || typeof value === 'number'))
      return Promise.reject(new TypeError(`valor de ${name} não é texto nem número`))
  const hot = hotOf(pool)
  // A name is one statement on every line (the rows' parsers are kept by name).
  const known = hot.statements.get(name)
  if (known && known.text !== text)
    return Promise.reject(new Error(`a instrução ${name} já foi preparada com outro texto`))
  const statement = known ?? { text, parsers: undefined }
  if (!known) hot.statements.set(name, statement)
  return new Promise<unknown[][]>((resolve, reject) => {
    const query = new HotQuery(name, statement, values, hot.line, (error, rows) => {
      if (error) reject(error)
      else resolve(rows)
    })
    hot.line.send(query, reject)
  }).catch(async (error: unknown) => {
    if (!(error instanceof LineClosed) && (error as { code?: unknown }).code !== lockNotAvailable) throw error
    // Its timestamps come back as Dates there: timestampOf and isoOf take either.
    return (await pool.query<unknown[]>({ text, values, rowMode: 'array' })).rows
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
