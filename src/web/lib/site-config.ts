import { queryOptions, useQuery } from '@tanstack/react-query'
import { type SiteConfig, siteConfigSchema } from '@/domain/contracts/site'
import { api } from './api'

export function siteConfigQuery() {
  return queryOptions({
    queryKey: ['site-config'],
    queryFn: () => api.get('/api/site-config', siteConfigSchema),
    staleTime: Number.POSITIVE_INFINITY,
  })
}

/** Loaded before the first render (main.tsx), so it is always there. */
export function useSiteConfig(): SiteConfig {
  const { data } = useQuery(siteConfigQuery())
  if (!data) throw new Error('Configuração do site não carregada')
  return data
}
