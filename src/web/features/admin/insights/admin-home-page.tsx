// 'Visão geral do negócio': the admin's /dashboard. Loaded as its own chunk (React.lazy in dashboard-home.tsx),
// so its charts cost customers nothing. Every figure links to the admin list it counts: the filters are
// adminHomeFilters (src/domain/admin-filters.ts), and insights-links.routes.test.ts asserts each list's total equals
// the figure.
import { useQuery } from '@tanstack/react-query'
import { AlertTriangle } from 'lucide-react'
import type * as React from 'react'
import { Link } from 'react-router'
import { adminHomeFilters } from '@/domain/admin-filters'
import type { AdminInsights } from '@/domain/contracts/insights'
import { paths } from '@/web/app/paths'
import { Card, CardContent, CardHeader } from '@/web/components/ui/card'
import { PageHeader } from '@/web/components/ui/page-header'
import { QueryState } from '@/web/components/query-state'
import { cn } from '@/web/lib/cn'
import { formatBRL, formatDate } from '@/web/lib/format'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { adminInsightsQuery } from './api'
import { MonthlyChart } from './charts'

const colors = {
  new: '#2563eb',
  expansion: '#16a34a',
  reactivated: '#0e7490',
  contraction: '#d97706',
  churned: '#dc2626',
  net: '#111827',
  pix: '#0d9488',
  card: '#7c3aed',
  manual: '#64748b',
}

/** PIX invoices older than this are shown in red. */
const lateHours = 12

export function AdminHomePage() {
  useDocumentTitle('Visão geral do negócio')
  const query = useQuery(adminInsightsQuery)
  return (
    <div className="flex flex-col gap-8">
      <PageHeader
        title="Visão geral do negócio"
        description="Receita recorrente, recebíveis e o que precisa de você agora."
      />
      <QueryState query={query} loadingLabel="Carregando indicadores…">
        {(data) => <Home data={data} />}
      </QueryState>
    </div>
  )
}

function list(path: string, params: Readonly<Record<string, string>>): string {
  const search = new URLSearchParams(params).toString()
  return search ? `${path}?${search}` : path
}

function percent(part: number, whole: number): string {
  if (whole <= 0) return '0%'
  return `${new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 1 }).format((part / whole) * 100)}%`
}

function formatRate(rate: number): string {
  return `${new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 1 }).format(rate * 100)}%`
}

function formatAge(seconds: number): string {
  const hours = Math.floor(seconds / 3600)
  if (hours >= 48) return `há ${Math.floor(hours / 24)} dias`
  if (hours >= 1) return `há ${hours} h`
  return `há ${Math.max(1, Math.floor(seconds / 60))} min`
}

function formatHours(hours: number): string {
  return `${new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 1 }).format(hours)} h`
}

const hoursOf = (seconds: number | null) => (seconds === null ? null : seconds / 3600)

/** Axis labels: R$ in thousands when large. */
function compactBRL(cents: number): string {
  const reais = cents / 100
  if (Math.abs(reais) >= 1000)
    return `R$ ${new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 1 }).format(reais / 1000)} mil`
  return `R$ ${new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 0 }).format(reais)}`
}

function Stat({
  label,
  value,
  to,
  children,
  tone,
}: {
  label: string
  value: string
  to: string
  children?: React.ReactNode
  tone?: 'danger'
}) {
  return (
    <Card className="flex flex-col">
      <CardHeader className="gap-1 p-4">
        <Link
          to={to}
          className="flex flex-col gap-1 rounded-sm hover:underline focus-visible:outline-2 focus-visible:outline-offset-2"
        >
          <span className="text-sm text-muted-foreground">{label}</span>
          <span className={cn('text-2xl font-bold tabular-nums', tone === 'danger' && 'text-destructive')}>
            {value}
          </span>
        </Link>
      </CardHeader>
      {children ? <CardContent className="p-4 pt-0 text-sm">{children}</CardContent> : null}
    </Card>
  )
}

function Home({ data }: { data: AdminInsights }) {
  const { current, needsYou } = data
  const pix = current.byMethod.find((m) => m.method === 'pix') ?? { count: 0, mrrCents: 0 }
  const card = current.byMethod.find((m) => m.method === 'card') ?? { count: 0, mrrCents: 0 }
  const paying = pix.count + card.count
  const months = data.months.map((m) => m.month)

  return (
    <>
      <section aria-labelledby="agora" className="flex flex-col gap-3">
        <h2 id="agora" className="text-lg font-semibold">
          Agora
        </h2>
        <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
          <Stat
            label="MRR (receita recorrente mensal)"
            value={formatBRL(current.mrrCents)}
            to={list(paths.adminSubscriptions, adminHomeFilters.paying)}
          >
            <span className="text-muted-foreground">{paying} assinaturas pagantes (ativas e vencidas)</span>
          </Stat>
          <Card>
            <CardHeader className="gap-2 p-4">
              <h3 className="text-sm text-muted-foreground">Assinaturas ativas por plano</h3>
              {current.byPlan.length === 0 ? (
                <p className="text-sm">Nenhuma assinatura ativa.</p>
              ) : (
                <ul className="flex flex-col gap-1 text-sm">
                  {current.byPlan.map((p) => (
                    <li key={p.planId} className="flex justify-between gap-2">
                      <Link
                        to={list(paths.adminSubscriptions, adminHomeFilters.plan(p.planId))}
                        className="underline-offset-2 hover:underline"
                      >
                        {p.planName}: <span className="font-semibold tabular-nums">{p.count}</span>
                      </Link>
                      <span className="tabular-nums text-muted-foreground">{formatBRL(p.mrrCents)}</span>
                    </li>
                  ))}
                </ul>
              )}
            </CardHeader>
          </Card>
          <Stat
            label="PIX × Cartão"
            value={`${percent(pix.count, paying)} PIX`}
            to={list(paths.adminSubscriptions, adminHomeFilters.method('pix'))}
          >
            <span className="text-muted-foreground">
              <Link
                to={list(paths.adminSubscriptions, adminHomeFilters.method('pix'))}
                className="underline-offset-2 hover:underline"
              >
                PIX: {pix.count} ({formatBRL(pix.mrrCents)})
              </Link>{' '}
              ·{' '}
              <Link
                to={list(paths.adminSubscriptions, adminHomeFilters.method('card'))}
                className="underline-offset-2 hover:underline"
              >
                Cartão: {card.count} ({formatBRL(card.mrrCents)})
              </Link>
            </span>
          </Stat>
          <Stat
            label="Recebíveis em aberto"
            value={formatBRL(current.receivables.totalCents)}
            to={list(paths.adminPayments, adminHomeFilters.receivables)}
          >
            <span className="text-muted-foreground">
              {current.receivables.count} {current.receivables.count === 1 ? 'fatura' : 'faturas'} ·{' '}
              <Link
                to={list(paths.adminPayments, adminHomeFilters.receivablesDue)}
                className="underline-offset-2 hover:underline"
              >
                a vencer: {current.receivables.dueCount} ({formatBRL(current.receivables.dueCents)})
              </Link>{' '}
              ·{' '}
              <Link
                to={list(paths.adminPayments, adminHomeFilters.receivablesOverdue)}
                className={cn(
                  'underline-offset-2 hover:underline',
                  current.receivables.overdueCount > 0 && 'text-destructive',
                )}
              >
                vencidas: {current.receivables.overdueCount} ({formatBRL(current.receivables.overdueCents)})
              </Link>
            </span>
          </Stat>
          <Stat
            label="Assinaturas vencidas (past_due)"
            value={String(current.pastDue)}
            to={list(paths.adminSubscriptions, adminHomeFilters.pastDue)}
            tone={current.pastDue > 0 ? 'danger' : undefined}
          />
          <Stat
            label="Cancelamentos agendados este mês"
            value={String(current.cancellationsThisMonth)}
            to={list(paths.adminSubscriptions, adminHomeFilters.cancellations(new Date(data.now)))}
          />
        </div>
      </section>

      <section aria-labelledby="precisa" className="flex flex-col gap-3">
        <h2 id="precisa" className="text-lg font-semibold">
          Precisa de você
        </h2>
        <div className="grid gap-3 lg:grid-cols-3">
          <Card>
            <CardHeader className="gap-2 p-4">
              <Link
                to={list(paths.adminPayments, adminHomeFilters.pixAwaiting)}
                className="flex flex-col gap-1 hover:underline"
              >
                <span className="text-sm text-muted-foreground">PIX aguardando confirmação</span>
                <span className="text-2xl font-bold tabular-nums">{needsYou.pixAwaiting.count}</span>
              </Link>
              {needsYou.pixAwaiting.oldest.length > 0 ? (
                <ul className="flex flex-col gap-1 text-sm" aria-label="Mais antigos primeiro">
                  {needsYou.pixAwaiting.oldest.map((w) => {
                    const late = w.ageSeconds > lateHours * 3600
                    return (
                      <li key={w.id} className="flex justify-between gap-2">
                        <span className="min-w-0 truncate">{w.customerName}</span>
                        <span className={cn('shrink-0 tabular-nums', late && 'font-semibold text-destructive')}>
                          {formatBRL(w.amountCents)} · {formatAge(w.ageSeconds)}
                          {late ? (
                            <>
                              {' '}
                              <AlertTriangle className="inline size-3.5" aria-hidden="true" />
                              <span className="sr-only"> (mais de {lateHours} horas)</span>
                            </>
                          ) : null}
                        </span>
                      </li>
                    )
                  })}
                </ul>
              ) : null}
            </CardHeader>
          </Card>
          <Stat
            label="Pagamentos em análise"
            value={String(needsYou.inReview.count)}
            to={list(paths.adminPayments, adminHomeFilters.inReview)}
            tone={needsYou.inReview.count > 0 ? 'danger' : undefined}
          >
            {needsYou.inReview.oldest.length > 0 ? (
              <ul className="flex flex-col gap-1">
                {needsYou.inReview.oldest.slice(0, 5).map((w) => (
                  <li key={w.id} className="flex justify-between gap-2">
                    <span className="min-w-0 truncate">{w.customerName}</span>
                    <span className="shrink-0 tabular-nums">{formatBRL(w.amountCents)}</span>
                  </li>
                ))}
              </ul>
            ) : null}
          </Stat>
          <Card>
            <CardHeader className="gap-2 p-4">
              <Link
                to={list(paths.adminDeliveries, adminHomeFilters.failedDeliveries)}
                className="flex flex-col gap-1 hover:underline"
              >
                <span className="text-sm text-muted-foreground">Entregas de provisionamento com falha</span>
                <span
                  className={cn(
                    'text-2xl font-bold tabular-nums',
                    needsYou.failedDeliveries.count > 0 && 'text-destructive',
                  )}
                >
                  {needsYou.failedDeliveries.count}
                </span>
              </Link>
              {needsYou.failedDeliveries.oldest.length > 0 ? (
                <ul className="flex flex-col gap-1 text-sm">
                  {needsYou.failedDeliveries.oldest.slice(0, 5).map((f) => (
                    <li key={f.id} className="flex flex-col">
                      <span>
                        {f.type} · {f.attempts} tentativas · desde {formatDate(f.createdAt)}
                      </span>
                      {f.lastError ? <span className="truncate text-muted-foreground">{f.lastError}</span> : null}
                    </li>
                  ))}
                </ul>
              ) : null}
            </CardHeader>
          </Card>
        </div>
      </section>

      <section aria-labelledby="tempo" className="flex flex-col gap-3">
        <div className="flex flex-col gap-1">
          <h2 id="tempo" className="text-lg font-semibold">
            Últimos 12 meses
          </h2>
          {data.refreshedAt ? (
            <p className="text-sm text-muted-foreground">
              Calculado em {formatDate(data.refreshedAt)} às{' '}
              {new Date(data.refreshedAt).toLocaleTimeString('pt-BR', {
                timeZone: 'America/Sao_Paulo',
                hour: '2-digit',
                minute: '2-digit',
              })}
            </p>
          ) : null}
        </div>
        <div className="grid gap-4 lg:grid-cols-2">
          <Card>
            <CardContent className="p-4">
              <MonthlyChart
                title="Movimentos de MRR"
                months={months}
                format={formatBRL}
                axisFormat={compactBRL}
                bars={[
                  { key: 'new', label: 'Novos', color: colors.new, values: data.months.map((m) => m.newCents) },
                  {
                    key: 'expansion',
                    label: 'Expansão',
                    color: colors.expansion,
                    values: data.months.map((m) => m.expansionCents),
                  },
                  {
                    key: 'reactivated',
                    label: 'Reativação',
                    color: colors.reactivated,
                    values: data.months.map((m) => m.reactivatedCents),
                  },
                  {
                    key: 'contraction',
                    label: 'Contração',
                    color: colors.contraction,
                    values: data.months.map((m) => -m.contractionCents),
                  },
                  {
                    key: 'churned',
                    label: 'Cancelamentos',
                    color: colors.churned,
                    values: data.months.map((m) => -m.churnedCents),
                  },
                ]}
                lines={[
                  { key: 'net', label: 'MRR líquido', color: colors.net, values: data.months.map((m) => m.netCents) },
                ]}
              />
            </CardContent>
          </Card>
          <Card>
            <CardContent className="p-4">
              <MonthlyChart
                title="Churn de clientes e de receita"
                months={months}
                format={formatRate}
                lines={[
                  {
                    key: 'logo',
                    label: 'Churn de clientes',
                    color: colors.churned,
                    values: data.months.map((m) => m.logoChurnRate),
                  },
                  {
                    key: 'revenue',
                    label: 'Churn de receita',
                    color: colors.contraction,
                    values: data.months.map((m) => m.revenueChurnRate),
                  },
                ]}
              />
            </CardContent>
          </Card>
          <Card>
            <CardContent className="p-4">
              <MonthlyChart
                title="Receita recebida por meio de pagamento"
                months={months}
                format={formatBRL}
                axisFormat={compactBRL}
                bars={[
                  { key: 'pix', label: 'PIX', color: colors.pix, values: data.months.map((m) => m.revenuePixCents) },
                  {
                    key: 'card',
                    label: 'Cartão',
                    color: colors.card,
                    values: data.months.map((m) => m.revenueCardCents),
                  },
                  {
                    key: 'manual',
                    label: 'Confirmação manual',
                    color: colors.manual,
                    values: data.months.map((m) => m.revenueManualCents),
                  },
                ]}
              />
            </CardContent>
          </Card>
          <Card>
            <CardContent className="p-4">
              <MonthlyChart
                title="Tempo de confirmação PIX (p50 e p95)"
                months={months}
                format={formatHours}
                lines={[
                  {
                    key: 'manual50',
                    label: 'Manual p50',
                    color: colors.manual,
                    values: data.months.map((m) => hoursOf(m.pixManualP50Seconds)),
                  },
                  {
                    key: 'manual95',
                    label: 'Manual p95',
                    color: colors.churned,
                    values: data.months.map((m) => hoursOf(m.pixManualP95Seconds)),
                  },
                  {
                    key: 'auto50',
                    label: 'Automático (API Pix) p50',
                    color: colors.pix,
                    values: data.months.map((m) => hoursOf(m.pixAutoP50Seconds)),
                  },
                  {
                    key: 'auto95',
                    label: 'Automático (API Pix) p95',
                    color: colors.new,
                    values: data.months.map((m) => hoursOf(m.pixAutoP95Seconds)),
                  },
                ]}
              />
            </CardContent>
          </Card>
        </div>
      </section>
    </>
  )
}
