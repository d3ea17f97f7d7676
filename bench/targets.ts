// The bench's summary table: one line per figure with its target, what was measured and pass/fail.

export type TargetRow = { figure: string; target: string; measured: string; pass: boolean | null }

export function printTargets(title: string, rows: TargetRow[]): void {
  const w = [6, 6, 8].map((min, i) =>
    Math.max(min, ...rows.map((r) => [r.figure, r.target, r.measured][i]?.length ?? 0)),
  ) as [number, number, number]
  console.log(`\n${title}`)
  console.log(`${'figure'.padEnd(w[0])}  ${'target'.padEnd(w[1])}  ${'measured'.padEnd(w[2])}  result`)
  for (const r of rows) {
    const verdict = r.pass === null ? '—' : r.pass ? 'ok' : 'FALHOU'
    console.log(`${r.figure.padEnd(w[0])}  ${r.target.padEnd(w[1])}  ${r.measured.padEnd(w[2])}  ${verdict}`)
  }
}

/** Resident memory of a process in MB (Linux /proc), or null when it is gone. */
export async function residentMb(pid: number): Promise<number | null> {
  const { readFile } = await import('node:fs/promises')
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1]
    return kb ? Number(kb) / 1024 : null
  } catch {
    return null
  }
}
