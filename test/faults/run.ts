// `npm run test:faults [-- --short] [-- --only=outage,crash,providers,two] [-- --no-build]`: the fault scripts, each against the real
// server and worker processes on a PostgreSQL cluster of their own (a temporary directory, a free port). Exits 1 on
// the first broken guarantee. `--short` (or FAULTS_SHORT=1) is the CI version: fewer crashes, shorter outage.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buildServer, Cluster, log, short } from './harness'
import { crashScenario } from './crash'
import { outageScenario } from './outage'
import { providersScenario } from './providers'
import { twoScenario } from './two'

const scenarios: Record<string, (cluster: Cluster, dir: string) => Promise<Record<string, string>>> = {
  outage: outageScenario,
  crash: crashScenario,
  providers: providersScenario,
  two: twoScenario,
}

async function main(): Promise<number> {
  const only = process.argv
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',')
  // The short (CI) run leaves out the two-instance scenario, to stay near 3 minutes; --only=two runs it.
  const names = Object.keys(scenarios).filter((n) => (only ? only.includes(n) : !(short && n === 'two')))
  const started = Date.now()
  // --no-build: reuse dist/ (another run of the scripts is using it, or it was just built).
  if (!process.argv.includes('--no-build')) await buildServer()
  const results: [string, Record<string, string>][] = []
  for (const name of names) {
    const cluster = new Cluster()
    const dir = mkdtempSync(path.join(tmpdir(), `faults-${name}-`))
    try {
      await cluster.init()
      log(`${name}: PostgreSQL on port ${cluster.port} (${short ? 'short' : 'full'})`)
      results.push([name, await scenarios[name]!(cluster, dir)])
    } finally {
      cluster.destroy()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  console.log(
    `\nFalhas (${short ? 'versão curta' : 'versão completa'}, ${((Date.now() - started) / 1000).toFixed(0)} s):`,
  )
  for (const [name, figures] of results) {
    console.log(
      `  ${name}: ok  ${Object.entries(figures)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    )
  }
  return 0
}

process.exitCode = await main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error)
  return 1
})
