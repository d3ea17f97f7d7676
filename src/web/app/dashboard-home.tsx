// /dashboard: admins open on 'Visão geral do negócio' (its own lazily loaded chunk, charts included); customers keep
// their overview. An admin reaches their own subscription's overview under 'Minha assinatura'.
import { Suspense } from 'react'
import { Spinner } from '@/web/components/ui/states'
import { useSessionUser } from '@/web/lib/session'
import { OverviewPage } from '@/web/features/dashboard/overview-page'
import { lazyPage } from './lazy-page'

const AdminHomePage = lazyPage(
  () => import('@/web/features/admin/insights/admin-home-page'),
  (m) => m.AdminHomePage,
)

/** Before hydrating the server's HTML of /dashboard: an admin's home is in a chunk of its own. */
export function preloadDashboardHome(isAdmin: boolean): Promise<unknown> {
  return isAdmin ? AdminHomePage.preload() : Promise.resolve()
}

export function DashboardHome() {
  const { user } = useSessionUser()
  if (!user?.isAdmin) return <OverviewPage />
  return (
    <Suspense fallback={<Spinner label="Carregando indicadores…" />}>
      <AdminHomePage />
    </Suspense>
  )
}
