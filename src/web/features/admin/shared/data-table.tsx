import { ArrowDown, ArrowUp, ArrowUpDown } from 'lucide-react'
import type { ReactNode } from 'react'
import { cn } from '@/web/lib/cn'
import type { SortDir } from './list-params'

export type Column<T> = {
  id: string
  header: string
  cell: (row: T) => ReactNode
  /** The API's sort key; a column with one gets a sort button in its header. */
  sortKey?: string
  /** The direction of the first click (dates and amounts read best newest/largest first). */
  firstDir?: SortDir
  className?: string
  /** Stays in view at the right edge while the rest scrolls (the row's actions). */
  sticky?: boolean
}

// The left border shows where the rows slide under the pinned column.
const stickyCell = 'sticky right-0 shadow-[inset_1px_0_0_var(--color-border)]'

export type SortState = { sort: string; dir: SortDir; onSort: (column: string, firstDir?: SortDir) => void }

/**
 * A plain table inside a labelled, focusable region that scrolls sideways on narrow screens
 * (keyboard users scroll it with the arrow keys once it has focus).
 */
export function DataTable<T>({
  label,
  columns,
  rows,
  rowKey,
  sort,
  busy,
  minWidth = 'min-w-[760px]',
}: {
  label: string
  columns: Column<T>[]
  rows: T[]
  rowKey: (row: T) => string
  sort?: SortState
  busy?: boolean
  minWidth?: string
}) {
  return (
    <section
      aria-label={label}
      aria-busy={busy || undefined}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1)
      tabIndex={0}
      className={cn(
        'overflow-x-auto rounded-lg border border-border bg-card transition-opacity focus-visible:ring-2 focus-visible:ring-ring',
        busy && 'opacity-60',
      )}
    >
      <table className={cn('w-full caption-bottom text-sm', minWidth)}>
        <thead className="bg-muted">
          <tr>
            {columns.map((column) => (
              <HeaderCell key={column.id} column={column} sort={sort} />
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} className="border-t border-border align-top">
              {columns.map((column) => (
                <td
                  key={column.id}
                  className={cn('px-4 py-3', column.sticky && `${stickyCell} bg-card`, column.className)}
                >
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

function HeaderCell<T>({ column, sort }: { column: Column<T>; sort: SortState | undefined }) {
  const base = cn(
    'whitespace-nowrap px-4 py-3 text-left font-medium text-muted-foreground',
    column.sticky && `${stickyCell} bg-muted`,
  )
  if (!column.sortKey || !sort) {
    return (
      <th scope="col" className={cn(base, column.className)}>
        {column.header}
      </th>
    )
  }
  const active = sort.sort === column.sortKey
  const ariaSort = active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'
  const Icon = active ? (sort.dir === 'asc' ? ArrowUp : ArrowDown) : ArrowUpDown
  const sortKey = column.sortKey
  return (
    <th scope="col" aria-sort={ariaSort} className={cn(base, 'py-1.5', column.className)}>
      <button
        type="button"
        onClick={() => sort.onSort(sortKey, column.firstDir)}
        className={cn(
          '-mx-2 inline-flex items-center gap-1.5 rounded-md px-2 py-1.5 hover:bg-accent hover:text-accent-foreground focus-visible:ring-2 focus-visible:ring-ring',
          active && 'text-foreground',
        )}
      >
        {column.header}
        <Icon className="size-3.5" aria-hidden="true" />
      </button>
    </th>
  )
}
