// The lazily loaded dashboard chunk: the guards, the layout and the overview (/dashboard's first load). Each other
// dashboard screen is a chunk of its own (router.tsx), so the first load does not carry every admin form.
import './class-merge'

export { RequireAdmin, RequireUser } from '../features/auth/guards'
export { DashboardLayout } from '../features/dashboard/dashboard-layout'
export { OverviewPage } from '../features/dashboard/overview-page'
