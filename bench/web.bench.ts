// The web half of `npm run bench`: bytes each page downloads (bench/web-bytes.ts) and Lighthouse mobile scores of
// the built app (`npm run build` first; this file builds nothing). Starts the server on a fresh embedded database
// (PGlite, temp DATA_DIR) in production mode, signs an admin in through the API for /dashboard, and runs Lighthouse
// with its mobile defaults (Moto G Power, simulated throttling 150 ms RTT, 1.6 Mbps, 4x CPU) against Debian's
// Chromium, median of 5 per page. `npx tsx bench/web.bench.ts` runs it alone (also `npm run bench:web`).
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as chromeLauncher from 'chrome-launcher'
import lighthouse from 'lighthouse'
import { benchAdmin, startBenchWebServer } from './web-server'
import { bytesFigures, type Figure, measurePageBytes, printFigures } from './web-bytes'

const runs = Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 5)
const chromePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium'

type PageTarget = { page: string; minScore: number; vitals: boolean; signedIn?: boolean }
const pages: PageTarget[] = [
  { page: '/', minScore: 95, vitals: true },
  { page: '/plans', minScore: 95, vitals: true },
  { page: '/login', minScore: 90, vitals: false },
  { page: '/dashboard', minScore: 90, vitals: false, signedIn: true },
]
const vitalsTargets = { lcpMs: 1600, tbtMs: 100, cls: 0.05 }

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

async function signIn(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify(benchAdmin),
  })
  if (!response.ok) throw new Error(`sign-in: ${response.status} ${await response.text()}`)
  return response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')
}

type Sample = { score: number; lcp: number; tbt: number; cls: number; finalUrl: string }

async function lighthouseRun(url: string, port: number, cookie?: string, attempt = 1): Promise<Sample> {
  const result = await lighthouse(url, {
    port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: ['performance'],
    ...(cookie ? { extraHeaders: { cookie } } : {}),
  })
  if (!result) throw new Error(`Lighthouse gave no result for ${url}`)
  const { lhr } = result
  if (lhr.runtimeError) {
    // A loaded machine sometimes loses the trace (NO_NAVSTART): run it again, up to three times.
    if (attempt < 3) return lighthouseRun(url, port, cookie, attempt + 1)
    throw new Error(`Lighthouse: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`)
  }
  const audit = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN
  return {
    score: Math.round((lhr.categories.performance?.score ?? 0) * 100),
    lcp: audit('largest-contentful-paint'),
    tbt: audit('total-blocking-time'),
    cls: audit('cumulative-layout-shift'),
    finalUrl: lhr.finalDisplayedUrl,
  }
}

export async function webBenchmark(): Promise<Figure[]> {
  const webRoot = path.resolve('dist/web')
  if (
    !existsSync(path.join(webRoot, '.vite', 'manifest.json')) ||
    !existsSync(path.resolve('dist/ssr/entry-server.js'))
  )
    throw new Error('Sem build da web: rode `npm run build` antes do benchmark.')
  const figures = bytesFigures(measurePageBytes(webRoot))
  printFigures('Bytes da web (gzip, antes de qualquer interação)', figures)

  const server = await startBenchWebServer()
  const chrome = await chromeLauncher.launch({
    chromePath,
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  })
  const lighthouseFigures: Figure[] = []
  try {
    const cookie = await signIn(server.url)
    const loadBefore = os.loadavg()[0] ?? 0
    for (const target of pages) {
      const url = `${server.url}${target.page}`
      // One unmeasured run warms the server's page cache and the database up.
      await lighthouseRun(url, chrome.port, target.signedIn ? cookie : undefined)
      const samples: Sample[] = []
      for (let i = 0; i < runs; i++)
        samples.push(await lighthouseRun(url, chrome.port, target.signedIn ? cookie : undefined))
      const landed = samples[0]?.finalUrl ?? ''
      if (new URL(landed).pathname !== target.page) throw new Error(`${target.page} ended at ${landed}`)
      const score = median(samples.map((s) => s.score))
      const lcp = median(samples.map((s) => s.lcp))
      const tbt = median(samples.map((s) => s.tbt))
      const cls = median(samples.map((s) => s.cls))
      const scores = samples.map((s) => s.score).join('/')
      lighthouseFigures.push({
        figure: `Lighthouse ${target.page}${target.signedIn ? ' (com sessão)' : ''}`,
        target: `≥ ${target.minScore}`,
        measured: `${score} (${scores})`,
        pass: score >= target.minScore,
      })
      lighthouseFigures.push({
        figure: `LCP ${target.page}`,
        target: target.vitals ? `< ${vitalsTargets.lcpMs / 1000} s` : '(informativo)',
        measured: `${(lcp / 1000).toFixed(2)} s`,
        pass: !target.vitals || lcp < vitalsTargets.lcpMs,
      })
      lighthouseFigures.push({
        figure: `TBT ${target.page}`,
        target: target.vitals ? `< ${vitalsTargets.tbtMs} ms` : '(informativo)',
        measured: `${Math.round(tbt)} ms`,
        pass: !target.vitals || tbt < vitalsTargets.tbtMs,
      })
      lighthouseFigures.push({
        figure: `CLS ${target.page}`,
        target: target.vitals ? `< ${vitalsTargets.cls}` : '(informativo)',
        measured: cls.toFixed(3),
        pass: !target.vitals || cls < vitalsTargets.cls,
      })
    }
    printFigures(
      `Lighthouse mobile (padrões: Moto G Power, 150 ms RTT, 1,6 Mbps, CPU 4x; mediana de ${runs})`,
      lighthouseFigures,
    )
    const loadAfter = os.loadavg()[0] ?? 0
    console.log(
      `Carga média da máquina: ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} (${os.cpus().length} núcleos)`,
    )
  } finally {
    chrome.kill()
    await server.stop()
  }
  return [...figures, ...lighthouseFigures]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await webBenchmark()
  const failed = figures.filter((f) => !f.pass)
  if (failed.length > 0)
    console.error(`\n${failed.length} figura(s) fora do alvo: ${failed.map((f) => f.figure).join(', ')}`)
  process.exitCode = failed.length > 0 ? 1 : 0
}
