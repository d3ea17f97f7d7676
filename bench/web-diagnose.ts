// Lighthouse's own diagnostics per page (bootup time, main-thread breakdown, long tasks, LCP element, request
// chains), one run each, on the built app — to see what dominates before changing code. `npx tsx bench/web-diagnose.ts [/page …]`.
import { mkdirSync, writeFileSync } from 'node:fs'
import * as chromeLauncher from 'chrome-launcher'
import lighthouse from 'lighthouse'
import { benchAdmin, startBenchWebServer } from './web-server'

const pages = process.argv.slice(2).length ? process.argv.slice(2) : ['/', '/plans', '/login', '/dashboard']
const server = await startBenchWebServer()
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
})
mkdirSync('/tmp/webperf', { recursive: true })
try {
  const res = await fetch(`${server.url}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: JSON.stringify(benchAdmin),
  })
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')
  for (const page of pages) {
    const url = `${server.url}${page}`
    const opts = {
      port: chrome.port,
      output: 'json' as const,
      logLevel: 'error' as const,
      onlyCategories: ['performance'],
      ...(page.startsWith('/dashboard') ? { extraHeaders: { cookie } } : {}),
    }
    await lighthouse(url, opts)
    const result = await lighthouse(url, opts)
    const lhr = result!.lhr
    writeFileSync(`/tmp/webperf/lhr${page.replace(/\//g, '_') || '_'}.json`, JSON.stringify(lhr))
    const a = lhr.audits
    console.log(`\n=== ${page} score ${Math.round((lhr.categories.performance?.score ?? 0) * 100)}`)
    for (const id of [
      'first-contentful-paint',
      'largest-contentful-paint',
      'total-blocking-time',
      'cumulative-layout-shift',
      'speed-index',
      'interactive',
    ])
      console.log(`${id}: ${a[id]?.displayValue}`)
    const items = (id: string) => (a[id]?.details as { items?: Record<string, unknown>[] })?.items ?? []
    console.log(
      'bootup:',
      items('bootup-time')
        .map(
          (i) =>
            `${String(i.url).replace(server.url, '')} total=${Math.round(Number(i.total))} script=${Math.round(Number(i.scripting))} parse=${Math.round(Number(i.scriptParseCompile))}`,
        )
        .join('\n  '),
    )
    console.log(
      'mainthread:',
      items('mainthread-work-breakdown')
        .map((i) => `${i.groupLabel}=${Math.round(Number(i.duration))}`)
        .join(' '),
    )
    console.log(
      'long tasks:',
      items('long-tasks')
        .map(
          (i) =>
            `${String(i.url).replace(server.url, '')}@${Math.round(Number(i.startTime))}+${Math.round(Number(i.duration))}`,
        )
        .join(' '),
    )
    console.log('lcp element:', JSON.stringify(items('largest-contentful-paint-element')).slice(0, 600))
    console.log(
      'lcp breakdown:',
      JSON.stringify(a['lcp-breakdown-insight']?.details ?? a['largest-contentful-paint-element']?.details).slice(
        0,
        900,
      ),
    )
    console.log('render-blocking:', JSON.stringify(items('render-blocking-resources')).slice(0, 400))
    console.log(
      'network:',
      items('network-requests')
        .map(
          (i) =>
            `${String(i.url).replace(server.url, '')} ${Math.round(Number(i.networkRequestTime))}-${Math.round(Number(i.networkEndTime))} ${Math.round(Number(i.transferSize))}B`,
        )
        .join('\n  '),
    )
  }
} finally {
  chrome.kill()
  await server.stop()
}
