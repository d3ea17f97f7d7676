import { queryOptions, useQuery } from '@tanstack/react-query'
import type { SiteConfig } from '@/domain/contracts/site'
import { api } from './api'

export function siteConfigQuery() {
  return queryOptions({
    queryKey: ['site-config'],
    // Normally embedded in the page (src/web/app/embedded-state.ts); our own API's answer, read without zod.
    queryFn: () => api.public.get<SiteConfig>('/api/site-config'),
    staleTime: Number.POSITIVE_INFINITY,
  })
}

/** Embedded in the page or loaded before the first render (main.tsx), so it is always there. */
export function useSiteConfig(): SiteConfig {
  const { data } = useQuery(siteConfigQuery())
  if (!data) throw new Error('Configuração do site não carregada')
  return data
}
