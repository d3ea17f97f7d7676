import type { QueryClient } from '@tanstack/react-query'
import type { SessionUser } from '@/domain/contracts/auth'
import type { Plan } from '@/domain/contracts/plans'
import type { SiteConfig } from '@/domain/contracts/site'
import { sessionQuery } from '@/web/lib/session'
import { publicPlansQuery } from '@/web/shared/plans-query'
import { siteConfigQuery } from '@/web/lib/site-config'

/**
 * What the server puts in the page next to the prerendered HTML (src/server/modules/site/prerender.ts), so the
 * first render in the browser matches it without asking the API: the site configuration, the plans on sale (on
 * /plans), and `session: null` when the request carried no session cookie (a new visitor: signed out for sure).
 * The dashboard's shell also carries the session's user as `GET /api/auth/session` would answer it (null when the
 * cookie is no longer valid), so the dashboard renders without waiting for that round trip; its home page comes
 * rendered, with the answers of the reads it makes first (app/first-queries.ts).
 */
export type EmbeddedState = {
  /** true: #root holds the server's HTML of this page, to hydrate; false: an empty shell (dashboard). */
  prerendered: boolean
  siteConfig: SiteConfig
  plans?: Plan[]
  session?: SessionUser | null
  /** API answers by query key (each the body of the GET that query makes), read by the server for this page. */
  queries?: { key: readonly unknown[]; data: unknown }[]
}

export const embeddedStateId = 'app-state'

/** JSON safe inside a <script> element. */
export function serializeState(state: EmbeddedState): string {
  return JSON.stringify(state)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

export function readEmbeddedState(): EmbeddedState | null {
  const element = document.getElementById(embeddedStateId)
  if (!element?.textContent) return null
  try {
    return JSON.parse(element.textContent) as EmbeddedState
  } catch {
    return null
  }
}

export function seedQueryClient(queryClient: QueryClient, state: EmbeddedState): void {
  queryClient.setQueryData(siteConfigQuery().queryKey, state.siteConfig)
  if (state.plans) queryClient.setQueryData(publicPlansQuery().queryKey, state.plans)
  if (state.session !== undefined) queryClient.setQueryData(sessionQuery().queryKey, state.session)
  for (const query of state.queries ?? []) queryClient.setQueryData(query.key, query.data)
}
