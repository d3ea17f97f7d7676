import { formatBRL } from '@/web/lib/format'
import type { AutoRenewal } from './api'

/** What the customer authorises with the composite code: amount, day of the month, how to cancel. */
export function AutomaticoExplanation({ automatico }: { automatico: AutoRenewal }) {
  return (
    <div className="flex flex-col gap-1 rounded-md border border-border p-3 text-sm">
      <p className="font-medium">PIX Automático: o que você autoriza</p>
      <p>
        Ao pagar este código no app do seu banco, você paga esta fatura e autoriza o débito mensal de{' '}
        <strong>{formatBRL(automatico.amountCents)}</strong>
        {automatico.dayOfMonth ? (
          <>
            {' '}
            todo dia <strong>{automatico.dayOfMonth}</strong>
          </>
        ) : null}{' '}
        para renovar a assinatura.
      </p>
      <p className="text-muted-foreground">
        Você pode cancelar quando quiser no app do seu banco (área Pix Automático) ou em Minhas assinaturas.
      </p>
    </div>
  )
}
