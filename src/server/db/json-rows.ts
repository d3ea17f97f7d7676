// Many rows inserted with ONE parameter: the rows as a JSON array, read back by `json_populate_recordset` into the
// table's own row type. drizzle's `.values(rows)` builds a placeholder and a SQL chunk per field (16 000 for a billing
// pass's batch of notifications), and building that query cost the passes more time in JavaScript than PostgreSQL
// took to insert the rows. Same rows as `.values(rows)`: each value goes through its column's mapping (a Date as an
// ISO instant, a jsonb value as itself), a column's `$defaultFn` fills a missing value, and a column no row sets is
// left out, so the database's default applies.
import { getTableColumns, type SQL, sql } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'

type Column = ReturnType<typeof getTableColumns<PgTable>>[string]

function driverValue(column: Column, value: unknown): unknown {
  if (value === null || value === undefined) return null
  // json/jsonb stay structured: json_populate_recordset takes the nested JSON as the column's value.
  if (column.columnType === 'PgJsonb' || column.columnType === 'PgJson') return value
  const mapped = column.mapToDriverValue(value)
  return typeof mapped === 'bigint' ? mapped.toString() : mapped
}

/**
 * `insert into <table> (<columns>) select <columns> from json_populate_recordset(…)`, without ON CONFLICT or
 * RETURNING (the caller appends them). The rows keep their order (a serial id is given in that order).
 */
export function insertJsonRows<T extends PgTable>(table: T, rows: T['$inferInsert'][]): SQL {
  const columns = Object.entries(getTableColumns(table))
  const used = columns.filter(
    ([key, column]) =>
      column.defaultFn !== undefined ||
      (!column.default && column.onUpdateFn !== undefined) ||
      rows.some((row) => (row as Record<string, unknown>)[key] !== undefined),
  )
  const json = rows.map((row) => {
    const out: Record<string, unknown> = {}
    for (const [key, column] of used) {
      let value = (row as Record<string, unknown>)[key]
      if (value === undefined && column.defaultFn) value = column.defaultFn()
      else if (value === undefined && !column.default && column.onUpdateFn) value = column.onUpdateFn()
      else if (value === undefined && column.hasDefault) {
        // One row would get NULL where .values() gives the database's default: not silently different.
        throw new Error(`insertJsonRows: ${column.name} is set on some rows and not on others`)
      }
      out[column.name] = driverValue(column, value)
    }
    return out
  })
  const names = sql.join(
    used.map(([, column]) => sql.identifier(column.name)),
    sql`, `,
  )
  return sql`insert into ${table} (${names}) select ${names} from json_populate_recordset(null::${table}, ${JSON.stringify(json)}::json)`
}
