import { PagedTable } from '@/web/features/admin/shared/paged-table'
import { useQuery } from '@tanstack/react-query'
import { Plus } from 'lucide-react'
import { useState } from 'react'
import { payingStatusFilter } from '@/domain/admin-filters'
import { subscriptionStatusBadge, subscriptionStatusLabel, subscriptionStatuses } from '@/domain/subscription-status'
import { Button } from '@/web/components/ui/button'
import { PageHeader } from '@/web/components/ui/page-header'
import { formatBRL, formatDate } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { useSiteConfig } from '@/web/lib/site-config'
import { adminPlansQuery } from '@/web/features/admin/plans/api'
import { ConfirmDialog } from '@/web/features/admin/shared/confirm-dialog'
import type { Column } from '@/web/features/admin/shared/data-table'
import { billingMethodLabel, optionsOf } from '@/web/features/admin/shared/labels'
import { customerColumn, StatusCell, TwoLines } from '@/web/features/admin/shared/list-columns'
import { ListFilters } from '@/web/features/admin/shared/list-filters'
import { MonthFilter } from '@/web/features/admin/shared/list-toolbar'
import { useListParams } from '@/web/features/admin/shared/use-list-params'
import { ExportCsvLink } from '@/web/features/admin/shared/export-csv-link'
import { adminSubscriptionsQuery, useAdminCancelSubscription } from './api'
import { PixAutomaticoButton } from './pix-automatico-dialog'
import { type AdminSubscription, SubscriptionFormDialog } from './subscription-form-dialog'

const filterKeys = ['status', 'planId', 'method', 'cancel', 'periodEnd'] as const
const listDefaults = { sort: 'created_at', dir: 'desc' } as const

/** Admin 'Assinaturas': every subscription, with manual create, edit and immediate cancel. */
export function AdminSubscriptionsPage() {
  useDocumentTitle('Assinaturas')
  const automatico = useSiteConfig().pixAutomatico
  const list = useListParams(filterKeys, listDefaults)
  const { params } = list
  const query = useQuery(adminSubscriptionsQuery(list.apiQuery))
  const plans = useQuery(adminPlansQuery())
  const [editing, setEditing] = useState<AdminSubscription | null>(null)
  const [formOpen, setFormOpen] = useState(false)
  const [canceling, setCanceling] = useState<AdminSubscription | null>(null)
  const cancel = useAdminCancelSubscription()

  const columns: Column<AdminSubscription>[] = [
    customerColumn(),
    {
      id: 'plan',
      header: 'Plano',
      className: 'whitespace-nowrap',
      cell: (s) => (
        <TwoLines
          first={s.plan.name}
          second={`${formatBRL(s.plan.priceCents)}/mês · ${billingMethodLabel[s.billingMethod]}`}
        />
      ),
    },
    {
      id: 'status',
      header: 'Status',
      sortKey: 'status',
      cell: (s) => (
        <StatusCell
          variant={subscriptionStatusBadge[s.status]}
          label={subscriptionStatusLabel[s.status]}
          note={
            s.cancelAtPeriodEnd && s.status !== 'canceled' ? (
              <span className="text-xs text-muted-foreground">Cancela no fim do período</span>
            ) : null
          }
        />
      ),
    },
    {
      id: 'period',
      header: 'Período',
      sortKey: 'current_period_end',
      firstDir: 'desc',
      className: 'whitespace-nowrap',
      cell: (s) => <TwoLines first={formatDate(s.currentPeriodStart)} second={`a ${formatDate(s.currentPeriodEnd)}`} />,
    },
    {
      id: 'actions',
      header: 'Ações',
      className: 'text-right',
      sticky: true,
      cell: (s) => (
        <div className="flex flex-wrap justify-end gap-2">
          {automatico && s.billingMethod === 'pix' ? (
            <PixAutomaticoButton subscriptionId={s.id} name={s.customer.name} />
          ) : null}
          <Button
            size="sm"
            variant="outline"
            onClick={() => {
              setEditing(s)
              setFormOpen(true)
            }}
          >
            Editar
          </Button>
          {s.status !== 'canceled' ? (
            <Button size="sm" variant="destructive" onClick={() => setCanceling(s)}>
              Cancelar
            </Button>
          ) : null}
        </div>
      ),
    },
  ]

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Assinaturas"
        description="Todas as assinaturas dos clientes. Crie, edite ou cancele imediatamente."
        actions={
          <>
            <ExportCsvLink list="subscriptions" q={params.q} filters={params.filters} />
            <Button
              onClick={() => {
                setEditing(null)
                setFormOpen(true)
              }}
            >
              <Plus aria-hidden="true" />
              Nova assinatura
            </Button>
          </>
        }
      />
      <ListFilters
        list={list}
        searchPlaceholder="Nome ou e-mail do cliente"
        filters={[
          {
            key: 'status',
            label: 'Status',
            options: [
              { value: payingStatusFilter, label: 'Pagantes (ativas e vencidas)' },
              ...subscriptionStatuses.map((s) => ({ value: s, label: subscriptionStatusLabel[s] })),
            ],
          },
          { key: 'method', label: 'Cobrança', options: optionsOf(billingMethodLabel) },
          {
            key: 'cancel',
            label: 'Cancelamento',
            options: [{ value: 'scheduled', label: 'Agendado para o fim do período' }],
          },
          { key: 'planId', label: 'Plano', options: (plans.data ?? []).map((p) => ({ value: p.id, label: p.name })) },
        ]}
      >
        <MonthFilter
          label="Fim do período"
          value={params.filters.periodEnd}
          onChange={(v) => list.setFilter('periodEnd', v)}
        />
      </ListFilters>
      <PagedTable
        list={list}
        query={query}
        label="Lista de assinaturas"
        columns={columns}
        rowKey={(s) => s.id}
        minWidth="min-w-[760px]"
      />
      <SubscriptionFormDialog open={formOpen} onOpenChange={setFormOpen} subscription={editing} />
      <ConfirmDialog
        open={canceling !== null}
        onOpenChange={(open) => !open && setCanceling(null)}
        title="Cancelar assinatura?"
        description={
          canceling
            ? `A assinatura do plano ${canceling.plan.name} de ${canceling.customer.name} será cancelada imediatamente, sem esperar o fim do período.`
            : ''
        }
        confirmLabel="Cancelar assinatura"
        pending={cancel.isPending}
        onConfirm={() => {
          if (canceling) cancel.mutate(canceling.id, { onSuccess: () => setCanceling(null) })
        }}
      />
    </div>
  )
}
