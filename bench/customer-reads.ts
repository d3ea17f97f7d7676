// The passes bench's customers (bench/billing-passes.bench.ts), run in a process of their own: a customer is
// another machine, and on the passes' own event loop each batch rendered in JavaScript delayed the customers'
// requests and their clock, and counted as the server's latency. Forked with the options as its first message, it
// reads `GET /api/subscriptions` at a fixed rate until its second message, then sends the sorted latencies.

type Options = { base: string; cookie: string; readsPerSecond: number }

/**
 * Customers reading their subscriptions at a fixed rate (an open loop: each connection sends its next request at its
 * scheduled time, or at once when the previous answer came later); a request's time counts from when it was due, so
 * a stall also counts against the requests it delayed. A closed loop (each connection asking again as soon as it had
 * its answer) made the customers as busy as the machine let them, about 750 requests a second here, a core of the
 * two: it measured how the passes share a saturated machine, not whether they keep a customer waiting.
 */
export async function customerReads(options: Options, done: () => boolean): Promise<number[]> {
  const samples: number[] = []
  const connections = 4
  const interval = (1000 * connections) / options.readsPerSecond
  const loop = async (n: number) => {
    let due = performance.now() + (interval * n) / connections
    while (!done()) {
      const wait = due - performance.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      const res = await fetch(`${options.base}/api/subscriptions`, { headers: { cookie: options.cookie } })
      await res.arrayBuffer()
      samples.push(performance.now() - due)
      due += interval
    }
  }
  await Promise.all(Array.from({ length: connections }, (_, n) => loop(n)))
  return samples.sort((a, b) => a - b)
}

if (process.send) {
  process.once('message', (options: Options) => {
    let stopped = false
    process.once('message', () => {
      stopped = true
    })
    void customerReads(options, () => stopped).then((samples) => process.send?.(samples, () => process.exit(0)))
  })
}
