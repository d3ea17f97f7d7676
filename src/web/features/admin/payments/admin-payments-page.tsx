import { PagedTable } from '@/web/features/admin/shared/paged-table'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { paymentStatusBadge, paymentStatusLabel } from '@/domain/subscription-status'
import { Button } from '@/web/components/ui/button'
import { PageHeader } from '@/web/components/ui/page-header'
import { formatBRL, formatDate } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import type { Column } from '@/web/features/admin/shared/data-table'
import { openPaymentFilter } from '@/domain/admin-filters'
import { optionsOf, paymentMethodLabel, paymentTypeLabel } from '@/web/features/admin/shared/labels'
import { customerColumn, StatusCell, TwoLines } from '@/web/features/admin/shared/list-columns'
import { ListFilters } from '@/web/features/admin/shared/list-filters'
import { useListParams } from '@/web/features/admin/shared/use-list-params'
import { type AdminPayment, adminPaymentsQuery } from './api'
import { ConfirmPaymentDialog } from './confirm-payment-dialog'
import { ExportCsvLink } from '@/web/features/admin/shared/export-csv-link'
import { PixConfirmationCell, PixOverviewCard, RefundDialog, refundLabelOf } from './pix-api-parts'

const filterKeys = ['status', 'method', 'due'] as const
const listDefaults = { sort: 'created_at', dir: 'desc' } as const

/** Admin 'Pagamentos': every invoice; pending PIX ones are confirmed here once the money is in the account. */
export function AdminPaymentsPage() {
  useDocumentTitle('Pagamentos')
  const list = useListParams(filterKeys, listDefaults)
  const { params } = list
  const query = useQuery(adminPaymentsQuery(list.apiQuery))
  const [confirming, setConfirming] = useState<AdminPayment | null>(null)
  const [refunding, setRefunding] = useState<AdminPayment | null>(null)

  const columns: Column<AdminPayment>[] = [
    customerColumn(),
    {
      id: 'plan',
      header: 'Plano',
      className: 'whitespace-nowrap',
      cell: (p) => (
        <TwoLines
          first={p.targetPlan && p.targetPlan.id !== p.plan.id ? `${p.plan.name} → ${p.targetPlan.name}` : p.plan.name}
          second={paymentTypeLabel[p.type]}
        />
      ),
    },
    {
      id: 'amount',
      header: 'Valor',
      sortKey: 'amount',
      firstDir: 'desc',
      className: 'whitespace-nowrap',
      cell: (p) => (
        <div className="flex flex-col">
          <span className="font-medium">{formatBRL(p.amountCents)}</span>
          <span className="text-muted-foreground">{paymentMethodLabel[p.paymentMethod]}</span>
          {p.amountReceivedCents !== null && p.amountReceivedCents !== p.amountCents ? (
            <span className="text-xs text-destructive">Recebido: {formatBRL(p.amountReceivedCents)}</span>
          ) : null}
        </div>
      ),
    },
    {
      id: 'status',
      header: 'Status',
      cell: (p) => (
        <StatusCell
          variant={paymentStatusBadge[p.status]}
          label={paymentStatusLabel[p.status]}
          note={refundLabelOf(p) ? <span className="text-xs text-destructive">{refundLabelOf(p)}</span> : null}
        />
      ),
    },
    { id: 'pix', header: 'PIX', className: 'min-w-64', cell: (p) => <PixConfirmationCell payment={p} /> },
    {
      id: 'due',
      header: 'Vencimento',
      sortKey: 'due_date',
      firstDir: 'desc',
      className: 'whitespace-nowrap',
      cell: (p) => formatDate(p.dueDate),
    },
    {
      id: 'actions',
      header: 'Ações',
      className: 'text-right',
      sticky: true,
      cell: (p) =>
        p.status === 'pending_pix' ? (
          <Button size="sm" onClick={() => setConfirming(p)}>
            Confirmar
          </Button>
        ) : p.status === 'paid' &&
          p.pixConfirmedVia === 'api_pix' &&
          p.refundedCents < (p.amountReceivedCents ?? p.amountCents) ? (
          <Button size="sm" variant="outline" onClick={() => setRefunding(p)}>
            Devolver
          </Button>
        ) : (
          <span className="text-muted-foreground">—</span>
        ),
    },
  ]

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Pagamentos"
        description="Todas as faturas. Confirme os pagamentos PIX depois de conferir o extrato."
        actions={<ExportCsvLink list="payments" q={params.q} filters={params.filters} />}
      />
      <PixOverviewCard />
      <ListFilters
        list={list}
        searchPlaceholder="Nome ou e-mail do cliente"
        filters={[
          {
            key: 'status',
            label: 'Status',
            options: [{ value: openPaymentFilter, label: 'Em aberto (a receber)' }, ...optionsOf(paymentStatusLabel)],
          },
          { key: 'method', label: 'Método', options: optionsOf(paymentMethodLabel) },
          {
            key: 'due',
            label: 'Vencimento',
            options: [
              { value: 'due', label: 'Em aberto, a vencer' },
              { value: 'overdue', label: 'Em aberto, vencidas' },
            ],
          },
        ]}
      />
      <PagedTable
        list={list}
        query={query}
        label="Lista de pagamentos"
        columns={columns}
        rowKey={(p) => p.id}
        minWidth="min-w-[1000px]"
      />
      <ConfirmPaymentDialog payment={confirming} onOpenChange={(open) => !open && setConfirming(null)} />
      <RefundDialog payment={refunding} onOpenChange={(open) => !open && setRefunding(null)} />
    </div>
  )
}
