import { Suspense } from 'react'
import { type LazyPage, lazyPage } from './lazy-page'
import { PageHydrated } from './page-hydrated'
import { Route, Routes } from 'react-router'
import { LandingPage } from '@/web/features/site/landing-page'
import { NotFoundPage } from '@/web/features/site/not-found-page'
import { PlansPage } from '@/web/features/site/plans-page'
import { RouteErrorBoundary } from '@/web/features/site/error-screen'
import { paths } from './paths'

/**
 * Dashboard and admin screens (with their guards) are split into chunks that public pages never load; so are account
 * and legal pages, and the sign-in page alone (without the other account pages' form kit). Declarative routes with
 * React.lazy: the prerendered HTML of a lazy page stays on screen while its chunk arrives, then hydrates (the server
 * preloads the chunk, src/server/modules/site/prerender.ts).
 */
const dashboard = () => import('./dashboard-routes')
const login = () => import('./login-routes')
const account = () => import('./account-routes')
const legal = () => import('./legal-routes')

const LoginPage = lazyPage(login, (m) => m.LoginPage)
const SignupPage = lazyPage(account, (m) => m.SignupPage)
const ForgotPasswordPage = lazyPage(account, (m) => m.ForgotPasswordPage)
const ResetPasswordPage = lazyPage(account, (m) => m.ResetPasswordPage)
const PrivacyPolicyPage = lazyPage(legal, (m) => m.PrivacyPolicyPage)
const TermsOfServicePage = lazyPage(legal, (m) => m.TermsOfServicePage)
const RequireUser = lazyPage(dashboard, (m) => m.RequireUser)
const RequireAdmin = lazyPage(dashboard, (m) => m.RequireAdmin)
const DashboardLayout = lazyPage(dashboard, (m) => m.DashboardLayout)
const OverviewPage = lazyPage(dashboard, (m) => m.OverviewPage)
const DashboardHome = lazyPage(dashboard, (m) => m.DashboardHome)
const AccountPage = lazyPage(
  () => import('@/web/features/account/account-page'),
  (m) => m.AccountPage,
)
const MySubscriptionsPage = lazyPage(
  () => import('@/web/features/billing/my-subscriptions-page'),
  (m) => m.MySubscriptionsPage,
)
const SubscriptionsPage = lazyPage(
  () => import('@/web/features/billing/subscriptions-page'),
  (m) => m.SubscriptionsPage,
)
const PaymentsPage = lazyPage(
  () => import('@/web/features/billing/payments-page'),
  (m) => m.PaymentsPage,
)
const ReceiptPage = lazyPage(
  () => import('@/web/features/billing/receipt-page'),
  (m) => m.ReceiptPage,
)
const AdminSubscriptionsPage = lazyPage(
  () => import('@/web/features/admin/subscriptions/admin-subscriptions-page'),
  (m) => m.AdminSubscriptionsPage,
)
const AdminPaymentsPage = lazyPage(
  () => import('@/web/features/admin/payments/admin-payments-page'),
  (m) => m.AdminPaymentsPage,
)
const AdminDeliveriesPage = lazyPage(
  () => import('@/web/features/admin/insights/deliveries-page'),
  (m) => m.AdminDeliveriesPage,
)
const people = () => import('@/web/features/admin/users/people-pages')
const CustomersPage = lazyPage(people, (m) => m.CustomersPage)
const UsersPage = lazyPage(people, (m) => m.UsersPage)
const AdminPlansPage = lazyPage(
  () => import('@/web/features/admin/plans/admin-plans-page'),
  (m) => m.AdminPlansPage,
)
const SettingsPage = lazyPage(
  () => import('@/web/features/admin/settings/settings-page'),
  (m) => m.SettingsPage,
)

export function AppRoutes() {
  return (
    // The error screen replaces a page that failed to hydrate (its chunk did not load): React handles it from there.
    <RouteErrorBoundary withError={<PageHydrated />}>
      <Suspense fallback={null}>
        <Routes>
          <Route path={paths.home} element={<LandingPage />} />
          <Route path={paths.plans} element={<PlansPage />} />
          <Route path={paths.login} element={<LoginPage />} />
          <Route path={paths.signup} element={<SignupPage />} />
          <Route path={paths.forgotPassword} element={<ForgotPasswordPage />} />
          <Route path={paths.resetPassword} element={<ResetPasswordPage />} />
          <Route path={paths.privacy} element={<PrivacyPolicyPage />} />
          <Route path={paths.terms} element={<TermsOfServicePage />} />
          <Route path={paths.dashboard} element={<RequireUser />}>
            <Route element={<DashboardLayout />}>
              <Route index element={<DashboardHome />} />
              <Route path={paths.myOverview} element={<OverviewPage />} />
              <Route path={paths.account} element={<AccountPage />} />
              <Route path={paths.mySubscriptions} element={<MySubscriptionsPage />} />
              <Route path={paths.subscriptions} element={<SubscriptionsPage />} />
              <Route path={paths.payments} element={<PaymentsPage />} />
              <Route path={`${paths.payments}/:id/receipt`} element={<ReceiptPage />} />
              <Route element={<RequireAdmin />}>
                <Route path={paths.adminSubscriptions} element={<AdminSubscriptionsPage />} />
                <Route path={paths.adminPayments} element={<AdminPaymentsPage />} />
                <Route path={paths.adminDeliveries} element={<AdminDeliveriesPage />} />
                <Route path={paths.customers} element={<CustomersPage />} />
                <Route path={paths.adminPlans} element={<AdminPlansPage />} />
                <Route path={paths.users} element={<UsersPage />} />
                <Route path={paths.settings} element={<SettingsPage />} />
              </Route>
            </Route>
          </Route>
          <Route path="*" element={<NotFoundPage />} />
        </Routes>
        <PageHydrated />
      </Suspense>
    </RouteErrorBoundary>
  )
}

/** The lazy route module a path needs at first paint (the prerenderer preloads its chunk), if any. */
export function routeModuleFor(pathname: string): string | undefined {
  if (pathname === paths.dashboard || pathname.startsWith(`${paths.dashboard}/`)) return 'app/dashboard-routes.ts'
  if (pathname === paths.login) return 'app/login-routes.ts'
  if ([paths.signup, paths.forgotPassword, paths.resetPassword].includes(pathname as never))
    return 'app/account-routes.ts'
  if (pathname === paths.privacy || pathname === paths.terms) return 'app/legal-routes.ts'
  return undefined
}

/**
 * Loads the code of the page at `pathname` (before hydrating its prerendered HTML). The dashboard's home is rendered
 * by the server for the signed-in user (`isAdmin` picks which home).
 */
export async function preloadPage(pathname: string, isAdmin = false): Promise<void> {
  if (pathname.replace(/\/$/, '') === paths.dashboard) {
    await Promise.all([
      ...[RequireUser, DashboardLayout, DashboardHome].map((page) => page.preload()),
      dashboard().then((m) => m.preloadDashboardHome(isAdmin)),
    ])
    return
  }
  const pages: Record<string, LazyPage> = {
    [paths.login]: LoginPage,
    [paths.signup]: SignupPage,
    [paths.forgotPassword]: ForgotPasswordPage,
    [paths.resetPassword]: ResetPasswordPage,
    [paths.privacy]: PrivacyPolicyPage,
    [paths.terms]: TermsOfServicePage,
  }
  await pages[pathname]?.preload()
}

/** How the server serves a path: prerendered public page, the dashboard's empty shell, or the prerendered 404. */
export function pageKind(pathname: string): 'public' | 'dashboard' | 'not-found' {
  if (pathname === paths.dashboard || pathname.startsWith(`${paths.dashboard}/`)) return 'dashboard'
  const publicPaths: string[] = [
    paths.home,
    paths.plans,
    paths.login,
    paths.signup,
    paths.forgotPassword,
    paths.resetPassword,
    paths.privacy,
    paths.terms,
  ]
  return publicPaths.includes(pathname) ? 'public' : 'not-found'
}
