import { useEffect, useState } from 'react'

type Sonner = typeof import('sonner')
type Toast = Sonner['toast']

let loading: Promise<Toast> | null = null
let loaded: Sonner | null = null
let show: ((sonner: Sonner) => void) | null = null
let mountedWaiters: Array<() => void> = []

/**
 * sonner (toasts) is not part of the public pages' first load: the first toast, or a page that toasts on its own
 * (`eager`), downloads it and mounts the Toaster; the promise resolves once the Toaster listens.
 */
export function loadToast(): Promise<Toast> {
  loading ??= import('sonner').then(
    (sonner) =>
      new Promise<Toast>((resolve) => {
        mountedWaiters.push(() => resolve(sonner.toast))
        loaded = sonner
        show?.(sonner)
      }),
  )
  return loading
}

export function LazyToaster({ eager }: { eager: boolean }) {
  const [sonner, setSonner] = useState<Sonner | null>(loaded)
  useEffect(() => {
    show = setSonner
    if (loaded) setSonner(loaded)
    return () => {
      show = null
    }
  }, [])
  useEffect(() => {
    if (eager) void loadToast()
  }, [eager])
  useEffect(() => {
    // Runs after the Toaster's own effects: it is subscribed now.
    if (!sonner) return
    const waiters = mountedWaiters
    mountedWaiters = []
    for (const resolve of waiters) resolve()
  }, [sonner])
  if (!sonner) return null
  return <sonner.Toaster position="top-right" richColors closeButton visibleToasts={1} duration={5000} />
}
