import { lazy, Suspense, useRef } from 'react'
import { PlanCard } from '@/web/components/plan-card'
import { useNavigate, useSearchParams } from 'react-router'
import type { Plan } from '@/domain/contracts/plans'
import { paths } from '@/web/app/paths'
import { EmptyState, QueryError, Spinner } from '@/web/components/ui/states'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { useSessionUser } from '@/web/lib/session'
import type { PaymentMethod } from '@/web/shared/billing/payment-method-dialog'
import { usePublicPlans } from '@/web/shared/plans-query'
import { AccountLinks, SitePage } from '@/web/shared/site/site-layout'

// The dialog (and Radix with it) downloads when a plan is chosen, not with the page.
const PaymentMethodDialog = lazy(async () => {
  const [dialog] = await Promise.all([
    import('@/web/shared/billing/payment-method-dialog'),
    import('@/web/app/class-merge'),
  ])
  return { default: dialog.PaymentMethodDialog }
})

export function PlansPage() {
  useDocumentTitle(
    'Planos de assinatura',
    'Compare os planos mensais da plataforma de atendimento multicanal e assine com PIX ou cartão de crédito.',
  )
  const plans = usePublicPlans()
  const { user } = useSessionUser()
  const navigate = useNavigate()
  const [searchParams, setSearchParams] = useSearchParams()
  // The chosen plan lives in the URL, so coming back from /login re-opens the same dialog.
  const chosenId = searchParams.get('plan')
  const chosen = plans.data?.find((p) => p.id === chosenId) ?? null
  // Mounted from the first choice on, so closing it still runs its exit (focus back to the plan's button).
  const dialogMounted = useRef(false)
  if (chosen) dialogMounted.current = true

  const choosePlan = (plan: Plan) => setSearchParams({ plan: plan.id }, { replace: true })
  const closeDialog = (open: boolean) => {
    if (!open) setSearchParams({}, { replace: true })
  }
  const pay = (method: PaymentMethod) => {
    if (!chosen) return
    if (!user) {
      const back = `${paths.plans}?plan=${encodeURIComponent(chosen.id)}`
      navigate(`${paths.login}?next=${encodeURIComponent(back)}`)
      return
    }
    const query = new URLSearchParams({ plan: chosen.id, method })
    navigate(`${paths.subscriptions}?${query.toString()}`)
  }

  return (
    <SitePage actions={<AccountLinks />}>
      <div className="mx-auto max-w-6xl px-4 py-10 sm:px-6 md:py-16">
        <div className="mx-auto max-w-2xl text-center">
          <h1 className="text-3xl font-bold tracking-tight sm:text-4xl">Planos de assinatura</h1>
          <p className="mt-3 text-lg text-muted-foreground text-pretty">
            Escolha o plano ideal para a sua equipe. Cobrança mensal em reais, com pagamento por PIX ou cartão de
            crédito.
          </p>
        </div>
        <div className="mt-10">
          {plans.isPending ? (
            <Spinner label="Carregando planos…" />
          ) : plans.isError ? (
            <QueryError error={plans.error} onRetry={() => void plans.refetch()} />
          ) : plans.data.length === 0 ? (
            <EmptyState title="Nenhum plano disponível no momento." />
          ) : (
            <ul className="grid items-stretch gap-6 md:grid-cols-2 lg:grid-cols-3">
              {plans.data.map((plan) => (
                <li key={plan.id} className="flex">
                  <PlanCard plan={plan} onChoose={() => choosePlan(plan)} />
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
      {dialogMounted.current ? (
        <Suspense fallback={null}>
          <PaymentMethodDialog plan={chosen} open={chosen !== null} onOpenChange={closeDialog} onChoose={pay} />
        </Suspense>
      ) : null}
    </SitePage>
  )
}
