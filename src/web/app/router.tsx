import { createBrowserRouter, type RouteObject } from 'react-router'
import { RequireAdmin, RequireUser } from '@/web/features/auth/guards'
import { RouteErrorScreen } from '@/web/features/site/error-screen'
import { LandingPage } from '@/web/features/site/landing-page'
import { NotFoundPage } from '@/web/features/site/not-found-page'
import { PlansPage } from '@/web/features/site/plans-page'
import { paths } from './paths'

/** Dashboard and admin screens are split into chunks that public pages never load; so are account and legal pages. */
const dashboard = () => import('./dashboard-routes')
const account = () => import('./account-routes')
const legal = () => import('./legal-routes')

export const routes: RouteObject[] = [
  {
    errorElement: <RouteErrorScreen />,
    children: [
      { path: paths.home, element: <LandingPage /> },
      { path: paths.plans, element: <PlansPage /> },
      { path: paths.login, lazy: async () => ({ Component: (await account()).LoginPage }) },
      { path: paths.signup, lazy: async () => ({ Component: (await account()).SignupPage }) },
      { path: paths.forgotPassword, lazy: async () => ({ Component: (await account()).ForgotPasswordPage }) },
      { path: paths.resetPassword, lazy: async () => ({ Component: (await account()).ResetPasswordPage }) },
      { path: paths.privacy, lazy: async () => ({ Component: (await legal()).PrivacyPolicyPage }) },
      { path: paths.terms, lazy: async () => ({ Component: (await legal()).TermsOfServicePage }) },
      {
        path: paths.dashboard,
        element: <RequireUser />,
        children: [
          {
            lazy: async () => ({ Component: (await dashboard()).DashboardLayout }),
            children: [
              { index: true, lazy: async () => ({ Component: (await dashboard()).DashboardHome }) },
              { path: paths.myOverview, lazy: async () => ({ Component: (await dashboard()).OverviewPage }) },
              { path: paths.account, lazy: async () => ({ Component: (await dashboard()).AccountPage }) },
              {
                path: paths.mySubscriptions,
                lazy: async () => ({ Component: (await dashboard()).MySubscriptionsPage }),
              },
              { path: paths.subscriptions, lazy: async () => ({ Component: (await dashboard()).SubscriptionsPage }) },
              { path: paths.payments, lazy: async () => ({ Component: (await dashboard()).PaymentsPage }) },
              {
                path: `${paths.payments}/:id/receipt`,
                lazy: async () => ({ Component: (await dashboard()).ReceiptPage }),
              },
              {
                element: <RequireAdmin />,
                children: [
                  {
                    path: paths.adminSubscriptions,
                    lazy: async () => ({ Component: (await dashboard()).AdminSubscriptionsPage }),
                  },
                  {
                    path: paths.adminPayments,
                    lazy: async () => ({ Component: (await dashboard()).AdminPaymentsPage }),
                  },
                  { path: paths.customers, lazy: async () => ({ Component: (await dashboard()).CustomersPage }) },
                  { path: paths.adminPlans, lazy: async () => ({ Component: (await dashboard()).AdminPlansPage }) },
                  { path: paths.users, lazy: async () => ({ Component: (await dashboard()).UsersPage }) },
                  { path: paths.settings, lazy: async () => ({ Component: (await dashboard()).SettingsPage }) },
                ],
              },
            ],
          },
        ],
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]

export function createRouter() {
  return createBrowserRouter(routes)
}
