import type { UseQueryResult } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { Button } from '@/web/components/ui/button'
import { EmptyState, QueryError, Spinner } from '@/web/components/ui/states'

export const emptyText = 'Nenhum resultado encontrado.'

/** Loading, error-with-retry and empty states around a list; `children` renders the rows once there are some. */
export function ListView<T>({
  query,
  isEmpty,
  onClear,
  children,
}: {
  query: UseQueryResult<T>
  isEmpty: (data: T) => boolean
  /** Shown in the empty state when a search or filter is active. */
  onClear?: (() => void) | undefined
  children: (data: T) => ReactNode
}) {
  if (query.isPending) return <Spinner />
  if (query.isError && query.data === undefined) {
    return <QueryError error={query.error} onRetry={() => void query.refetch()} />
  }
  const data = query.data as T
  return (
    <>
      {query.isError ? <QueryError error={query.error} onRetry={() => void query.refetch()} /> : null}
      {isEmpty(data) ? (
        <EmptyState title={emptyText}>
          {onClear ? (
            <Button variant="outline" onClick={onClear}>
              Limpar filtros
            </Button>
          ) : null}
        </EmptyState>
      ) : (
        children(data)
      )}
    </>
  )
}

export function hasActiveFilters(params: { q: string; filters: Record<string, string> }): boolean {
  return params.q !== '' || Object.values(params.filters).some((v) => v !== '')
}
