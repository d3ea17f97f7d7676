import { PagedTable } from '@/web/features/admin/shared/paged-table'
import { useQuery } from '@tanstack/react-query'
import { Plus } from 'lucide-react'
import { useState } from 'react'
import { payingStatusFilter } from '@/domain/admin-filters'
import { subscriptionStatusBadge, subscriptionStatusLabel, subscriptionStatuses } from '@/domain/subscription-status'
import { Badge } from '@/web/components/ui/badge'
import { Button } from '@/web/components/ui/button'
import { PageHeader } from '@/web/components/ui/page-header'
import { formatBRL, formatDate } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { useSiteConfig } from '@/web/lib/site-config'
import { adminPlansQuery } from '@/web/features/admin/plans/api'
import { ConfirmDialog } from '@/web/features/admin/shared/confirm-dialog'
import type { Column } from '@/web/features/admin/shared/data-table'
import { billingMethodLabel, optionsOf } from '@/web/features/admin/shared/labels'
import { FilterSelect, ListToolbar, MonthFilter, SearchBox } from '@/web/features/admin/shared/list-toolbar'
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
    {
      id: 'customer',
      header: 'Cliente',
      className: 'whitespace-nowrap',
      cell: (s) => (
        <div className="flex flex-col">
          <span className="font-medium">{s.customer.name}</span>
          <span className="text-muted-foreground">{s.customer.email}</span>
        </div>
      ),
    },
    {
      id: 'plan',
      header: 'Plano',
      className: 'whitespace-nowrap',
      cell: (s) => (
        <div className="flex flex-col">
          <span>{s.plan.name}</span>
          <span className="text-muted-foreground">
            {formatBRL(s.plan.priceCents)}/mês · {billingMethodLabel[s.billingMethod]}
          </span>
        </div>
      ),
    },
    {
      id: 'status',
      header: 'Status',
      sortKey: 'status',
      cell: (s) => (
        <div className="flex flex-col items-start gap-1">
          <Badge variant={subscriptionStatusBadge[s.status]} className="whitespace-nowrap">
            {subscriptionStatusLabel[s.status]}
          </Badge>
          {s.cancelAtPeriodEnd && s.status !== 'canceled' ? (
            <span className="text-xs text-muted-foreground">Cancela no fim do período</span>
          ) : null}
        </div>
      ),
    },
    {
      id: 'period',
      header: 'Período',
      sortKey: 'current_period_end',
      firstDir: 'desc',
      className: 'whitespace-nowrap',
      cell: (s) => (
        <div className="flex flex-col">
          <span>{formatDate(s.currentPeriodStart)}</span>
          <span className="text-muted-foreground">a {formatDate(s.currentPeriodEnd)}</span>
        </div>
      ),
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
      <ListToolbar>
        <SearchBox value={params.q} onSearch={list.setSearch} placeholder="Nome ou e-mail do cliente" />
        <FilterSelect
          label="Status"
          value={params.filters.status}
          onChange={(v) => list.setFilter('status', v)}
          options={[
            { value: payingStatusFilter, label: 'Pagantes (ativas e vencidas)' },
            ...subscriptionStatuses.map((s) => ({ value: s, label: subscriptionStatusLabel[s] })),
          ]}
        />
        <FilterSelect
          label="Cobrança"
          value={params.filters.method}
          onChange={(v) => list.setFilter('method', v)}
          options={optionsOf(billingMethodLabel)}
        />
        <FilterSelect
          label="Cancelamento"
          value={params.filters.cancel}
          onChange={(v) => list.setFilter('cancel', v)}
          options={[{ value: 'scheduled', label: 'Agendado para o fim do período' }]}
        />
        <MonthFilter
          label="Fim do período"
          value={params.filters.periodEnd}
          onChange={(v) => list.setFilter('periodEnd', v)}
        />
        <FilterSelect
          label="Plano"
          value={params.filters.planId}
          onChange={(v) => list.setFilter('planId', v)}
          options={(plans.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
        />
      </ListToolbar>
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
