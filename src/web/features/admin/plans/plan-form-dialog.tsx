import { zodResolver } from '@hookform/resolvers/zod'
import { useEffect, useId } from 'react'
import { useForm } from 'react-hook-form'
import { z } from 'zod'
import { type Plan, type PlanInput, planIdSchema, splitFeatures } from '@/domain/contracts/plans'
import { centsToDecimalString, toCents } from '@/domain/money'
import { Button } from '@/web/components/ui/button'
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/web/components/ui/dialog'
import { Input, Textarea } from '@/web/components/ui/input'
import { FieldError, Label } from '@/web/components/ui/label'
import { ApiError } from '@/web/lib/api'
import { CheckboxField } from '@/web/features/admin/shared/form-controls'
import { useSavePlan } from './api'

const quantity = z
  .string()
  .trim()
  .min(1, 'Informe a quantidade.')
  .refine((v) => /^\d+$/.test(v), 'Use um número inteiro.')
  .refine((v) => !/^\d+$/.test(v) || Number(v) >= 1, 'Mínimo 1.')

function formSchema(creating: boolean) {
  return z.object({
    id: creating ? z.string().trim().min(1, 'Informe o ID do plano.').pipe(planIdSchema) : z.string(),
    name: z.string().trim().min(1, 'Informe o nome do plano.').max(80, 'No máximo 80 caracteres.'),
    description: z.string().trim().max(500, 'No máximo 500 caracteres.'),
    price: z
      .string()
      .trim()
      .min(1, 'Informe o preço.')
      .refine((v) => {
        const cents = toCents(v)
        return Number.isSafeInteger(cents) && cents > 0
      }, 'O preço deve ser maior que zero.'),
    features: z.string(),
    boxQuantity: quantity,
    agentQuantity: quantity,
    popular: z.boolean(),
    active: z.boolean(),
  })
}
type FormValues = z.infer<ReturnType<typeof formSchema>>

function defaults(plan: Plan | null): FormValues {
  if (!plan) {
    return {
      id: '',
      name: '',
      description: '',
      price: '',
      features: '',
      boxQuantity: '1',
      agentQuantity: '1',
      popular: false,
      active: true,
    }
  }
  return {
    id: plan.id,
    name: plan.name,
    description: plan.description,
    price: centsToDecimalString(plan.priceCents),
    features: plan.features.join('\n'),
    boxQuantity: String(plan.boxQuantity),
    agentQuantity: String(plan.agentQuantity),
    popular: plan.popular,
    active: plan.active,
  }
}

const serverFields: Record<string, keyof FormValues> = {
  id: 'id',
  name: 'name',
  description: 'description',
  priceCents: 'price',
  features: 'features',
  boxQuantity: 'boxQuantity',
  agentQuantity: 'agentQuantity',
}

/** The admin plan form: ID (on create), Nome, Descrição, Preço, Recursos, Caixas, Atendentes, Popular, Ativo. */
export function PlanFormDialog({
  open,
  onOpenChange,
  plan,
}: {
  open: boolean
  onOpenChange: (open: boolean) => void
  /** null: a new plan. */
  plan: Plan | null
}) {
  const creating = plan === null
  const ids = {
    id: useId(),
    name: useId(),
    description: useId(),
    price: useId(),
    features: useId(),
    boxes: useId(),
    agents: useId(),
    popular: useId(),
    active: useId(),
  }
  const save = useSavePlan()
  const { register, handleSubmit, reset, formState, setError } = useForm<FormValues>({
    resolver: zodResolver(formSchema(creating)),
    defaultValues: defaults(plan),
  })
  const errors = formState.errors

  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the dialog opens for another plan
  useEffect(() => {
    if (open) {
      reset(defaults(plan))
      save.reset()
    }
  }, [open, plan, reset])

  const onSubmit = handleSubmit((values) => {
    const input: PlanInput = {
      id: creating ? values.id.trim() : (plan?.id ?? ''),
      name: values.name.trim(),
      description: values.description.trim(),
      priceCents: toCents(values.price),
      features: splitFeatures(values.features),
      boxQuantity: Number(values.boxQuantity),
      agentQuantity: Number(values.agentQuantity),
      popular: values.popular,
      active: values.active,
    }
    save.mutate(
      { input, editing: !creating },
      {
        onSuccess: () => onOpenChange(false),
        onError: (error) => {
          if (!(error instanceof ApiError)) return
          if (error.code === 'plan_exists') setError('id', { message: error.detail })
          for (const { path, message } of error.errors) {
            const field = serverFields[path.replace(/^\//, '').split(/[./]/)[0] ?? '']
            if (field) setError(field, { message })
          }
        },
      },
    )
  })

  const describedBy = (id: string, hasError: boolean, hint?: boolean) =>
    [hint ? `${id}-hint` : '', hasError ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined

  return (
    <Dialog open={open} onOpenChange={(next) => !save.isPending && onOpenChange(next)}>
      <DialogContent className="max-w-xl">
        <DialogHeader>
          <DialogTitle>{creating ? 'Novo plano' : 'Editar plano'}</DialogTitle>
          <DialogDescription>
            {creating
              ? 'O plano aparece na página de planos assim que for salvo como ativo.'
              : `Alterações no plano ${plan?.id ?? ''} valem para as próximas cobranças.`}
          </DialogDescription>
        </DialogHeader>
        <form className="flex flex-col gap-4" noValidate onSubmit={onSubmit}>
          {creating ? (
            <div className="flex flex-col gap-2">
              <Label htmlFor={ids.id}>ID</Label>
              <Input
                id={ids.id}
                autoComplete="off"
                spellCheck={false}
                placeholder="plan_basic"
                className="font-mono"
                aria-invalid={Boolean(errors.id) || undefined}
                aria-describedby={describedBy(ids.id, Boolean(errors.id), true)}
                {...register('id')}
              />
              <p id={`${ids.id}-hint`} className="text-sm text-muted-foreground">
                Letras minúsculas, números e _. Não pode ser alterado depois.
              </p>
              <FieldError id={`${ids.id}-error`} message={errors.id?.message} />
            </div>
          ) : null}
          <div className="flex flex-col gap-2">
            <Label htmlFor={ids.name}>Nome</Label>
            <Input
              id={ids.name}
              autoComplete="off"
              aria-invalid={Boolean(errors.name) || undefined}
              aria-describedby={describedBy(ids.name, Boolean(errors.name))}
              {...register('name')}
            />
            <FieldError id={`${ids.name}-error`} message={errors.name?.message} />
          </div>
          <div className="flex flex-col gap-2">
            <Label htmlFor={ids.description}>Descrição</Label>
            <Textarea
              id={ids.description}
              rows={2}
              className="min-h-16"
              aria-invalid={Boolean(errors.description) || undefined}
              aria-describedby={describedBy(ids.description, Boolean(errors.description))}
              {...register('description')}
            />
            <FieldError id={`${ids.description}-error`} message={errors.description?.message} />
          </div>
          <div className="flex flex-col gap-2">
            <Label htmlFor={ids.price}>Preço</Label>
            <div className="relative">
              <span
                className="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-sm text-muted-foreground"
                aria-hidden="true"
              >
                R$
              </span>
              <Input
                id={ids.price}
                type="number"
                step="0.01"
                min="0.01"
                inputMode="decimal"
                className="pl-10"
                aria-invalid={Boolean(errors.price) || undefined}
                aria-describedby={describedBy(ids.price, Boolean(errors.price), true)}
                {...register('price')}
              />
            </div>
            <p id={`${ids.price}-hint`} className="text-sm text-muted-foreground">
              Valor mensal em reais.
            </p>
            <FieldError id={`${ids.price}-error`} message={errors.price?.message} />
          </div>
          <div className="flex flex-col gap-2">
            <Label htmlFor={ids.features}>Recursos</Label>
            <Textarea
              id={ids.features}
              rows={5}
              aria-describedby={describedBy(ids.features, Boolean(errors.features), true)}
              {...register('features')}
            />
            <p id={`${ids.features}-hint`} className="text-sm text-muted-foreground">
              Um recurso por linha; linhas em branco são ignoradas.
            </p>
            <FieldError id={`${ids.features}-error`} message={errors.features?.message} />
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            <div className="flex flex-col gap-2">
              <Label htmlFor={ids.boxes}>Caixas</Label>
              <Input
                id={ids.boxes}
                type="number"
                min="1"
                step="1"
                inputMode="numeric"
                aria-invalid={Boolean(errors.boxQuantity) || undefined}
                aria-describedby={describedBy(ids.boxes, Boolean(errors.boxQuantity))}
                {...register('boxQuantity')}
              />
              <FieldError id={`${ids.boxes}-error`} message={errors.boxQuantity?.message} />
            </div>
            <div className="flex flex-col gap-2">
              <Label htmlFor={ids.agents}>Atendentes</Label>
              <Input
                id={ids.agents}
                type="number"
                min="1"
                step="1"
                inputMode="numeric"
                aria-invalid={Boolean(errors.agentQuantity) || undefined}
                aria-describedby={describedBy(ids.agents, Boolean(errors.agentQuantity))}
                {...register('agentQuantity')}
              />
              <FieldError id={`${ids.agents}-error`} message={errors.agentQuantity?.message} />
            </div>
          </div>
          <div className="flex flex-col gap-3">
            <CheckboxField
              id={ids.popular}
              label="Popular"
              hint="Destaca o plano com o selo 'Popular'."
              {...register('popular')}
            />
            <CheckboxField
              id={ids.active}
              label="Ativo"
              hint="Planos inativos não aparecem na página de planos; as assinaturas existentes continuam."
              {...register('active')}
            />
          </div>
          <DialogFooter>
            <Button variant="outline" onClick={() => onOpenChange(false)} disabled={save.isPending}>
              Voltar
            </Button>
            <Button type="submit" disabled={save.isPending}>
              {save.isPending ? 'Salvando…' : 'Salvar'}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  )
}
