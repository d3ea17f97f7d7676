// The lazily loaded dashboard chunk: the guards, the layout and the overview (/dashboard's first load). Each other
// dashboard screen is a chunk of its own (router.tsx), so the first load does not carry every admin form.
import './class-merge'

export { RequireAdmin, RequireUser } from '@/web/features/auth/guards'
export { DashboardLayout } from '@/web/features/dashboard/dashboard-layout'
export { OverviewPage } from '@/web/features/dashboard/overview-page'
export { DashboardHome, preloadDashboardHome } from './dashboard-home'
