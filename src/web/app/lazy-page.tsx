import { type ComponentType, lazy } from 'react'

export type LazyPage = ComponentType & { preload: () => Promise<unknown> }

/**
 * A component in its own chunk. `preload()` loads it ahead, after which it renders at once (no Suspense): main.tsx
 * preloads the page being hydrated, so hydration never meets a half-loaded page.
 */
export function lazyPage<M>(load: () => Promise<M>, pick: (module: M) => ComponentType): LazyPage {
  let Loaded: ComponentType | null = null
  const preload = () =>
    load().then((module) => {
      Loaded = pick(module)
    })
  const Lazy = lazy(async () => {
    await preload()
    return { default: Loaded! }
  })
  // biome-ignore lint/correctness/noComponentHookFactories: made once per route, at module level, never in a render.
  const Page = () => (Loaded ? <Loaded /> : <Lazy />)
  return Object.assign(Page, { preload })
}
