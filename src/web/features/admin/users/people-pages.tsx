import { PagedTable } from '@/web/features/admin/shared/paged-table'
import { useQuery } from '@tanstack/react-query'
import { Badge } from '@/web/components/ui/badge'
import { Button } from '@/web/components/ui/button'
import { PageHeader } from '@/web/components/ui/page-header'
import { formatDate } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { useSessionUser } from '@/web/lib/session'
import type { Column } from '@/web/features/admin/shared/data-table'
import { roleLabel } from '@/web/features/admin/shared/labels'
import { FilterSelect, ListToolbar, SearchBox } from '@/web/features/admin/shared/list-toolbar'
import { useListParams } from '@/web/features/admin/shared/use-list-params'
import { ExportCsvLink } from '@/web/features/admin/shared/export-csv-link'
import { type AdminUser, type PeopleKind, peopleQuery, useSetRole } from './api'
import { WhatsAppMessagesButton } from './whatsapp-messages-dialog'

const listDefaults = { sort: 'created_at', dir: 'desc' } as const
const userFilters = ['role'] as const
const noFilters = [] as const

/** Admin 'Clientes': the customer accounts (role user) and how many active subscriptions each has. */
export function CustomersPage() {
  useDocumentTitle('Clientes')
  return (
    <PeopleList
      kind="customers"
      title="Clientes"
      description="As contas de clientes, com as assinaturas ativas de cada um."
    />
  )
}

/** Admin 'Usuários': every account; admins grant or revoke the admin role here. */
export function UsersPage() {
  useDocumentTitle('Usuários')
  return (
    <PeopleList
      kind="users"
      title="Usuários"
      description="Todas as contas. Use 'Tornar Admin' e 'Remover Admin' para mudar as permissões."
    />
  )
}

function PeopleList({ kind, title, description }: { kind: PeopleKind; title: string; description: string }) {
  const list = useListParams<'role'>(kind === 'users' ? userFilters : noFilters, listDefaults)
  const { params } = list
  const query = useQuery(peopleQuery(kind, list.apiQuery))
  const setRole = useSetRole()
  const { user: me } = useSessionUser()

  const columns: Column<AdminUser>[] = [
    {
      id: 'name',
      header: 'Nome e empresa',
      sortKey: 'name',
      cell: (u) => (
        <div className="flex min-w-40 flex-col">
          <span className="font-medium">
            {u.name}
            {u.id === me?.id ? <span className="font-normal text-muted-foreground"> (você)</span> : null}
          </span>
          <span className="text-muted-foreground">{u.companyName || '—'}</span>
        </div>
      ),
    },
    {
      id: 'email',
      header: 'E-mail e WhatsApp',
      sortKey: 'email',
      className: 'whitespace-nowrap',
      cell: (u) => (
        <div className="flex flex-col">
          <span>{u.email}</span>
          <span className="text-muted-foreground">
            <span className="sr-only">WhatsApp: </span>
            {u.whatsappNumber || '—'}
          </span>
          {u.emailVerified ? null : <span className="text-xs text-muted-foreground">E-mail não confirmado</span>}
        </div>
      ),
    },
    {
      id: 'created',
      header: 'Criado em',
      sortKey: 'created_at',
      firstDir: 'desc',
      className: 'whitespace-nowrap',
      cell: (u) => formatDate(u.createdAt),
    },
    {
      id: 'role',
      header: 'Papel',
      cell: (u) => <Badge variant={u.roleId === 1 ? 'default' : 'outline'}>{roleLabel(u.roleId)}</Badge>,
    },
  ]
  if (kind === 'customers') {
    columns.push({
      id: 'active',
      header: 'Assinaturas ativas',
      className: 'text-center whitespace-nowrap',
      cell: (u) => u.activeSubscriptions,
    })
    columns.push({
      id: 'messages',
      header: 'WhatsApp',
      className: 'text-right',
      cell: (u) => <WhatsAppMessagesButton userId={u.id} name={u.name} />,
    })
  } else {
    columns.push({
      id: 'actions',
      header: 'Ações',
      className: 'text-right',
      sticky: true,
      cell: (u) => {
        const pending = setRole.isPending && setRole.variables?.user.id === u.id
        return u.roleId === 1 ? (
          <Button size="sm" variant="outline" disabled={pending} onClick={() => setRole.mutate({ user: u, roleId: 2 })}>
            Remover Admin
          </Button>
        ) : (
          <Button size="sm" disabled={pending} onClick={() => setRole.mutate({ user: u, roleId: 1 })}>
            Tornar Admin
          </Button>
        )
      },
    })
  }

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={title}
        description={description}
        actions={kind === 'customers' ? <ExportCsvLink list="customers" q={params.q} filters={{}} /> : undefined}
      />
      <ListToolbar>
        <SearchBox value={params.q} onSearch={list.setSearch} placeholder="Nome, e-mail ou empresa" />
        {kind === 'users' ? (
          <FilterSelect
            label="Papel"
            value={params.filters.role ?? ''}
            onChange={(v) => list.setFilter('role', v)}
            options={[
              { value: 'admin', label: 'Administrador' },
              { value: 'user', label: 'Cliente' },
            ]}
          />
        ) : null}
      </ListToolbar>
      <PagedTable
        list={list}
        query={query}
        label={kind === 'users' ? 'Lista de usuários' : 'Lista de clientes'}
        columns={columns}
        rowKey={(u) => u.id}
        minWidth="min-w-[900px]"
      />
    </div>
  )
}
