import type { ReactNode } from 'react'
import type { ListControls } from './use-list-params'
import { type FilterOption, FilterSelect, ListToolbar, SearchBox } from './list-toolbar'

export type ListFilter<F extends string> = { key: F; label: string; options: FilterOption[] }

/**
 * The toolbar of an admin list: 'Buscar' (kept in the URL with the page and sort) and one select per filter, each
 * writing its key of `list.params.filters`, then any other control given as children.
 */
export function ListFilters<F extends string>({
  list,
  searchPlaceholder,
  filters,
  children,
}: {
  list: ListControls<F>
  searchPlaceholder: string
  filters: ListFilter<F>[]
  /** Controls that are not a select (a month field), after the selects. */
  children?: ReactNode
}) {
  return (
    <ListToolbar>
      <SearchBox value={list.params.q} onSearch={list.setSearch} placeholder={searchPlaceholder} />
      {filters.map((filter) => (
        <FilterSelect
          key={filter.key}
          label={filter.label}
          value={list.params.filters[filter.key]}
          onChange={(value) => list.setFilter(filter.key, value)}
          options={filter.options}
        />
      ))}
      {children}
    </ListToolbar>
  )
}
