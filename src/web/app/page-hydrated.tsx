import { useEffect } from 'react'

let onHydrated: (() => void) | null = null

/** main.tsx: what to run once the routed page is hydrated (replay what the visitor did before it, mark the page). */
export function whenPageHydrated(run: () => void): void {
  onHydrated = run
}

/**
 * Rendered inside the routes' Suspense boundary (router.tsx). React hydrates a Suspense boundary after the shell
 * around it commits, so an effect outside it can run while the page's own buttons are still dehydrated: a click
 * replayed then was lost (the browser test of a click before hydration caught it). This effect runs once the boundary,
 * the page with it, is hydrated and React handles its events.
 */
export function PageHydrated() {
  useEffect(() => {
    const run = onHydrated
    onHydrated = null
    run?.()
  }, [])
  return null
}
