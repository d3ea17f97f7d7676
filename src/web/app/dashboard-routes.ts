// The lazily loaded dashboard chunk: everything behind /dashboard.
export { DashboardLayout } from '../features/dashboard/dashboard-layout'
export { OverviewPage } from '../features/dashboard/overview-page'
