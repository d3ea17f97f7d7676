import { Check } from 'lucide-react'
import type { Plan } from '@/domain/contracts/plans'
import { cn } from '@/web/lib/cn'
import { formatBRL } from '@/web/lib/format'
import { Badge } from './ui/badge'
import { Button } from './ui/button'
import { Card, CardContent, CardDescription, CardFooter, CardHeader } from './ui/card'

/** A plan for sale (public /plans and the dashboard's plan list): price per month, features, 'Assinar {name}'. */
export function PlanCard({ plan, onChoose }: { plan: Plan; onChoose: () => void }) {
  const titleId = `plan-${plan.id}-title`
  return (
    <Card
      aria-labelledby={titleId}
      role="group"
      className={cn('flex w-full flex-col', plan.popular && 'border-primary shadow-md ring-1 ring-primary')}
    >
      <CardHeader>
        <div className="flex items-center justify-between gap-2">
          <h2 id={titleId} className="text-xl font-semibold leading-none tracking-tight">
            {plan.name}
          </h2>
          {plan.popular ? <Badge>Popular</Badge> : null}
        </div>
        {plan.description ? <CardDescription>{plan.description}</CardDescription> : null}
        <p className="mt-2 flex items-baseline gap-1">
          <span className="text-3xl font-bold">{formatBRL(plan.priceCents)}</span>
          <span className="text-muted-foreground">/mês</span>
        </p>
      </CardHeader>
      <CardContent className="flex-1">
        {plan.features.length > 0 ? (
          <ul className="flex flex-col gap-2 text-sm" aria-label={`Recursos do plano ${plan.name}`}>
            {plan.features.map((feature) => (
              <li key={feature} className="flex gap-2">
                <Check className="mt-0.5 size-4 shrink-0 text-primary" aria-hidden="true" />
                <span>{feature}</span>
              </li>
            ))}
          </ul>
        ) : null}
      </CardContent>
      <CardFooter>
        <Button className="w-full" size="lg" variant={plan.popular ? 'default' : 'outline'} onClick={onChoose}>
          Assinar {plan.name}
        </Button>
      </CardFooter>
    </Card>
  )
}
