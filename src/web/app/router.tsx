import { createBrowserRouter, type RouteObject } from 'react-router'
import { RequireAdmin, RequireUser } from '../features/auth/guards'
import { LoginPage } from '../features/auth/login-page'
import { ForgotPasswordPage, ResetPasswordPage } from '../features/auth/password-pages'
import { SignupPage } from '../features/auth/signup-page'
import { RouteErrorScreen } from '../features/site/error-screen'
import { LandingPage } from '../features/site/landing-page'
import { PrivacyPolicyPage, TermsOfServicePage } from '../features/site/legal-pages'
import { NotFoundPage } from '../features/site/not-found-page'
import { PlansPage } from '../features/site/plans-page'
import { paths } from './paths'

/** Dashboard and admin screens are split into chunks that public pages never load. */
const dashboard = () => import('./dashboard-routes')

export const routes: RouteObject[] = [
  {
    errorElement: <RouteErrorScreen />,
    children: [
      { path: paths.home, element: <LandingPage /> },
      { path: paths.plans, element: <PlansPage /> },
      { path: paths.login, element: <LoginPage /> },
      { path: paths.signup, element: <SignupPage /> },
      { path: paths.forgotPassword, element: <ForgotPasswordPage /> },
      { path: paths.resetPassword, element: <ResetPasswordPage /> },
      { path: paths.privacy, element: <PrivacyPolicyPage /> },
      { path: paths.terms, element: <TermsOfServicePage /> },
      {
        path: paths.dashboard,
        element: <RequireUser />,
        children: [
          {
            lazy: async () => ({ Component: (await dashboard()).DashboardLayout }),
            children: [
              { index: true, lazy: async () => ({ Component: (await dashboard()).OverviewPage }) },
              {
                element: <RequireAdmin />,
                children: [],
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
