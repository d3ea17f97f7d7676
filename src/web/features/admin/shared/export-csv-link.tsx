import { Download } from 'lucide-react'
import { buttonVariants } from '@/web/components/ui/button'

/**
 * 'Exportar CSV' of an admin list with its current search and filters (the server streams the whole result, not only
 * the page shown). A plain download link: the session cookie goes with it, and the browser saves the attachment.
 */
export function ExportCsvLink({
  list,
  q,
  filters,
}: {
  list: 'payments' | 'subscriptions' | 'customers'
  q: string
  filters: Record<string, string>
}) {
  const search = new URLSearchParams()
  if (q) search.set('q', q)
  for (const [key, value] of Object.entries(filters)) if (value) search.set(key, value)
  const query = search.toString()
  return (
    <a
      href={`/api/admin/exports/${list}.csv${query ? `?${query}` : ''}`}
      download
      className={buttonVariants({ variant: 'outline' })}
    >
      <Download aria-hidden="true" />
      Exportar CSV
    </a>
  )
}
