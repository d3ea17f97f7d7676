// Leaving a session: sign-out and what follows it. Apart from session.ts so that the public pages, which only read
// the session, do not download TanStack Query's mutations.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useRef } from 'react'
import { api } from './api'
import { sessionQuery } from './session'
import { toasts } from './toasts'

/**
 * What to do once the session has ended on the server (sign-out, account deletion): run `leave` (navigating off
 * the guarded pages) and clear the cached session only once the calling component has unmounted. Cleared earlier,
 * the dashboard guard, still on screen while the router's transition commits, would see a visitor without a
 * session and warn 'Acesso não autorizado'. Call it in a component that the navigation removes.
 */
export function useLeaveSignedOut(leave: () => void): () => void {
  const queryClient = useQueryClient()
  const mounted = useRef(false)
  const clearOnUnmount = useRef(false)
  const clearSession = useCallback(() => {
    queryClient.setQueryData(sessionQuery().queryKey, null)
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' && q.queryKey[0] !== 'site-config' })
  }, [queryClient])
  useEffect(() => {
    mounted.current = true
    return () => {
      mounted.current = false
      if (clearOnUnmount.current) {
        clearOnUnmount.current = false
        clearSession()
      }
    }
  }, [clearSession])
  return () => {
    // Already gone (the person navigated away meanwhile): no guard left to upset.
    if (!mounted.current) return clearSession()
    clearOnUnmount.current = true
    leave()
  }
}

/** Signs out, then leaves signed out (useLeaveSignedOut). Call it in the layout that the navigation removes. */
export function useSignOutAndLeave(leave: () => void) {
  const leaveSignedOut = useLeaveSignedOut(leave)
  return useMutation({
    // A bare { ok }: nothing to read, so no zod on public pages.
    mutationFn: () => api.public.post('/api/auth/sign-out', {}),
    onSuccess: leaveSignedOut,
    meta: { feedback: toasts.signOut },
  })
}
