import { zodResolver } from '@hookform/resolvers/zod'
import { useEffect, useId } from 'react'
import { useForm } from 'react-hook-form'
import type { Plan } from '@/domain/contracts/plans'
import { CurrencyInput } from '@/web/components/form/currency-input'
import { Field } from '@/web/components/form/field'
import { FormDialogFooter } from '@/web/components/form/form-dialog-footer'
import { CheckboxField } from '@/web/components/form/form-controls'
import { DialogFrame } from '@/web/components/ui/dialog-frame'
import { Input, Textarea } from '@/web/components/ui/input'
import { applyServerErrors } from '@/web/lib/form-errors'
import { useSavePlan } from './api'
import { type PlanFormValues, planFormDefaults, planFormSchema, planServerFields, toPlanInput } from './plan-form'

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
  const popularId = useId()
  const activeId = useId()
  const save = useSavePlan()
  const { register, handleSubmit, reset, formState, setError } = useForm<PlanFormValues>({
    resolver: zodResolver(planFormSchema(creating)),
    defaultValues: planFormDefaults(plan),
  })
  const errors = formState.errors

  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the dialog opens for another plan
  useEffect(() => {
    if (open) {
      reset(planFormDefaults(plan))
      save.reset()
    }
  }, [open, plan, reset])

  const onSubmit = handleSubmit((values) => {
    save.mutate(
      { input: toPlanInput(values, plan), editing: !creating },
      {
        onSuccess: () => onOpenChange(false),
        onError: (error) => applyServerErrors(error, setError, planServerFields),
      },
    )
  })

  return (
    <DialogFrame
      open={open}
      onOpenChange={onOpenChange}
      busy={save.isPending}
      title={creating ? 'Novo plano' : 'Editar plano'}
      description={
        creating
          ? 'O plano aparece na página de planos assim que for salvo como ativo.'
          : `Alterações no plano ${plan?.id ?? ''} valem para as próximas cobranças.`
      }
      className="max-w-xl"
    >
      <form className="flex flex-col gap-4" noValidate onSubmit={onSubmit}>
        {creating ? (
          <Field
            label="ID"
            hint="Letras minúsculas, números e _. Não pode ser alterado depois."
            error={errors.id?.message}
          >
            <Input
              autoComplete="off"
              spellCheck={false}
              placeholder="plan_basic"
              className="font-mono"
              {...register('id')}
            />
          </Field>
        ) : null}
        <Field label="Nome" error={errors.name?.message}>
          <Input autoComplete="off" {...register('name')} />
        </Field>
        <Field label="Descrição" error={errors.description?.message}>
          <Textarea rows={2} className="min-h-16" {...register('description')} />
        </Field>
        <Field label="Preço" hint="Valor mensal em reais." error={errors.price?.message}>
          <CurrencyInput type="number" step="0.01" min="0.01" inputMode="decimal" {...register('price')} />
        </Field>
        <Field
          label="Recursos"
          hint="Um recurso por linha; linhas em branco são ignoradas."
          error={errors.features?.message}
        >
          <Textarea rows={5} {...register('features')} />
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Caixas" error={errors.boxQuantity?.message}>
            <Input type="number" min="1" step="1" inputMode="numeric" {...register('boxQuantity')} />
          </Field>
          <Field label="Atendentes" error={errors.agentQuantity?.message}>
            <Input type="number" min="1" step="1" inputMode="numeric" {...register('agentQuantity')} />
          </Field>
        </div>
        <div className="flex flex-col gap-3">
          <CheckboxField
            id={popularId}
            label="Popular"
            hint="Destaca o plano com o selo 'Popular'."
            {...register('popular')}
          />
          <CheckboxField
            id={activeId}
            label="Ativo"
            hint="Planos inativos não aparecem na página de planos; as assinaturas existentes continuam."
            {...register('active')}
          />
        </div>
        <FormDialogFooter pending={save.isPending} onBack={() => onOpenChange(false)} />
      </form>
    </DialogFrame>
  )
}
