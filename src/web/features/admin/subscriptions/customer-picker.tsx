import { useQuery } from '@tanstack/react-query'
import { Loader2 } from 'lucide-react'
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react'
import { Input } from '@/web/components/ui/input'
import { cn } from '@/web/lib/cn'
import { customerOptionsQuery } from './api'

export type CustomerOption = { id: string; name: string; email: string }

const describe = (c: CustomerOption) => `${c.name} (${c.email})`

/**
 * A searchable customer field (ARIA combobox): typing searches GET /api/admin/users?q=, the arrows move through
 * the matches, Enter or a click picks one.
 */
export function CustomerPicker({
  id,
  value,
  onChange,
  invalid,
  describedBy,
}: {
  id: string
  value: CustomerOption | null
  onChange: (customer: CustomerOption | null) => void
  invalid?: boolean
  describedBy?: string | undefined
}) {
  const listId = useId()
  const [text, setText] = useState(value ? describe(value) : '')
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(0)
  const [q, setQ] = useState('')

  // Typing over a picked customer clears the pick; that must not wipe what is being typed.
  const clearedByTyping = useRef(false)
  useEffect(() => {
    if (clearedByTyping.current) {
      clearedByTyping.current = false
      return
    }
    setText(value ? describe(value) : '')
  }, [value])

  // Search what is typed after a short pause; a picked customer's label is not a search.
  useEffect(() => {
    if (value && text === describe(value)) return
    const timer = setTimeout(() => setQ(text.trim()), 250)
    return () => clearTimeout(timer)
  }, [text, value])

  const matches = useQuery({ ...customerOptionsQuery(q), enabled: open })
  const options = matches.data?.items ?? []

  function pick(customer: CustomerOption) {
    onChange({ id: customer.id, name: customer.name, email: customer.email })
    setText(describe(customer))
    setOpen(false)
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown') {
      event.preventDefault()
      setOpen(true)
      setActive((i) => Math.min(i + 1, Math.max(options.length - 1, 0)))
    } else if (event.key === 'ArrowUp') {
      event.preventDefault()
      setActive((i) => Math.max(i - 1, 0))
    } else if (event.key === 'Enter') {
      // Enter picks the highlighted customer instead of submitting the form.
      if (!open) return
      event.preventDefault()
      const option = options[active]
      if (option) pick(option)
    } else if (event.key === 'Escape' && open) {
      event.preventDefault()
      event.stopPropagation()
      setOpen(false)
    }
  }

  const activeId = open && options[active] ? `${listId}-${options[active].id}` : undefined

  return (
    // The list floats over the fields below: opening and closing it must not move the buttons under the pointer.
    <div className="relative">
      <div className="relative">
        <Input
          id={id}
          role="combobox"
          aria-expanded={open}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={activeId}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          autoComplete="off"
          placeholder="Digite o nome ou e-mail do cliente"
          value={text}
          onChange={(event) => {
            setText(event.target.value)
            setActive(0)
            setOpen(true)
            if (value) {
              clearedByTyping.current = true
              onChange(null)
            }
          }}
          onClick={() => setOpen(true)}
          onBlur={() => setOpen(false)}
          onKeyDown={onKeyDown}
        />
        {matches.isFetching && open ? (
          <Loader2
            className="absolute right-3 top-1/2 size-4 -translate-y-1/2 animate-spin text-muted-foreground"
            aria-hidden="true"
          />
        ) : null}
      </div>
      <div
        id={listId}
        role="listbox"
        aria-label="Clientes encontrados"
        hidden={!open}
        className="absolute inset-x-0 top-full z-10 mt-1 max-h-56 overflow-y-auto rounded-md border border-border bg-background p-1 shadow-lg"
      >
        {matches.isPending ? (
          <p className="px-3 py-2 text-sm text-muted-foreground">Buscando…</p>
        ) : options.length === 0 ? (
          <p className="px-3 py-2 text-sm text-muted-foreground">Nenhum cliente encontrado.</p>
        ) : (
          options.map((option, index) => (
            <div
              key={option.id}
              tabIndex={-1}
              id={`${listId}-${option.id}`}
              role="option"
              aria-selected={index === active}
              className={cn(
                'flex cursor-pointer flex-col rounded-sm px-3 py-2 text-sm',
                index === active && 'bg-accent text-accent-foreground',
              )}
              // mousedown fires before the input's blur closes the list
              onMouseDown={(event) => {
                event.preventDefault()
                pick(option)
              }}
              onMouseEnter={() => setActive(index)}
            >
              <span className="font-medium">{option.name}</span>
              <span className="text-muted-foreground">{option.email}</span>
            </div>
          ))
        )}
      </div>
    </div>
  )
}
