// /dashboard: admins open on 'Visão geral do negócio' (its own lazily loaded chunk, charts included); customers keep
// their overview. An admin reaches their own subscription's overview under 'Minha assinatura'.
import { lazy, Suspense } from 'react'
import { Spinner } from '@/web/components/ui/states'
import { useSessionUser } from '@/web/lib/session'
import { OverviewPage } from '@/web/features/dashboard/overview-page'

const AdminHomePage = lazy(async () => ({
  default: (await import('@/web/features/admin/insights/admin-home-page')).AdminHomePage,
}))

export function DashboardHome() {
  const { user } = useSessionUser()
  if (!user?.isAdmin) return <OverviewPage />
  return (
    <Suspense fallback={<Spinner label="Carregando indicadores…" />}>
      <AdminHomePage />
    </Suspense>
  )
}
