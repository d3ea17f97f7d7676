import { useCallback, useMemo } from 'react'
import { useSearchParams } from 'react-router'
import {
  type ListDefaults,
  type ListParams,
  listParamsToApiQuery,
  listParamsToSearch,
  nextSort,
  parseListParams,
  type SortDir,
} from './list-params'

export type ListControls<F extends string> = {
  params: ListParams<F>
  /** The query string for the API call (also the query key). */
  apiQuery: string
  setPage: (page: number) => void
  setSearch: (q: string) => void
  setFilter: (key: F, value: string) => void
  toggleSort: (column: string, firstDir?: SortDir) => void
  clear: () => void
}

/** An admin list's page, search, filters and sort, kept in the URL (useSearchParams). */
export function useListParams<F extends string>(filterKeys: readonly F[], defaults: ListDefaults): ListControls<F> {
  const [searchParams, setSearchParams] = useSearchParams()
  // The callers pass literals; their content, not their identity, decides when the state changes.
  const keysId = filterKeys.join(',')
  const defaultsId = `${defaults.sort}:${defaults.dir}:${defaults.pageSize ?? ''}`
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed by content (keysId, defaultsId)
  const params = useMemo(() => parseListParams(searchParams, filterKeys, defaults), [searchParams, keysId, defaultsId])

  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed by content (keysId, defaultsId)
  const update = useCallback(
    (change: (p: ListParams<F>) => ListParams<F>, replace = false) => {
      setSearchParams(
        (current) => listParamsToSearch(change(parseListParams(current, filterKeys, defaults)), defaults),
        { replace },
      )
    },
    [setSearchParams, keysId, defaultsId],
  )

  return {
    params,
    apiQuery: listParamsToApiQuery(params),
    setPage: (page) => update((p) => ({ ...p, page })),
    // Typing replaces the history entry: Back should not replay every keystroke.
    setSearch: (q) => update((p) => ({ ...p, q: q.trim(), page: 1 }), true),
    setFilter: (key, value) => update((p) => ({ ...p, filters: { ...p.filters, [key]: value }, page: 1 })),
    toggleSort: (column, firstDir) => update((p) => ({ ...p, ...nextSort(p, column, firstDir), page: 1 })),
    clear: () => update((p) => ({ ...p, q: '', filters: emptyFilters(filterKeys), page: 1 })),
  }
}

function emptyFilters<F extends string>(keys: readonly F[]): Record<F, string> {
  const filters = {} as Record<F, string>
  for (const key of keys) filters[key] = ''
  return filters
}
