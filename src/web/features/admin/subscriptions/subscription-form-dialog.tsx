import { zodResolver } from '@hookform/resolvers/zod'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useId } from 'react'
import { Controller, useForm } from 'react-hook-form'
import type { z } from 'zod'
import type { settlementPreviewSchema } from '@/domain/contracts/admin'
import { isSubscriptionStatus, subscriptionStatusLabel } from '@/domain/subscription-status'
import { Field } from '@/web/components/form/field'
import { CheckboxField, NativeSelect } from '@/web/components/form/form-controls'
import { FormDialogFooter } from '@/web/components/form/form-dialog-footer'
import { DialogFrame } from '@/web/components/ui/dialog-frame'
import { Input } from '@/web/components/ui/input'
import { adminPlansQuery } from '@/web/features/admin/plans/api'
import { toDateInput } from '@/web/features/admin/shared/dates'
import { optionsOf, paymentTypeLabel } from '@/web/features/admin/shared/labels'
import { formatBRL, formatDate } from '@/web/lib/format'
import { applyServerErrors } from '@/web/lib/form-errors'
import { settlementPreviewQuery, useSaveSubscription } from './api'
import { type CustomerOption, CustomerPicker } from './customer-picker'
import {
  type AdminSubscription,
  type SubscriptionFormOutput,
  type SubscriptionFormValues,
  statusHints,
  subscriptionFormDefaults,
  subscriptionFormSchema,
  subscriptionServerFields,
  toSubscriptionInput,
} from './subscription-form'

export type { AdminSubscription } from './subscription-form'

/** 'Nova assinatura' and 'Editar': customer, plan, status, period and the cancel-at-period-end flag. */
export function SubscriptionFormDialog({
  open,
  onOpenChange,
  subscription,
}: {
  open: boolean
  onOpenChange: (open: boolean) => void
  /** null: a new subscription. */
  subscription: AdminSubscription | null
}) {
  const cancelId = useId()
  const statusHintId = useId()
  const plans = useQuery({ ...adminPlansQuery(), enabled: open })
  const save = useSaveSubscription()
  const form = useForm<SubscriptionFormValues, unknown, SubscriptionFormOutput>({
    resolver: zodResolver(subscriptionFormSchema),
    defaultValues: subscriptionFormDefaults(subscription, toDateInput(new Date())),
  })
  const { register, handleSubmit, formState, reset, watch, setError, control } = form
  const errors = formState.errors

  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the dialog opens for another subscription
  useEffect(() => {
    if (open) {
      reset(subscriptionFormDefaults(subscription, toDateInput(new Date())))
      save.reset()
    }
  }, [open, subscription, reset])

  const status = watch('status')
  const hint = isSubscriptionStatus(status) ? statusHints[status]?.[subscription ? 'edit' : 'create'] : undefined
  // Saving as active settles the pending PIX invoices: show which, and the total, before the admin saves.
  const settles = Boolean(subscription) && status === 'active'
  const preview = useQuery({ ...settlementPreviewQuery(subscription?.id ?? ''), enabled: open && settles })

  const onSubmit = handleSubmit((values) => {
    save.mutate(
      { id: subscription?.id ?? null, input: toSubscriptionInput(values, subscription) },
      {
        onSuccess: () => onOpenChange(false),
        onError: (error) => applyServerErrors(error, setError, subscriptionServerFields),
      },
    )
  })

  return (
    <DialogFrame
      open={open}
      onOpenChange={onOpenChange}
      busy={save.isPending}
      title={subscription ? 'Editar assinatura' : 'Nova assinatura'}
      description={
        subscription
          ? `Assinatura ${subscription.id.slice(0, 8)} de ${subscription.customer.name}.`
          : 'Crie uma assinatura manualmente para um cliente.'
      }
    >
      <form className="flex flex-col gap-4" noValidate onSubmit={onSubmit}>
        <Field label="Cliente" error={errors.customer?.message}>
          {(fieldControl) => (
            <Controller
              control={control}
              name="customer"
              render={({ field }) => (
                <CustomerPicker
                  id={fieldControl.id}
                  value={field.value as CustomerOption | null}
                  onChange={field.onChange}
                  invalid={Boolean(errors.customer)}
                  describedBy={fieldControl['aria-describedby']}
                />
              )}
            />
          )}
        </Field>
        <Field
          label="Plano"
          error={errors.planId?.message ?? (plans.isError ? 'Não foi possível carregar os planos.' : undefined)}
        >
          <NativeSelect disabled={plans.isPending} {...register('planId')}>
            <option value="">{plans.isPending ? 'Carregando planos…' : 'Selecione o plano'}</option>
            {plans.data?.map((plan) => (
              <option key={plan.id} value={plan.id}>
                {plan.name} — {formatBRL(plan.priceCents)}
                {plan.active ? '' : ' (inativo)'}
              </option>
            ))}
          </NativeSelect>
        </Field>
        <Field label="Status" error={errors.status?.message}>
          {(fieldControl) => (
            <>
              <NativeSelect
                {...fieldControl}
                aria-describedby={
                  [fieldControl['aria-describedby'], hint ? statusHintId : ''].filter(Boolean).join(' ') || undefined
                }
                {...register('status')}
              >
                {optionsOf(subscriptionStatusLabel).map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </NativeSelect>
              {hint && !settles ? (
                <p id={statusHintId} className="text-sm text-muted-foreground">
                  {hint}
                </p>
              ) : null}
              {settles ? <SettlementPreview id={statusHintId} query={preview} /> : null}
            </>
          )}
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Data de início" error={errors.start?.message}>
            <Input type="date" {...register('start')} />
          </Field>
          <Field label="Data de término" error={errors.end?.message}>
            <Input type="date" {...register('end')} />
          </Field>
        </div>
        {subscription?.billingMethod === 'card' ? (
          <p className="rounded-md border p-3 text-sm text-muted-foreground">
            Assinatura de cartão: cancelar, trocar o plano e o cancelamento no fim do período são feitos no Stripe ao
            salvar. Cliente e datas não podem ser alterados aqui.
          </p>
        ) : null}
        <CheckboxField
          id={cancelId}
          label="Cancelar no fim do período"
          hint="A assinatura termina na data de término, sem renovação."
          {...register('cancelAtPeriodEnd')}
        />
        <FormDialogFooter pending={save.isPending} onBack={() => onOpenChange(false)} />
      </form>
    </DialogFrame>
  )
}

/** The pending PIX invoices that saving as active marks paid (manual confirmation), with their total. */
function SettlementPreview({
  id,
  query,
}: {
  id: string
  query: { isPending: boolean; isError: boolean; data?: z.infer<typeof settlementPreviewSchema> | undefined }
}) {
  if (query.isPending) {
    return (
      <p id={id} className="text-sm text-muted-foreground">
        Carregando faturas pendentes…
      </p>
    )
  }
  if (query.isError || !query.data) {
    return (
      <p id={id} className="text-sm text-destructive">
        Não foi possível carregar as faturas pendentes.
      </p>
    )
  }
  const { invoices, totalCents } = query.data
  if (invoices.length === 0) {
    return (
      <p id={id} className="text-sm text-muted-foreground">
        Nenhuma fatura PIX pendente será alterada.
      </p>
    )
  }
  return (
    <section id={id} className="rounded-md border p-3 text-sm" aria-label="Faturas que serão marcadas como pagas">
      <p className="font-medium">
        {invoices.length === 1
          ? 'Ao salvar, 1 fatura PIX pendente será marcada como paga (confirmação manual):'
          : `Ao salvar, ${invoices.length} faturas PIX pendentes serão marcadas como pagas (confirmação manual):`}
      </p>
      <ul className="mt-2 flex flex-col gap-1">
        {invoices.map((invoice) => (
          <li key={invoice.id} className="flex justify-between gap-4">
            <span>
              {paymentTypeLabel[invoice.type]} · vence em {formatDate(invoice.dueDate)}
            </span>
            <span className="tabular-nums">{formatBRL(invoice.amountCents)}</span>
          </li>
        ))}
      </ul>
      <p className="mt-2 flex justify-between gap-4 font-medium">
        <span>Total</span>
        <span className="tabular-nums">{formatBRL(totalCents)}</span>
      </p>
    </section>
  )
}
