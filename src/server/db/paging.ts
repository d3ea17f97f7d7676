// Paged lists (the admin lists use it): paginated, sorted and searched in the database, fast at 100 000 customers, 200 000 subscriptions
// and 1 000 000 payments (bench/list-payments.bench.ts measures it). How:
//
// - Every sort is (key, id) in one direction, served by a btree index on (key, id) (or (filter, key, id)), so a
//   page is an index walk. The walk selects only ids (with the joins the search needs) and the page's 20 rows are
//   joined afterwards, in the same statement ("deferred join"), so a deep page skips index entries, not joined rows.
// - A search matches several things (customer name/e-mail/company/WhatsApp through a pg_trgm GIN index, ids,
//   references, plans). OR across tables would stop the planner from using any index, so each alternative is an
//   "arm" with its own ORDER BY … LIMIT, and the arms are merged with UNION: each arm walks its best index.
// - The total is exact up to `exactCountCap` rows (a count over at most cap + 1 index entries); above that it is
//   the planner's estimate of the same query (`totalExact: false`), because an exact count(*) over a million rows
//   costs more than the whole page budget. Pages past the estimate are simply empty. The page, the capped count and
//   the estimate are three statements sent in parallel.
//
// A list is a ListSpec: the id and sort expressions, one or more arms (FROM + WHERE), direction and page. runList
// answers the page's rows (loaded by the caller from the page's id subquery) with the total.
import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from './client'
import { profiles } from './schema/auth'

export type Page<T> = { items: T[]; total: number; page: number; pageSize: number; totalExact: boolean }

/** Totals are counted exactly up to this many rows; above it they are the planner's estimate. */
export const exactCountCap = 1000

export type ListOptions = { countCap?: number }

/** q as an ILIKE "contains" pattern: %, _ and \ typed by the admin are literal. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

export type Arm = { from: SQL; where: (SQL | undefined)[] }
export type ListSpec = {
  id: SQL
  /** Sort expressions before the id tie-breaker; all go in `dir`. */
  sortKeys: SQL[]
  /** Alternatives merged with UNION (one arm without a search). */
  arms: Arm[]
  dir: 'asc' | 'desc'
  page: number
  pageSize: number
}

async function rows<T>(db: Executor, query: SQL): Promise<T[]> {
  // node-postgres and PGlite both answer { rows }; the columns selected here are text and int only.
  const result = (await db.execute(query)) as unknown as { rows: T[] }
  return result.rows
}

function whereSql(conditions: (SQL | undefined)[]): SQL {
  const present = conditions.filter((c): c is SQL => c !== undefined)
  return present.length > 0 ? sql` where ${sql.join(present, sql` and `)}` : sql``
}

function orderSql(spec: ListSpec): SQL[] {
  const dir = sql.raw(spec.dir)
  return [...spec.sortKeys, spec.id].map((key) => sql`${key} ${dir}`)
}

function armSql(spec: ListSpec, arm: Arm, limit: number, offset = 0): SQL {
  const columns = [sql`${spec.id} as id`, ...spec.sortKeys.map((key, i) => sql`${key} as ${sql.identifier(`k${i}`)}`)]
  return sql`select ${sql.join(columns, sql`, `)} from ${arm.from}${whereSql(arm.where)} order by ${sql.join(orderSql(spec), sql`, `)} limit ${limit}${offset > 0 ? sql` offset ${offset}` : sql``}`
}

/** The ids of one page, in order: a subquery of the query that loads the page's rows (one round trip). */
function pageIdsSql(spec: ListSpec): SQL {
  const offset = (spec.page - 1) * spec.pageSize
  const [single] = spec.arms
  if (spec.arms.length === 1 && single) return sql`select id from (${armSql(spec, single, spec.pageSize, offset)}) page`
  const dir = sql.raw(spec.dir)
  const outerOrder = [...spec.sortKeys.map((_, i) => sql`${sql.identifier(`k${i}`)} ${dir}`), sql`id ${dir}`]
  const union = sql.join(
    spec.arms.map((arm) => sql`(${armSql(spec, arm, offset + spec.pageSize)})`),
    sql` union `,
  )
  return sql`select id from (${union}) page order by ${sql.join(outerOrder, sql`, `)} limit ${spec.pageSize} offset ${offset}`
}

/** The capped exact count and the planner's estimate, side by side (each its own round trip, in parallel). */
async function countTotal(db: Executor, spec: ListSpec, cap: number): Promise<{ total: number; exact: boolean }> {
  const capped = sql.join(
    spec.arms.map((arm) => sql`(select ${spec.id} as id from ${arm.from}${whereSql(arm.where)} limit ${cap + 1})`),
    sql` union `,
  )
  const full = sql.join(
    spec.arms.map((arm) => sql`select ${spec.id} as id from ${arm.from}${whereSql(arm.where)}`),
    sql` union `,
  )
  const [[counted], [plan]] = await Promise.all([
    rows<{ n: number }>(db, sql`select count(*)::int as n from (${capped}) c`),
    rows<{ 'QUERY PLAN': unknown }>(db, sql`explain (format json) ${full}`),
  ])
  const n = Number(counted?.n ?? 0)
  if (n <= cap) return { total: n, exact: true }
  const raw = plan?.['QUERY PLAN']
  const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan?: { 'Plan Rows'?: number } }] | undefined
  const estimate = Math.round(Number(parsed?.[0]?.Plan?.['Plan Rows'] ?? 0))
  return { total: Math.max(n, estimate), exact: false }
}

/** `load` gets the page's id subquery and the sort, and answers the page's rows in that order. */
export async function runList<T>(
  db: Executor,
  spec: ListSpec,
  options: ListOptions,
  load: (pageIds: SQL, order: SQL[]) => Promise<T[]>,
): Promise<Page<T>> {
  const [items, count] = await Promise.all([
    load(pageIdsSql(spec), orderSql(spec)),
    countTotal(db, spec, options.countCap ?? exactCountCap),
  ])
  return { items, total: count.total, page: spec.page, pageSize: spec.pageSize, totalExact: count.exact }
}

/** The sort's keys, or created_at's: own keys only, so `sort=constructor` or `__proto__` is just unknown. */
export function sortKeysOf(sorts: Record<string, SQL[]>, sort: string | undefined): SQL[] {
  const keys = sort && Object.hasOwn(sorts, sort) ? sorts[sort] : sorts.created_at
  if (!keys) throw new Error('a sort table without created_at')
  return keys
}

/**
 * The text the admin search looks in: the exact expression of the index profiles_search_trgm_idx (schema/auth.ts).
 * Change both together, or the planner stops using the index.
 */
export function profileSearchText(): SQL {
  return sql`(${profiles.name} || ' ' || ${profiles.email} || ' ' || ${profiles.companyName} || ' ' || ${profiles.whatsappNumber})`
}
