// Timing helpers shared by the benchmarks (not a test: `npm run bench` runs them, nothing measures time in tests).

export type Timing = { name: string; runs: number; p50: number; p95: number; max: number; note?: string }

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)
  return sorted[Math.max(0, index)] ?? 0
}

/** Runs `fn` `warmup` times unmeasured, then `runs` times, and reports milliseconds. */
export async function measure(
  name: string,
  fn: () => Promise<unknown>,
  options: { runs?: number; warmup?: number } = {},
): Promise<Timing> {
  const runs = options.runs ?? 40
  for (let i = 0; i < (options.warmup ?? 5); i++) await fn()
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    await fn()
    samples.push(performance.now() - started)
  }
  samples.sort((a, b) => a - b)
  return { name, runs, p50: percentile(samples, 50), p95: percentile(samples, 95), max: samples.at(-1) ?? 0 }
}

export function printTable(title: string, rows: Timing[], target?: number): void {
  const width = Math.max(...rows.map((r) => r.name.length), 10)
  console.log(`\n${title}`)
  console.log(
    `${'case'.padEnd(width)}  ${'p50 ms'.padStart(8)}  ${'p95 ms'.padStart(8)}  ${'max ms'.padStart(8)}  note`,
  )
  for (const r of rows) {
    const verdict = target === undefined ? '' : r.p95 <= target ? 'ok' : `ACIMA DE ${target} ms`
    console.log(
      `${r.name.padEnd(width)}  ${r.p50.toFixed(1).padStart(8)}  ${r.p95.toFixed(1).padStart(8)}  ` +
        `${r.max.toFixed(1).padStart(8)}  ${[verdict, r.note].filter(Boolean).join(' · ')}`,
    )
  }
}
