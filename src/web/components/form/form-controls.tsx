import { ChevronDown } from 'lucide-react'
import type * as React from 'react'
import { cn } from '@/web/lib/cn'

/** A native <select> that looks like our inputs (no popover library: the platform's picker works everywhere). */
export function NativeSelect({ className, children, ...props }: React.ComponentProps<'select'>) {
  return (
    <div className="relative">
      <select
        className={cn(
          'flex h-10 w-full appearance-none rounded-md border border-input bg-background py-2 pl-3 pr-9 text-base focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring disabled:cursor-not-allowed disabled:opacity-50 aria-[invalid=true]:border-destructive md:text-sm',
          className,
        )}
        {...props}
      >
        {children}
      </select>
      <ChevronDown
        className="pointer-events-none absolute right-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground"
        aria-hidden="true"
      />
    </div>
  )
}

/** A native checkbox with its label beside it (the label is its accessible name). */
export function CheckboxField({
  id,
  label,
  hint,
  className,
  ...props
}: Omit<React.ComponentProps<'input'>, 'type' | 'id'> & { id: string; label: string; hint?: string }) {
  return (
    <div className={cn('flex items-start gap-3', className)}>
      <input
        id={id}
        type="checkbox"
        className="mt-0.5 size-4 shrink-0 rounded border-input accent-primary focus-visible:ring-2 focus-visible:ring-ring"
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...props}
      />
      <div className="flex flex-col gap-1">
        <label htmlFor={id} className="text-sm font-medium leading-none">
          {label}
        </label>
        {hint ? (
          <p id={`${id}-hint`} className="text-sm text-muted-foreground">
            {hint}
          </p>
        ) : null}
      </div>
    </div>
  )
}
