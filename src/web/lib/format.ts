import { format } from 'date-fns'
import { ptBR } from 'date-fns/locale'

export { formatBRL } from '@/domain/money'

// Made on first use: the browser's first Intl formatter loads its locale data (20-45 ms in one call), which a page
// that shows no date should not pay while its script is evaluated.
let fortaleza: Intl.DateTimeFormat | undefined

/** An ISO instant as dd/MM/yyyy in Brazil's (Fortaleza) time. */
export function formatDate(iso: string | Date): string {
  fortaleza ??= new Intl.DateTimeFormat('pt-BR', {
    timeZone: 'America/Fortaleza',
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
  })
  return fortaleza.format(typeof iso === 'string' ? new Date(iso) : iso)
}

export function formatMonthYear(iso: string | Date): string {
  return format(typeof iso === 'string' ? new Date(iso) : iso, "MMMM 'de' yyyy", { locale: ptBR })
}
