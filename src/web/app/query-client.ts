import { MutationCache, QueryClient } from '@tanstack/react-query'
import { toast } from 'sonner'
import { ApiError } from '../lib/api'
import type { Feedback } from '../lib/toasts'

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

export function createQueryClient(): QueryClient {
  return new QueryClient({
    mutationCache: new MutationCache({
      onSuccess: (_data, _vars, _ctx, mutation) => {
        const feedback = mutation.meta?.feedback
        if (feedback?.success) toast.success(feedback.success)
      },
      onError: (error, _vars, _ctx, mutation) => {
        const feedback = mutation.meta?.feedback
        if (!feedback) return
        if (error instanceof ApiError && mutation.meta?.inline?.includes(error.code)) return
        toast.error(feedback.error, {
          description: error instanceof ApiError ? error.detail : 'Ocorreu um erro desconhecido',
        })
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
}
