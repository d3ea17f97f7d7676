// The state of an admin list lives in the URL query string, so a filtered, sorted page can be shared or reloaded.
import { listLimits } from '@/domain/contracts/paging'

export type SortDir = 'asc' | 'desc'

export type ListParams<F extends string> = {
  page: number
  pageSize: number
  q: string
  sort: string
  dir: SortDir
  filters: Record<F, string>
}

export type ListDefaults = { sort: string; dir: SortDir; pageSize?: number }

export const defaultPageSize = listLimits.defaultPageSize
const pageSizeMax = listLimits.maxPageSize

function positiveInt(value: string | null, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === null || !/^\d+$/.test(value)) return fallback
  const n = Number(value)
  return n >= 1 && n <= max ? n : fallback
}

/** Reads a list's state from the query string; anything missing or malformed falls back to the defaults. */
export function parseListParams<F extends string>(
  search: URLSearchParams,
  filterKeys: readonly F[],
  defaults: ListDefaults,
): ListParams<F> {
  const filters = {} as Record<F, string>
  for (const key of filterKeys) filters[key] = search.get(key)?.trim() ?? ''
  const dir = search.get('dir')
  return {
    page: positiveInt(search.get('page'), 1, listLimits.maxPage),
    pageSize: positiveInt(search.get('pageSize'), defaults.pageSize ?? defaultPageSize, pageSizeMax),
    q: search.get('q')?.trim() ?? '',
    sort: search.get('sort') || defaults.sort,
    dir: dir === 'asc' || dir === 'desc' ? dir : defaults.dir,
    filters,
  }
}

/** The query string the page URL shows: only what differs from the defaults, so links stay short. */
export function listParamsToSearch<F extends string>(params: ListParams<F>, defaults: ListDefaults): URLSearchParams {
  const search = new URLSearchParams()
  if (params.q) search.set('q', params.q)
  for (const [key, value] of Object.entries<string>(params.filters)) if (value) search.set(key, value)
  if (params.sort !== defaults.sort || params.dir !== defaults.dir) {
    search.set('sort', params.sort)
    search.set('dir', params.dir)
  }
  if (params.page > 1) search.set('page', String(params.page))
  if (params.pageSize !== (defaults.pageSize ?? defaultPageSize)) search.set('pageSize', String(params.pageSize))
  return search
}

/** The query string the API gets: everything explicit, empty filters left out. */
export function listParamsToApiQuery<F extends string>(params: ListParams<F>): string {
  const search = new URLSearchParams({
    page: String(params.page),
    pageSize: String(params.pageSize),
    sort: params.sort,
    dir: params.dir,
  })
  if (params.q) search.set('q', params.q)
  for (const [key, value] of Object.entries<string>(params.filters)) if (value) search.set(key, value)
  return search.toString()
}

/** Clicking a column: the same column flips its direction; another one starts with `firstDir`. */
export function nextSort(current: { sort: string; dir: SortDir }, column: string, firstDir: SortDir = 'asc') {
  if (current.sort === column) return { sort: column, dir: current.dir === 'asc' ? 'desc' : ('asc' as SortDir) }
  return { sort: column, dir: firstDir }
}

export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize))
}
