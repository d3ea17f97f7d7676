import { Loader2 } from 'lucide-react'
import { ApiError } from '@/web/lib/api'
import { Button, type ButtonProps } from './button'

/** A button whose action is running: a spinner before its label, and disabled while `pending`. */
export function PendingButton({ pending, disabled, children, ...props }: ButtonProps & { pending: boolean }) {
  return (
    <Button disabled={pending || disabled} {...props}>
      {pending ? <Loader2 className="animate-spin" aria-hidden="true" /> : null}
      {children}
    </Button>
  )
}

export function Spinner({ label = 'Carregando…' }: { label?: string }) {
  return (
    <div role="status" className="flex items-center justify-center gap-2 py-10 text-muted-foreground">
      <Loader2 className="size-5 animate-spin" aria-hidden="true" />
      <span>{label}</span>
    </div>
  )
}

/** A failed query: the server's message and a retry button. */
export function QueryError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const detail = error instanceof ApiError ? error.detail : 'Ocorreu um erro desconhecido'
  return (
    <div
      role="alert"
      className="flex flex-col items-center gap-3 rounded-lg border border-destructive/40 p-6 text-center"
    >
      <p className="font-medium">Não foi possível carregar os dados.</p>
      <p className="text-sm text-muted-foreground">{detail}</p>
      <Button variant="outline" onClick={onRetry}>
        Tentar novamente
      </Button>
    </div>
  )
}

export function EmptyState({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-3 rounded-lg border border-dashed border-border p-10 text-center">
      <p className="font-medium">{title}</p>
      {children}
    </div>
  )
}
