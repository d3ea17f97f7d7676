import { PlanCard } from '@/web/components/plan-card'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import type { PixCharge } from '@/domain/contracts/billing'
import type { Plan } from '@/domain/contracts/plans'
import { paths } from '@/web/app/paths'
import { Button } from '@/web/components/ui/button'
import { PageHeader } from '@/web/components/ui/page-header'
import { QueryState } from '@/web/components/query-state'
import { EmptyState } from '@/web/components/ui/states'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { publicPlansQuery } from '@/web/shared/plans-query'
import { type PaymentMethod, PaymentMethodDialog } from '@/web/shared/billing/payment-method-dialog'
import { PixPaymentDialog } from '@/web/shared/billing/pix-payment-view'
import { useCardCheckout, usePixCheckout } from '@/web/shared/billing/api'
import { type AutoRenewal, usePixAutomaticoCheckout } from '@/web/shared/pix-automatico/api'
import { AutomaticoExplanation } from '@/web/shared/pix-automatico/automatico-explanation'

const isMethod = (value: string | null): value is PaymentMethod => value === 'pix' || value === 'card'

/** 'subscriptions': the plans on sale, and checkout by PIX (invoice + QR) or card (redirect to the provider). */
export function SubscriptionsPage() {
  useDocumentTitle('Assinar um plano')
  const plans = useQuery(publicPlansQuery())
  const pixCheckout = usePixCheckout()
  const cardCheckout = useCardCheckout()
  const automaticoCheckout = usePixAutomaticoCheckout()
  const [automatico, setAutomatico] = useState<AutoRenewal | null>(null)
  const [chosen, setChosen] = useState<Plan | null>(null)
  const [charge, setCharge] = useState<PixCharge | null>(null)
  const [searchParams, setSearchParams] = useSearchParams()
  const autoStarted = useRef(false)

  function start(plan: Plan, method: PaymentMethod, taxId = '') {
    if (method === 'pix-automatico') {
      automaticoCheckout.mutate(
        { planId: plan.id, taxId },
        {
          onSuccess: (result) => {
            setChosen(null)
            setAutomatico(result.automatico)
            setCharge(result.pix)
          },
        },
      )
      return
    }
    setAutomatico(null)
    if (method === 'card') {
      cardCheckout.mutate(plan.id)
      return
    }
    pixCheckout.mutate(plan.id, {
      onSuccess: (result) => {
        setChosen(null)
        setCharge(result.pix)
      },
    })
  }

  // The public /plans page sends signed-in visitors here with ?plan=…&method=…: start that checkout once
  // (the ref survives StrictMode's double effect), then drop the query so a reload does not start it again.
  const wantedPlan = searchParams.get('plan')
  const wantedMethod = searchParams.get('method')
  // biome-ignore lint/correctness/useExhaustiveDependencies: start() is a fresh closure each render; this runs once
  useEffect(() => {
    if (autoStarted.current || !wantedPlan || !plans.data) return
    autoStarted.current = true
    setSearchParams({}, { replace: true })
    const plan = plans.data.find((p) => p.id === wantedPlan)
    if (!plan) return
    setChosen(plan)
    if (isMethod(wantedMethod)) start(plan, wantedMethod)
  }, [wantedPlan, wantedMethod, plans.data, setSearchParams])

  const busy: PaymentMethod | null = pixCheckout.isPending
    ? 'pix'
    : automaticoCheckout.isPending
      ? 'pix-automatico'
      : cardCheckout.isPending || cardCheckout.isSuccess
        ? 'card'
        : null

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Assinar um plano"
        description="Escolha o plano ideal para a sua equipe e pague com PIX ou cartão de crédito."
      />
      <QueryState
        query={plans}
        loadingLabel="Carregando planos…"
        isEmpty={(data) => data.length === 0}
        empty={<EmptyState title="Nenhum plano disponível no momento." />}
      >
        {(data) => (
          <ul className="grid items-stretch gap-6 md:grid-cols-2 xl:grid-cols-3">
            {data.map((plan) => (
              <li key={plan.id} className="flex">
                <PlanCard plan={plan} onChoose={() => setChosen(plan)} />
              </li>
            ))}
          </ul>
        )}
      </QueryState>
      <PaymentMethodDialog
        plan={chosen}
        open={chosen !== null}
        onOpenChange={(open) => {
          if (!open && busy === null) setChosen(null)
        }}
        onChoose={(method, taxId) => {
          if (chosen) start(chosen, method, taxId)
        }}
        busy={busy}
      />
      <PixPaymentDialog open={charge !== null} onOpenChange={(open) => !open && setCharge(null)} charge={charge}>
        {automatico ? <AutomaticoExplanation automatico={automatico} /> : null}
        <div className="flex flex-col gap-2 sm:flex-row sm:justify-end">
          <Button asChild variant="outline">
            <Link to={paths.payments}>Ver minhas faturas</Link>
          </Button>
          <Button asChild>
            <Link to={paths.mySubscriptions}>Minhas assinaturas</Link>
          </Button>
        </div>
      </PixPaymentDialog>
    </div>
  )
}
