import { Search } from 'lucide-react'
import { type ReactNode, useEffect, useId, useRef, useState } from 'react'
import { Input } from '@/web/components/ui/input'
import { Label } from '@/web/components/ui/label'
import { NativeSelect } from '@/web/components/form/form-controls'

const searchDelayMs = 350

/** The 'Buscar' box: typing updates the URL after a short pause; Enter does it at once. */
export function SearchBox({
  value,
  onSearch,
  placeholder,
}: {
  value: string
  onSearch: (q: string) => void
  placeholder?: string
}) {
  const id = useId()
  const [text, setText] = useState(value)
  const pushed = useRef(value)
  const onSearchRef = useRef(onSearch)
  onSearchRef.current = onSearch

  // The URL changed by itself (Back, 'Limpar filtros'): show what it holds.
  useEffect(() => {
    if (value !== pushed.current) {
      pushed.current = value
      setText(value)
    }
  }, [value])

  useEffect(() => {
    const trimmed = text.trim()
    if (trimmed === pushed.current) return
    const timer = setTimeout(() => {
      pushed.current = trimmed
      onSearchRef.current(trimmed)
    }, searchDelayMs)
    return () => clearTimeout(timer)
  }, [text])

  return (
    <search className="flex min-w-0 flex-1">
      <form
        className="flex min-w-0 flex-1 flex-col gap-2"
        onSubmit={(event) => {
          event.preventDefault()
          const trimmed = text.trim()
          pushed.current = trimmed
          onSearchRef.current(trimmed)
        }}
      >
        <Label htmlFor={id}>Buscar</Label>
        <div className="relative">
          <Search
            className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground"
            aria-hidden="true"
          />
          <Input
            id={id}
            type="search"
            value={text}
            onChange={(event) => setText(event.target.value)}
            placeholder={placeholder}
            className="pl-9"
            autoComplete="off"
          />
        </div>
      </form>
    </search>
  )
}

export type FilterOption = { value: string; label: string }

export function FilterSelect({
  label,
  value,
  options,
  onChange,
  allLabel = 'Todos',
}: {
  label: string
  value: string
  options: FilterOption[]
  onChange: (value: string) => void
  allLabel?: string
}) {
  const id = useId()
  return (
    <div className="flex flex-col gap-2 sm:w-52">
      <Label htmlFor={id}>{label}</Label>
      <NativeSelect id={id} value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">{allLabel}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </NativeSelect>
    </div>
  )
}

/** A month filter (YYYY-MM, a São Paulo month) kept in the URL like the others; empty means every month. */
export function MonthFilter({
  label,
  value,
  onChange,
}: {
  label: string
  value: string
  onChange: (value: string) => void
}) {
  const id = useId()
  return (
    <div className="flex flex-col gap-2 sm:w-44">
      <Label htmlFor={id}>{label}</Label>
      <Input id={id} type="month" value={value} onChange={(event) => onChange(event.target.value)} />
    </div>
  )
}

export function ListToolbar({ children }: { children: ReactNode }) {
  return <div className="flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-end">{children}</div>
}
