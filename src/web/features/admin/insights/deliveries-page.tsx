// 'Entregas de provisionamento': the events sent to the chat platform (platform_events), newest first, with their
// delivery state; the admin home's 'Entregas de provisionamento com falha' opens it filtered to status=failed.
import { useQuery } from '@tanstack/react-query'
import { RotateCw } from 'lucide-react'
import type { PlatformEvent } from '@/domain/contracts/provisioning'
import { Badge } from '@/web/components/ui/badge'
import { Button } from '@/web/components/ui/button'
import { PageHeader } from '@/web/components/ui/page-header'
import type { Column } from '@/web/features/admin/shared/data-table'
import { FilterSelect, ListToolbar } from '@/web/features/admin/shared/list-toolbar'
import { PagedTable } from '@/web/features/admin/shared/paged-table'
import { useListParams } from '@/web/features/admin/shared/use-list-params'
import { formatDate } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { platformEventsQuery, useRetryPlatformEvent } from './api'

const filterKeys = ['status'] as const
const listDefaults = { sort: 'seq', dir: 'desc' } as const

const typeLabel: Record<PlatformEvent['type'], string> = {
  'subscription.activated': 'Ativação',
  'subscription.plan_changed': 'Troca de plano',
  'subscription.ended': 'Encerramento',
}

function stateOf(e: PlatformEvent): { label: string; variant: 'default' | 'secondary' | 'destructive' | 'outline' } {
  if (e.status === 'delivered') return { label: 'Entregue', variant: 'default' }
  if (e.status === 'skipped') return { label: 'Não enviada (sem plataforma configurada)', variant: 'outline' }
  if (e.attempts > 0) return { label: 'Com falha', variant: 'destructive' }
  return { label: 'Na fila', variant: 'secondary' }
}

function dateTime(iso: string): string {
  const time = new Date(iso).toLocaleTimeString('pt-BR', {
    timeZone: 'America/Sao_Paulo',
    hour: '2-digit',
    minute: '2-digit',
  })
  return `${formatDate(iso)} às ${time}`
}

export function AdminDeliveriesPage() {
  useDocumentTitle('Entregas de provisionamento')
  const list = useListParams(filterKeys, listDefaults)
  const { params } = list
  const query = useQuery(platformEventsQuery(list.apiQuery))
  const retry = useRetryPlatformEvent()

  const columns: Column<PlatformEvent>[] = [
    {
      id: 'event',
      header: 'Evento',
      cell: (e) => (
        <div className="flex flex-col">
          <span className="font-medium">{typeLabel[e.type]}</span>
          <span className="text-muted-foreground">{e.customerEmail}</span>
        </div>
      ),
    },
    {
      id: 'state',
      header: 'Situação',
      cell: (e) => {
        const state = stateOf(e)
        return (
          <Badge variant={state.variant} className="whitespace-nowrap">
            {state.label}
          </Badge>
        )
      },
    },
    {
      id: 'attempts',
      header: 'Tentativas',
      className: 'min-w-64',
      cell: (e) => (
        <div className="flex flex-col">
          <span>{e.attempts === 1 ? '1 tentativa' : `${e.attempts} tentativas`}</span>
          {e.lastError ? <span className="text-xs text-destructive">{e.lastError}</span> : null}
          {e.status === 'pending' ? (
            <span className="text-xs text-muted-foreground">Próxima: {dateTime(e.nextAttemptAt)}</span>
          ) : null}
        </div>
      ),
    },
    { id: 'created', header: 'Criado em', className: 'whitespace-nowrap', cell: (e) => dateTime(e.createdAt) },
    {
      id: 'actions',
      header: 'Ações',
      sticky: true,
      cell: (e) =>
        e.status === 'pending' && e.attempts > 0 ? (
          <Button
            variant="outline"
            size="sm"
            disabled={retry.isPending}
            onClick={() => retry.mutate(e.id)}
            aria-label={`Reenviar agora: ${typeLabel[e.type]} de ${e.customerEmail}`}
          >
            <RotateCw aria-hidden="true" />
            Reenviar agora
          </Button>
        ) : null,
    },
  ]

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Entregas de provisionamento"
        description="Eventos enviados à plataforma de atendimento (ativação, troca de plano, encerramento). Falhas são reenviadas automaticamente; 'Reenviar agora' antecipa a próxima tentativa."
      />
      <ListToolbar>
        <FilterSelect
          label="Situação"
          value={params.filters.status}
          onChange={(v) => list.setFilter('status', v)}
          options={[
            { value: 'failed', label: 'Com falha' },
            { value: 'pending', label: 'Pendentes (na fila ou com falha)' },
            { value: 'delivered', label: 'Entregues' },
            { value: 'skipped', label: 'Não enviadas' },
          ]}
        />
      </ListToolbar>
      <PagedTable
        list={list}
        query={query}
        label="Lista de entregas de provisionamento"
        columns={columns}
        rowKey={(e) => e.id}
        minWidth="min-w-[760px]"
      />
    </div>
  )
}
