import { zodResolver } from '@hookform/resolvers/zod'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useId } from 'react'
import { Controller, useForm } from 'react-hook-form'
import { z } from 'zod'
import type { adminSubscriptionSchema, settlementPreviewSchema } from '@/domain/contracts/admin'
import { isSubscriptionStatus, type SubscriptionStatus, subscriptionStatusLabel } from '@/domain/subscription-status'
import { Button } from '@/web/components/ui/button'
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/web/components/ui/dialog'
import { Input } from '@/web/components/ui/input'
import { FieldError, Label } from '@/web/components/ui/label'
import { ApiError } from '@/web/lib/api'
import { formatBRL, formatDate } from '@/web/lib/format'
import { adminPlansQuery } from '@/web/features/admin/plans/api'
import { addMonthsToDateInput, dateInputPattern, fromDateInput, toDateInput } from '@/web/features/admin/shared/dates'
import { CheckboxField, NativeSelect } from '@/web/features/admin/shared/form-controls'
import { optionsOf, paymentTypeLabel } from '@/web/features/admin/shared/labels'
import { type AdminSubscriptionInput, settlementPreviewQuery, useSaveSubscription } from './api'
import { type CustomerOption, CustomerPicker } from './customer-picker'

export type AdminSubscription = z.infer<typeof adminSubscriptionSchema>

const formSchema = z
  .object({
    customer: z
      .object({ id: z.string(), name: z.string(), email: z.string() })
      .nullable()
      .refine((c) => c !== null, 'Selecione o cliente.'),
    planId: z.string().min(1, 'Selecione o plano.'),
    status: z.string().refine(isSubscriptionStatus, 'Selecione o status.'),
    start: z.string().regex(dateInputPattern, 'Informe a data de início.'),
    end: z.string().regex(dateInputPattern, 'Informe a data de término.'),
    cancelAtPeriodEnd: z.boolean(),
  })
  .refine((v) => !dateInputPattern.test(v.start) || !dateInputPattern.test(v.end) || v.end > v.start, {
    message: 'A data de término deve ser posterior à de início.',
    path: ['end'],
  })
type FormValues = z.input<typeof formSchema>
type FormOutput = z.output<typeof formSchema>

// The API's field names → the form's, for validation errors the server finds (e.g. a plan that no longer exists).
const serverFields: Record<string, keyof FormValues> = {
  user_id: 'customer',
  plan_id: 'planId',
  status: 'status',
  current_period_start: 'start',
  current_period_end: 'end',
}

const statusHints: Partial<Record<SubscriptionStatus, { create: string; edit: string }>> = {
  active: {
    create: 'A assinatura começa ativa, sem fatura a pagar.',
    edit: 'Faturas PIX pendentes desta assinatura serão marcadas como pagas (confirmação manual).',
  },
  pending_pix: {
    create: 'Uma fatura PIX no valor do plano será gerada para o cliente.',
    edit: 'O cliente verá a assinatura aguardando o pagamento PIX.',
  },
}

function defaults(subscription: AdminSubscription | null, today: string): FormValues {
  if (!subscription) {
    return {
      customer: null,
      planId: '',
      status: 'active',
      start: today,
      end: addMonthsToDateInput(today, 1),
      cancelAtPeriodEnd: false,
    }
  }
  return {
    customer: subscription.customer,
    planId: subscription.planId,
    status: subscription.status,
    start: toDateInput(subscription.currentPeriodStart),
    end: toDateInput(subscription.currentPeriodEnd),
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
  }
}

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
  const ids = {
    customer: useId(),
    plan: useId(),
    status: useId(),
    start: useId(),
    end: useId(),
    cancel: useId(),
    statusHint: useId(),
  }
  const plans = useQuery({ ...adminPlansQuery(), enabled: open })
  const save = useSaveSubscription()
  const form = useForm<FormValues, unknown, FormOutput>({
    resolver: zodResolver(formSchema),
    defaultValues: defaults(subscription, toDateInput(new Date())),
  })
  const { register, handleSubmit, formState, reset, watch, setError, control } = form
  const errors = formState.errors

  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the dialog opens for another subscription
  useEffect(() => {
    if (open) {
      reset(defaults(subscription, toDateInput(new Date())))
      save.reset()
    }
  }, [open, subscription, reset])

  const status = watch('status')
  const hint = isSubscriptionStatus(status) ? statusHints[status]?.[subscription ? 'edit' : 'create'] : undefined
  // Saving as active settles the pending PIX invoices: show which, and the total, before the admin saves.
  const settles = Boolean(subscription) && status === 'active'
  const preview = useQuery({ ...settlementPreviewQuery(subscription?.id ?? ''), enabled: open && settles })

  const onSubmit = handleSubmit((values) => {
    const initial = subscription ? defaults(subscription, '') : null
    // An untouched date keeps its exact instant; a changed one starts at midnight in Fortaleza.
    const start =
      subscription && initial?.start === values.start ? subscription.currentPeriodStart : fromDateInput(values.start)
    const end = subscription && initial?.end === values.end ? subscription.currentPeriodEnd : fromDateInput(values.end)
    const input: AdminSubscriptionInput = {
      user_id: values.customer.id,
      plan_id: values.planId,
      status: values.status,
      current_period_start: start,
      current_period_end: end,
      cancel_at_period_end: values.cancelAtPeriodEnd,
    }
    save.mutate(
      { id: subscription?.id ?? null, input },
      {
        onSuccess: () => onOpenChange(false),
        onError: (error) => {
          if (!(error instanceof ApiError)) return
          for (const { path, message } of error.errors) {
            const field = serverFields[path.replace(/^\//, '').split(/[./]/)[0] ?? '']
            if (field) setError(field, { message })
          }
        },
      },
    )
  })

  return (
    <Dialog open={open} onOpenChange={(next) => !save.isPending && onOpenChange(next)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{subscription ? 'Editar assinatura' : 'Nova assinatura'}</DialogTitle>
          <DialogDescription>
            {subscription
              ? `Assinatura ${subscription.id.slice(0, 8)} de ${subscription.customer.name}.`
              : 'Crie uma assinatura manualmente para um cliente.'}
          </DialogDescription>
        </DialogHeader>
        <form className="flex flex-col gap-4" noValidate onSubmit={onSubmit}>
          <div className="flex flex-col gap-2">
            <Label htmlFor={ids.customer}>Cliente</Label>
            <Controller
              control={control}
              name="customer"
              render={({ field }) => (
                <CustomerPicker
                  id={ids.customer}
                  value={field.value as CustomerOption | null}
                  onChange={field.onChange}
                  invalid={Boolean(errors.customer)}
                  describedBy={errors.customer ? `${ids.customer}-error` : undefined}
                />
              )}
            />
            <FieldError id={`${ids.customer}-error`} message={errors.customer?.message} />
          </div>
          <div className="flex flex-col gap-2">
            <Label htmlFor={ids.plan}>Plano</Label>
            <NativeSelect
              id={ids.plan}
              aria-invalid={Boolean(errors.planId) || undefined}
              aria-describedby={errors.planId ? `${ids.plan}-error` : undefined}
              disabled={plans.isPending}
              {...register('planId')}
            >
              <option value="">{plans.isPending ? 'Carregando planos…' : 'Selecione o plano'}</option>
              {plans.data?.map((plan) => (
                <option key={plan.id} value={plan.id}>
                  {plan.name} — {formatBRL(plan.priceCents)}
                  {plan.active ? '' : ' (inativo)'}
                </option>
              ))}
            </NativeSelect>
            <FieldError
              id={`${ids.plan}-error`}
              message={errors.planId?.message ?? (plans.isError ? 'Não foi possível carregar os planos.' : undefined)}
            />
          </div>
          <div className="flex flex-col gap-2">
            <Label htmlFor={ids.status}>Status</Label>
            <NativeSelect
              id={ids.status}
              aria-invalid={Boolean(errors.status) || undefined}
              aria-describedby={[errors.status ? `${ids.status}-error` : '', hint ? ids.statusHint : '']
                .filter(Boolean)
                .join(' ')}
              {...register('status')}
            >
              {optionsOf(subscriptionStatusLabel).map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </NativeSelect>
            {hint && !settles ? (
              <p id={ids.statusHint} className="text-sm text-muted-foreground">
                {hint}
              </p>
            ) : null}
            {settles ? <SettlementPreview id={ids.statusHint} query={preview} /> : null}
            <FieldError id={`${ids.status}-error`} message={errors.status?.message} />
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            <div className="flex flex-col gap-2">
              <Label htmlFor={ids.start}>Data de início</Label>
              <Input
                id={ids.start}
                type="date"
                aria-invalid={Boolean(errors.start) || undefined}
                aria-describedby={errors.start ? `${ids.start}-error` : undefined}
                {...register('start')}
              />
              <FieldError id={`${ids.start}-error`} message={errors.start?.message} />
            </div>
            <div className="flex flex-col gap-2">
              <Label htmlFor={ids.end}>Data de término</Label>
              <Input
                id={ids.end}
                type="date"
                aria-invalid={Boolean(errors.end) || undefined}
                aria-describedby={errors.end ? `${ids.end}-error` : undefined}
                {...register('end')}
              />
              <FieldError id={`${ids.end}-error`} message={errors.end?.message} />
            </div>
          </div>
          {subscription?.billingMethod === 'card' ? (
            <p className="rounded-md border p-3 text-sm text-muted-foreground">
              Assinatura de cartão: cancelar, trocar o plano e o cancelamento no fim do período são feitos no Stripe ao
              salvar. Cliente e datas não podem ser alterados aqui.
            </p>
          ) : null}
          <CheckboxField
            id={ids.cancel}
            label="Cancelar no fim do período"
            hint="A assinatura termina na data de término, sem renovação."
            {...register('cancelAtPeriodEnd')}
          />
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
