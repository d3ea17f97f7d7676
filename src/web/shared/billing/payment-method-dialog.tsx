import { CreditCard, Loader2, QrCode } from 'lucide-react'
import { useRef } from 'react'
import type { Plan } from '@/domain/contracts/plans'
import { Button } from '@/web/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/web/components/ui/dialog'
import { formatBRL } from '@/web/lib/format'
import { useSiteConfig } from '@/web/lib/site-config'
import { PixAutomaticoChoice } from '@/web/shared/pix-automatico/pix-automatico-choice'

export type PaymentMethod = 'pix' | 'card' | 'pix-automatico'

export type PaymentMethodDialogProps = {
  plan: Plan | null
  open: boolean
  onOpenChange: (open: boolean) => void
  onChoose: (method: PaymentMethod, taxId?: string) => void
  /** The method whose checkout is starting: its button spins and both are disabled. */
  busy?: PaymentMethod | null
}

/** 'Assinar {plano}': PIX (manual activation within 24 h) or card (immediate activation). */
export function PaymentMethodDialog({ plan, open, onOpenChange, onChoose, busy = null }: PaymentMethodDialogProps) {
  const autoPix = useSiteConfig().pixProvider === 'api-pix'
  const pixAutomatico = useSiteConfig().pixAutomatico === true
  // Opened from a plan card rather than a Radix trigger: keyboard focus must go back to the button that opened it.
  const returnFocus = useRef<HTMLElement | null>(null)
  return (
    <Dialog open={open && plan !== null} onOpenChange={onOpenChange}>
      {plan ? (
        <DialogContent
          className="max-w-2xl"
          onOpenAutoFocus={() => {
            returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null
          }}
          onCloseAutoFocus={(event) => {
            event.preventDefault()
            if (returnFocus.current?.isConnected) returnFocus.current.focus()
            returnFocus.current = null
          }}
        >
          <DialogHeader>
            <DialogTitle>Assinar {plan.name}</DialogTitle>
            <DialogDescription>Escolha a forma de pagamento da sua assinatura mensal.</DialogDescription>
          </DialogHeader>
          <p className="flex items-baseline justify-center gap-1 sm:justify-start">
            <span className="text-3xl font-bold">{formatBRL(plan.priceCents)}</span>
            <span className="text-muted-foreground">/mês</span>
          </p>
          <div className="grid gap-3 sm:grid-cols-2">
            <section
              aria-labelledby="payment-pix-title"
              className="flex flex-col gap-3 rounded-lg border border-border p-4"
            >
              <h3 id="payment-pix-title" className="flex items-center gap-2 font-semibold">
                <QrCode className="size-5 text-primary" aria-hidden="true" />
                PIX
              </h3>
              <p className="flex-1 text-sm text-muted-foreground">
                {autoPix
                  ? 'Você recebe o código PIX copia e cola e o QR Code. A ativação é automática, em segundos após o pagamento.'
                  : 'Você recebe o código PIX copia e cola e o QR Code. A ativação é manual, em até 24 horas após o pagamento.'}
              </p>
              {pixAutomatico ? <PixAutomaticoChoice plan={plan} busy={busy} onChoose={onChoose} /> : null}
              <Button variant="outline" disabled={busy !== null} onClick={() => onChoose('pix')}>
                {busy === 'pix' ? <Loader2 className="animate-spin" aria-hidden="true" /> : null}
                {pixAutomatico ? 'PIX (pagar só esta fatura)' : 'Pagar com PIX'}
              </Button>
            </section>
            <section
              aria-labelledby="payment-card-title"
              className="flex flex-col gap-3 rounded-lg border border-border p-4"
            >
              <h3 id="payment-card-title" className="flex items-center gap-2 font-semibold">
                <CreditCard className="size-5 text-primary" aria-hidden="true" />
                Cartão de crédito
              </h3>
              <p className="flex-1 text-sm text-muted-foreground">
                Pagamento seguro processado pela Stripe, com renovação automática a cada mês. A ativação é imediata após
                a aprovação.
              </p>
              <Button disabled={busy !== null} onClick={() => onChoose('card')}>
                {busy === 'card' ? <Loader2 className="animate-spin" aria-hidden="true" /> : null}
                Pagar com Cartão
              </Button>
            </section>
          </div>
          {busy ? (
            <p role="status" className="text-sm text-muted-foreground">
              Preparando o pagamento…
            </p>
          ) : null}
        </DialogContent>
      ) : null}
    </Dialog>
  )
}
