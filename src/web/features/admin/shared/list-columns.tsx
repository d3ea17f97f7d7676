import type { ReactNode } from 'react'
import { Badge } from '@/web/components/ui/badge'
import type { Column } from './data-table'

type BadgeVariant = NonNullable<Parameters<typeof Badge>[0]['variant']>

/** A cell of two lines: the value, then a muted detail under it. */
export function TwoLines({ first, second, strong = false }: { first: ReactNode; second: ReactNode; strong?: boolean }) {
  return (
    <div className="flex flex-col">
      <span className={strong ? 'font-medium' : undefined}>{first}</span>
      <span className="text-muted-foreground">{second}</span>
    </div>
  )
}

/** The 'Cliente' column of the admin lists of payments and subscriptions: name over e-mail. */
export function customerColumn<T extends { customer: { name: string; email: string } }>(): Column<T> {
  return {
    id: 'customer',
    header: 'Cliente',
    className: 'whitespace-nowrap',
    cell: (row) => <TwoLines strong first={row.customer.name} second={row.customer.email} />,
  }
}

/** A status badge with an optional note under it (a refund, a cancellation at the end of the period). */
export function StatusCell({ variant, label, note }: { variant: BadgeVariant; label: string; note?: ReactNode }) {
  return (
    <div className="flex flex-col items-start gap-1">
      <Badge variant={variant} className="whitespace-nowrap">
        {label}
      </Badge>
      {note}
    </div>
  )
}
