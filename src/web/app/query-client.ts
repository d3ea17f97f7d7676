import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query'
import { ApiError } from '@/web/lib/api'
import type { Feedback } from '@/web/lib/toasts'
import { sessionQuery } from '@/web/lib/session'
import { loadToast } from './lazy-toaster'
import { paths } from './paths'

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: {
      /** The spec's pattern: a success toast, or the action's title with the server's message. */
      feedback?: Feedback
      /** Error codes the form shows inline: no toast for those. */
      inline?: string[]
    }
  }
}

/** The session ended on the server (expired, revoked, signed out elsewhere): the API answers 401 'unauthenticated'. */
export function isSessionLost(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401 && error.code === 'unauthenticated'
}

export function createQueryClient(): QueryClient {
  // Forget the user and everything read with the session; RequireUser then shows 'Acesso não autorizado' and
  // sends the person to /login?next=<this page>, as for any signed-out visit to the dashboard.
  const onSessionLost = () => {
    queryClient.setQueryData(sessionQuery().queryKey, null)
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' && q.queryKey[0] !== 'site-config' })
  }
  const queryClient: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error) => {
        if (isSessionLost(error)) onSessionLost()
      },
    }),
    mutationCache: new MutationCache({
      onSuccess: (_data, _vars, _ctx, mutation) => {
        const feedback = mutation.meta?.feedback
        if (feedback?.success) void loadToast().then((toast) => toast.success(feedback.success))
      },
      onError: (error, _vars, _ctx, mutation) => {
        if (isSessionLost(error)) {
          onSessionLost()
          // In the dashboard the guard's toast says it; elsewhere the action's own feedback below does.
          if (window.location.pathname.startsWith(paths.dashboard)) return
        }
        const feedback = mutation.meta?.feedback
        if (!feedback) return
        if (error instanceof ApiError && mutation.meta?.inline?.includes(error.code)) return
        const fallback = feedback.fallback ?? 'Ocorreu um erro desconhecido'
        const description =
          error instanceof ApiError && (error.hasServerMessage || error.status === 0) ? error.detail : fallback
        void loadToast().then((toast) => toast.error(feedback.error, { description }))
      },
    }),
    defaultOptions: {
      queries: {
        gcTime: 5 * 60_000,
        staleTime: 30_000,
        retry: (count, error) =>
          error instanceof ApiError && error.status > 0 && error.status < 500 ? false : count < 3,
        retryDelay: (attempt) => Math.min(1000 * 2 ** attempt, 30_000),
        refetchOnWindowFocus: false,
      },
    },
  })
  return queryClient
}
