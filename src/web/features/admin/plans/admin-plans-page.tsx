import { useQuery } from '@tanstack/react-query'
import { Plus } from 'lucide-react'
import { useState } from 'react'
import type { Plan } from '@/domain/contracts/plans'
import { Badge } from '@/web/components/ui/badge'
import { Button } from '@/web/components/ui/button'
import { PageHeader } from '@/web/components/ui/page-header'
import { ApiError } from '@/web/lib/api'
import { formatBRL } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { ConfirmDialog } from '@/web/features/admin/shared/confirm-dialog'
import { type Column, DataTable } from '@/web/features/admin/shared/data-table'
import { ListView } from '@/web/features/admin/shared/list-view'
import { adminPlansQuery, useDeletePlan, useSetPlanActive } from './api'
import { PlanFormDialog } from './plan-form-dialog'

/** Admin 'Planos': every plan (inactive ones too), create, edit, delete (or deactivate a plan in use). */
export function AdminPlansPage() {
  useDocumentTitle('Planos')
  const plans = useQuery(adminPlansQuery())
  const [editing, setEditing] = useState<Plan | null>(null)
  const [formOpen, setFormOpen] = useState(false)
  const [deleting, setDeleting] = useState<Plan | null>(null)
  const remove = useDeletePlan()
  const setActive = useSetPlanActive()

  const inUse = remove.error instanceof ApiError && remove.error.code === 'plan_in_use' ? remove.error : null

  function openDelete(plan: Plan) {
    remove.reset()
    setDeleting(plan)
  }

  const columns: Column<Plan>[] = [
    {
      id: 'name',
      header: 'Plano',
      className: 'min-w-48',
      cell: (p) => (
        <div className="flex flex-col gap-1">
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-medium">{p.name}</span>
            {p.popular ? <Badge>Popular</Badge> : null}
            {p.active ? null : <Badge variant="outline">Inativo</Badge>}
          </div>
          <span className="font-mono text-xs text-muted-foreground">{p.id}</span>
        </div>
      ),
    },
    {
      id: 'description',
      header: 'Descrição',
      className: 'max-w-xs',
      cell: (p) => <span className="line-clamp-2 text-muted-foreground">{p.description || '—'}</span>,
    },
    { id: 'price', header: 'Preço', className: 'whitespace-nowrap', cell: (p) => `${formatBRL(p.priceCents)}/mês` },
    { id: 'boxes', header: 'Caixas', className: 'text-center', cell: (p) => p.boxQuantity },
    { id: 'agents', header: 'Atendentes', className: 'text-center', cell: (p) => p.agentQuantity },
    { id: 'features', header: 'Recursos', className: 'text-center', cell: (p) => p.features.length },
    {
      id: 'actions',
      header: 'Ações',
      className: 'text-right',
      sticky: true,
      cell: (p) => (
        <div className="flex justify-end gap-2">
          <Button
            size="sm"
            variant="outline"
            onClick={() => {
              setEditing(p)
              setFormOpen(true)
            }}
          >
            Editar
          </Button>
          <Button size="sm" variant="destructive" onClick={() => openDelete(p)}>
            Excluir
          </Button>
        </div>
      ),
    },
  ]

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Planos"
        description="Os planos à venda, do mais barato ao mais caro. Planos inativos ficam fora da página de planos."
        actions={
          <Button
            onClick={() => {
              setEditing(null)
              setFormOpen(true)
            }}
          >
            <Plus aria-hidden="true" />
            Novo plano
          </Button>
        }
      />
      <ListView query={plans} isEmpty={(list) => list.length === 0}>
        {(list) => (
          <DataTable
            label="Lista de planos"
            columns={columns}
            rows={list}
            rowKey={(p) => p.id}
            minWidth="min-w-[860px]"
          />
        )}
      </ListView>
      <PlanFormDialog key={editing?.id ?? 'new'} open={formOpen} onOpenChange={setFormOpen} plan={editing} />
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title="Excluir plano?"
        description={deleting ? `O plano ${deleting.name} (${deleting.id}) será excluído definitivamente.` : ''}
        confirmLabel="Excluir plano"
        pending={remove.isPending || setActive.isPending}
        onConfirm={() => {
          if (deleting) remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })
        }}
        footer={
          inUse && deleting ? (
            <>
              <Button variant="outline" onClick={() => setDeleting(null)} disabled={setActive.isPending}>
                Voltar
              </Button>
              {deleting.active ? (
                <Button
                  disabled={setActive.isPending}
                  onClick={() =>
                    setActive.mutate({ plan: deleting, active: false }, { onSuccess: () => setDeleting(null) })
                  }
                >
                  Desativar
                </Button>
              ) : null}
            </>
          ) : undefined
        }
      >
        {inUse ? (
          <p role="alert" className="rounded-md border border-destructive/40 bg-destructive/5 p-3 text-sm">
            {inUse.detail}
          </p>
        ) : null}
      </ConfirmDialog>
    </div>
  )
}
