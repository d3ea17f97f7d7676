import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { SessionUser } from '../../../domain/contracts/auth'
import { api } from '../../lib/api'
import { toasts } from '../../lib/toasts'

export function sessionQuery() {
  return queryOptions({
    queryKey: ['session'],
    // Read without zod: public pages do not ship it (validation happens where data is entered).
    queryFn: async () => (await api.get<{ user: SessionUser | null }>('/api/auth/session')).user,
    staleTime: 60_000,
  })
}

/** The signed-in user (null when signed out; undefined while loading). */
export function useSessionUser(): { user: SessionUser | null | undefined; isLoading: boolean } {
  const query = useQuery(sessionQuery())
  return { user: query.data, isLoading: query.isPending }
}

export function useSignOut() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => api.post('/api/auth/sign-out', {}),
    onSuccess: () => {
      queryClient.setQueryData(sessionQuery().queryKey, null)
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' && q.queryKey[0] !== 'site-config' })
    },
    meta: { feedback: toasts.signOut },
  })
}
