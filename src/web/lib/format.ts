import { format } from 'date-fns'
import { ptBR } from 'date-fns/locale'

export { formatBRL } from '@/domain/money'

const fortaleza = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Fortaleza',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
})

/** An ISO instant as dd/MM/yyyy in Brazil's (Fortaleza) time. */
export function formatDate(iso: string | Date): string {
  return fortaleza.format(typeof iso === 'string' ? new Date(iso) : iso)
}

export function formatMonthYear(iso: string | Date): string {
  return format(typeof iso === 'string' ? new Date(iso) : iso, "MMMM 'de' yyyy", { locale: ptBR })
}
