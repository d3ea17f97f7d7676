import type * as React from 'react'
import { Input } from '@/web/components/ui/input'
import { cn } from '@/web/lib/cn'

/** An amount in reais: an input with the 'R$' prefix drawn inside it (the prefix is hidden from screen readers). */
export function CurrencyInput({ className, ...props }: React.ComponentProps<typeof Input>) {
  return (
    <div className="relative">
      <span
        className="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-sm text-muted-foreground"
        aria-hidden="true"
      >
        R$
      </span>
      <Input className={cn('pl-10', className)} {...props} />
    </div>
  )
}
