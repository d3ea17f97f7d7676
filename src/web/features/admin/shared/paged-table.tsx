import type { UseQueryResult } from '@tanstack/react-query'
import { type Column, DataTable } from './data-table'
import { hasActiveFilters, ListView } from './list-view'
import { Pagination } from '@/web/components/ui/pagination'
import type { ListControls } from './use-list-params'

type Page<R> = { items: R[]; total: number; totalExact?: boolean | undefined }

/** An admin list's body: loading/empty/error states, the sortable table and the pager, all driven by the URL state. */
export function PagedTable<R, F extends string>({
  list,
  query,
  label,
  columns,
  rowKey,
  minWidth,
}: {
  list: ListControls<F>
  query: UseQueryResult<Page<R>>
  label: string
  columns: Column<R>[]
  rowKey: (row: R) => string
  minWidth?: string
}) {
  const { params } = list
  return (
    <ListView
      query={query}
      isEmpty={(page) => page.items.length === 0}
      onClear={hasActiveFilters(params) || params.page > 1 ? list.clear : undefined}
    >
      {(page) => (
        <div className="flex flex-col gap-4">
          <DataTable
            label={label}
            columns={columns}
            rows={page.items}
            rowKey={rowKey}
            sort={{ sort: params.sort, dir: params.dir, onSort: list.toggleSort }}
            busy={query.isPlaceholderData}
            {...(minWidth ? { minWidth } : {})}
          />
          <Pagination
            page={params.page}
            pageSize={params.pageSize}
            total={page.total}
            totalExact={page.totalExact}
            onPage={list.setPage}
          />
        </div>
      )}
    </ListView>
  )
}
