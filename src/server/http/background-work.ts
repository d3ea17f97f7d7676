/**
 * Work a route starts after answering (a webhook's re-read of the provider): `track` keeps it per owner (the app's
 * database handle), `idle` resolves when everything tracked so far has settled (tests; graceful shutdown).
 */
export function backgroundWork() {
  const pending = new WeakMap<object, Set<Promise<unknown>>>()
  return {
    async idle(owner: object): Promise<void> {
      const set = pending.get(owner)
      while (set && set.size > 0) await Promise.allSettled([...set])
    },
    track(owner: object, work: Promise<unknown>): void {
      let set = pending.get(owner)
      if (!set) {
        set = new Set()
        pending.set(owner, set)
      }
      const tracked = set
      tracked.add(work)
      void work.finally(() => tracked.delete(work)).catch(() => {})
    },
  }
}
