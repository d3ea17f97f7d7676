import { queryOptions, useQuery } from '@tanstack/react-query'
import type { SessionUser } from '@/domain/contracts/auth'
import { api } from './api'

export function sessionQuery() {
  return queryOptions({
    queryKey: ['session'],
    // Read without zod: public pages do not ship it (validation happens where data is entered).
    queryFn: async () => (await api.public.get<{ user: SessionUser | null }>('/api/auth/session')).user,
    staleTime: 60_000,
  })
}

/** The signed-in user (null when signed out; undefined while loading). */
export function useSessionUser(): { user: SessionUser | null | undefined; isLoading: boolean } {
  const query = useQuery(sessionQuery())
  return { user: query.data, isLoading: query.isPending }
}
