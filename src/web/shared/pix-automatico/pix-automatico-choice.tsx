import { Loader2 } from 'lucide-react'
import { useId, useState } from 'react'
import { parseTaxId } from '@/domain/cpf-cnpj'
import type { Plan } from '@/domain/contracts/plans'
import { Badge } from '@/web/components/ui/badge'
import { Button } from '@/web/components/ui/button'
import { Input } from '@/web/components/ui/input'
import { formatBRL } from '@/web/lib/format'

type Method = 'pix' | 'card' | 'pix-automatico'

/** The recommended PIX option: PIX Automático, with the CPF/CNPJ it needs (checked here, and again on the server). */
export function PixAutomaticoChoice({
  plan,
  busy,
  onChoose,
}: {
  plan: Plan
  busy: Method | null
  onChoose: (method: Method, taxId?: string) => void
}) {
  const id = useId()
  const [taxId, setTaxId] = useState('')
  const [error, setError] = useState<string | null>(null)
  function choose() {
    if (taxId.trim() && !parseTaxId(taxId)) {
      setError('CPF ou CNPJ inválido. Confira os números.')
      return
    }
    setError(null)
    onChoose('pix-automatico', taxId.trim())
  }
  return (
    <div className="flex flex-col gap-2 rounded-md border border-primary/40 p-3">
      <p className="flex flex-wrap items-center gap-2 text-sm font-medium">
        PIX Automático <Badge>Recomendado</Badge>
      </p>
      <p className="text-xs text-muted-foreground">
        Você autoriza uma vez no app do seu banco e a renovação de {formatBRL(plan.priceCents)} é debitada todo mês.
      </p>
      <label htmlFor={id} className="text-xs font-medium">
        CPF ou CNPJ do pagador
      </label>
      <Input
        id={id}
        inputMode="numeric"
        autoComplete="off"
        placeholder="000.000.000-00"
        value={taxId}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => {
          setTaxId(event.target.value)
          setError(null)
        }}
      />
      {error ? (
        <p id={`${id}-error`} role="alert" className="text-xs text-destructive">
          {error}
        </p>
      ) : null}
      <Button className="h-auto whitespace-normal py-2" disabled={busy !== null} onClick={choose}>
        {busy === 'pix-automatico' ? <Loader2 className="animate-spin" aria-hidden="true" /> : null}
        PIX Automático (renovação automática)
      </Button>
    </div>
  )
}
