import { useQuery } from '@tanstack/react-query'
import { ArrowUpCircle, Loader2 } from 'lucide-react'
import { useState } from 'react'
import { toast } from 'sonner'
import type { PixCharge, Subscription } from '@/domain/contracts/billing'
import { Button } from '@/web/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/web/components/ui/dialog'
import { EmptyState, QueryError, Spinner } from '@/web/components/ui/states'
import { formatBRL, formatDate } from '@/web/lib/format'
import { upgradeOptionsQuery, useUpgradeSubscription } from '@/web/shared/billing/api'
import { billingTexts } from '@/web/shared/billing/status-badges'

export type UpgradeDialogProps = {
  subscription: Subscription | null
  onOpenChange: (open: boolean) => void
  /** A PIX subscription gets an invoice for the prorated amount: the page shows its PIX payment view. */
  onPixCharge: (charge: PixCharge) => void
}

/** 'Trocar Plano': the higher-priced plans, each with what changing now costs (only the prorated difference). */
export function UpgradeDialog({ subscription, onOpenChange, onPixCharge }: UpgradeDialogProps) {
  return (
    <Dialog open={subscription !== null} onOpenChange={onOpenChange}>
      {subscription ? (
        <DialogContent className="max-w-xl">
          <DialogHeader>
            <DialogTitle>Trocar plano</DialogTitle>
            <DialogDescription>
              Plano atual: {subscription.plan.name} ({formatBRL(subscription.plan.priceCents)}/mês). Você paga agora
              apenas a diferença proporcional até {formatDate(subscription.currentPeriodEnd)}.
            </DialogDescription>
          </DialogHeader>
          <UpgradeOptions subscription={subscription} onDone={() => onOpenChange(false)} onPixCharge={onPixCharge} />
        </DialogContent>
      ) : null}
    </Dialog>
  )
}

function UpgradeOptions({
  subscription,
  onDone,
  onPixCharge,
}: {
  subscription: Subscription
  onDone: () => void
  onPixCharge: (charge: PixCharge) => void
}) {
  const options = useQuery(upgradeOptionsQuery(subscription.id))
  const upgrade = useUpgradeSubscription()
  const [pendingPlan, setPendingPlan] = useState<string | null>(null)

  function choose(planId: string) {
    setPendingPlan(planId)
    upgrade.mutate(
      { subscriptionId: subscription.id, newPlanId: planId },
      {
        onSuccess: (result) => {
          onDone()
          if (result.kind === 'pix') onPixCharge(result.pix)
          else toast.success(billingTexts.planChanged)
        },
        onSettled: () => setPendingPlan(null),
      },
    )
  }

  if (options.isPending) return <Spinner label="Carregando opções…" />
  if (options.isError) return <QueryError error={options.error} onRetry={() => void options.refetch()} />
  if (options.data.length === 0) return <EmptyState title="Você já está no plano mais alto." />
  return (
    <ul className="flex flex-col gap-3">
      {options.data.map(({ plan, prorationCents }) => (
        <li
          key={plan.id}
          className="flex flex-col gap-3 rounded-lg border border-border p-4 sm:flex-row sm:items-center sm:justify-between"
        >
          <div className="flex min-w-0 flex-col gap-1">
            <p className="font-semibold">{plan.name}</p>
            <p className="text-sm text-muted-foreground">{formatBRL(plan.priceCents)}/mês</p>
            <p className="text-sm font-medium">Valor proporcional: {formatBRL(prorationCents)}</p>
          </div>
          <Button disabled={upgrade.isPending} onClick={() => choose(plan.id)}>
            {pendingPlan === plan.id ? (
              <Loader2 className="animate-spin" aria-hidden="true" />
            ) : (
              <ArrowUpCircle aria-hidden="true" />
            )}
            Mudar para {plan.name}
          </Button>
        </li>
      ))}
    </ul>
  )
}
