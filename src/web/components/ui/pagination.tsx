import { ChevronLeft, ChevronRight } from 'lucide-react'
import { Button } from './button'

/** 'Anterior' / 'Página n de m' / 'Próxima' under a server-paged list (admin lists and the customer's own). */
export function Pagination({
  page,
  pageSize,
  total,
  totalExact = true,
  onPage,
}: {
  page: number
  pageSize: number
  total: number
  /** false: the server estimated a large total instead of counting it. */
  totalExact?: boolean | undefined
  onPage: (page: number) => void
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize))
  return (
    <nav aria-label="Paginação" className="flex flex-col items-center gap-3 sm:flex-row sm:justify-between">
      <p className="text-sm text-muted-foreground">
        {totalExact ? '' : 'cerca de '}
        {total === 1 ? '1 resultado' : `${total.toLocaleString('pt-BR')} resultados`}
      </p>
      <div className="flex items-center gap-3">
        <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => onPage(Math.min(page - 1, pages))}>
          <ChevronLeft aria-hidden="true" />
          Anterior
        </Button>
        <p className="whitespace-nowrap text-sm" aria-live="polite">
          Página {page} de {pages}
        </p>
        <Button variant="outline" size="sm" disabled={page >= pages} onClick={() => onPage(page + 1)}>
          Próxima
          <ChevronRight aria-hidden="true" />
        </Button>
      </div>
    </nav>
  )
}
