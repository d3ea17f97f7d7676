import { useQuery } from '@tanstack/react-query'
import { Loader2 } from 'lucide-react'
import { Button } from '@/web/components/ui/button'
import { formatBRL } from '@/web/lib/format'
import { PixCodeBlock } from './pix-code-block'
import { autoRenewalQuery, useAutoRenewalAction } from './api'

const dateBR = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Fortaleza' })

/** 'Renovação automática via PIX' on a subscription card: state, next debit, turn off / turn on. */
export function AutoRenewalPanel({ subscriptionId }: { subscriptionId: string }) {
  const query = useQuery(autoRenewalQuery(subscriptionId))
  const off = useAutoRenewalAction(subscriptionId, 'disable')
  const on = useAutoRenewalAction(subscriptionId, 'enable')
  if (!query.data?.enabled) return null
  const auto = query.data.automatico
  const live = auto?.state === 'ativa' || auto?.state === 'aguardando_autorizacao'
  return (
    <section
      aria-label="Renovação automática via PIX"
      className="flex flex-col gap-2 rounded-md border border-border p-3"
    >
      <h4 className="text-sm font-semibold">Renovação automática via PIX</h4>
      <p className="text-sm">
        Estado: <strong>{auto ? auto.label : 'desativada'}</strong>
      </p>
      {auto?.state === 'ativa' && auto.nextDebitDate ? (
        <p className="text-sm text-muted-foreground">
          Próximo débito: {dateBR.format(new Date(auto.nextDebitDate))} ({formatBRL(auto.amountCents)})
        </p>
      ) : null}
      {auto?.state === 'aguardando_autorizacao' && auto.copiaECola ? <PixCodeBlock code={auto.copiaECola} /> : null}
      {live ? (
        <Button variant="outline" size="sm" disabled={off.isPending} onClick={() => off.mutate()}>
          {off.isPending ? <Loader2 className="animate-spin" aria-hidden="true" /> : null}
          Desativar renovação automática
        </Button>
      ) : (
        <Button size="sm" disabled={on.isPending} onClick={() => on.mutate()}>
          {on.isPending ? <Loader2 className="animate-spin" aria-hidden="true" /> : null}
          Ativar renovação automática
        </Button>
      )}
      {off.error || on.error ? (
        <p role="alert" className="text-sm text-destructive">
          {(off.error ?? on.error)?.message}
        </p>
      ) : null}
    </section>
  )
}
