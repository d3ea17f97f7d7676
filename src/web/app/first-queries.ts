import type { SessionUser } from '@/domain/contracts/auth'
import { adminInsightsQuery, adminInsightsUrl } from '@/web/features/admin/insights/api'
import {
  overviewReads,
  paymentsQuery,
  paymentsUrl,
  subscriptionsQuery,
  subscriptionsUrl,
} from '@/web/shared/billing/api'
import { paths } from './paths'

/** An API read a page makes on its first render: the query's key and the GET it answers. */
export type FirstQuery = { key: readonly unknown[]; url: string }

/**
 * The reads the dashboard's home makes on its first render, for the server to answer inside the page's HTML
 * (src/server/modules/site/prerender.ts): an admin's business overview, a customer's current subscription and open
 * invoices, exactly as overview-page.tsx and admin-home-page.tsx ask for them. Other pages: none (they load in the
 * browser).
 */
export function firstQueriesFor(pathname: string, user: SessionUser): FirstQuery[] {
  if (pathname.replace(/\/$/, '') !== paths.dashboard) return []
  if (user.isAdmin) return [{ key: adminInsightsQuery.queryKey, url: adminInsightsUrl }]
  const { subscriptions, payments } = overviewReads
  return [
    { key: subscriptionsQuery(subscriptions).queryKey, url: subscriptionsUrl(subscriptions) },
    { key: paymentsQuery(payments).queryKey, url: paymentsUrl(payments) },
  ]
}
