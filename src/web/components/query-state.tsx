import type { ReactNode } from 'react'
import { QueryError, Spinner } from './ui/states'

/** The part of a query result QueryState reads (a TanStack UseQueryResult fits). */
export type QueryLike<T> = {
  isPending: boolean
  isError: boolean
  error: unknown
  data: T | undefined
  refetch: () => unknown
}

/**
 * A query's three states before its data: loading (a spinner with `loadingLabel`), failed (the server's message and
 * 'Tentar novamente') and, when `isEmpty` says so, `empty`. `children` renders the data otherwise.
 */
export function QueryState<T>({
  query,
  loadingLabel,
  isEmpty,
  empty = null,
  children,
}: {
  query: QueryLike<T>
  loadingLabel?: string | undefined
  isEmpty?: ((data: T) => boolean) | undefined
  empty?: ReactNode
  children: (data: T) => ReactNode
}) {
  if (query.isPending) return <Spinner label={loadingLabel} />
  if (query.isError || query.data === undefined) {
    return <QueryError error={query.error} onRetry={() => void query.refetch()} />
  }
  if (isEmpty?.(query.data)) return empty
  return children(query.data)
}
