// The statements that run on every request (the session lookup, the customer's two lists) are read through here:
// as arrays, on PostgreSQL as named statements (parsed and planned once per connection), with their timestamptz
// columns left as PostgreSQL's text and parsed only where they are read (`timestampOf`). node-postgres would parse
// every timestamp of every row with its regular expression, the session's three included, which repeat on each row
// of a list and are read from the first.
import pg from 'pg'
import type { Database } from './client'

const timestamptzOid = 1184
const parseTimestamptz = pg.types.getTypeParser(timestamptzOid, 'text') as (text: string) => Date
const keepText = (text: string) => text
/** node-postgres's parsers (ours for bigint included), but timestamptz stays text. */
const timestampsAsText = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === timestamptzOid ? keepText : pg.types.getTypeParser(oid, format),
}

type Statement = { name: string; text: string; rowMode: 'array'; types: typeof timestampsAsText }
const statements = new Map<string, Statement>()

/**
 * A request's query config: it inherits its statement's constant part and owns only its values. node-postgres copies
 * a config's own properties on every call (`utils.cloneQueryConfig`, property descriptors and all): four of the five
 * were the same on every request.
 */
function queryConfig(name: string, text: string, values: unknown[]): Statement & { values: unknown[] } {
  let statement = statements.get(name)
  if (!statement) {
    statement = { name, text, rowMode: 'array', types: timestampsAsText }
    statements.set(name, statement)
  }
  if (statement.text !== text) throw new Error(`a instrução ${name} já foi preparada com outro texto`)
  const config = Object.create(statement) as Statement & { values: unknown[] }
  config.values = values
  return config
}

export async function hotRows(database: Database, name: string, text: string, values: unknown[]): Promise<unknown[][]> {
  if (database.pool) return (await database.pool.query<unknown[]>(queryConfig(name, text, values))).rows
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
