// What each page of the built web app (dist/web, `npm run build`) downloads before any interaction, gzipped: the
// entry's static imports plus React's DOM renderer and the route's own lazy chunk (as prerender.ts preloads them),
// read from Vite's manifest.
// Also checks that no public page loads a chunk holding dashboard, admin, form (react-hook-form) or QR code modules,
// read from the (hidden) source maps. `npx tsx bench/web-bytes.ts` prints it alone; `npm run bench` includes it.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { rendererModule } from '../src/server/modules/site/prerender'

type ManifestChunk = { file: string; src?: string; isEntry?: boolean; imports?: string[]; css?: string[] }
type Manifest = Record<string, ManifestChunk>

export type PageBytes = { page: string; public: boolean; js: number; css: number; files: string[]; forbidden: string[] }

/** The pages and the lazy route module each one loads besides the entry (see src/web/app/router.tsx). */
export const pageRoutes: Array<{ page: string; route?: string; public: boolean; form?: boolean }> = [
  { page: '/', public: true },
  { page: '/plans', public: true },
  { page: '/login', route: 'app/login-routes.ts', public: true },
  { page: '/signup', route: 'app/account-routes.ts', public: true, form: true },
  { page: '/privacy-policy', route: 'app/legal-routes.ts', public: true },
  { page: '/dashboard', route: 'app/dashboard-routes.ts', public: false },
]

/** Source paths a public page must never download (the form kit, zod included, only on /signup). */
const forbiddenOnPublic = [
  /\/features\/dashboard\//,
  /\/features\/admin\//,
  /\/features\/billing\//,
  /node_modules\/qrcode/,
]
const formModules = [/node_modules\/react-hook-form\//, /node_modules\/@hookform\//, /node_modules\/zod\//]

export const bytesTargets = { publicJs: 110 * 1024, publicCss: 15 * 1024, dashboardJs: 200 * 1024 }

export function readManifest(webRoot: string): Manifest {
  return JSON.parse(readFileSync(path.join(webRoot, '.vite', 'manifest.json'), 'utf8')) as Manifest
}

/** The manifest keys a route module pulls in statically (itself included), in load order. */
export function staticClosure(manifest: Manifest, key: string, seen = new Set<string>()): string[] {
  if (seen.has(key) || !manifest[key]) return []
  seen.add(key)
  const out: string[] = []
  for (const dep of manifest[key].imports ?? []) out.push(...staticClosure(manifest, dep, seen))
  out.push(key)
  return out
}

export function entryKey(manifest: Manifest): string {
  const key = Object.keys(manifest).find((k) => manifest[k]?.isEntry)
  if (!key) throw new Error('manifest without an entry')
  return key
}

export function measurePageBytes(webRoot: string): PageBytes[] {
  const manifest = readManifest(webRoot)
  const entry = entryKey(manifest)
  const gz = new Map<string, number>()
  const gzip = (file: string) => {
    let size = gz.get(file)
    if (size === undefined) {
      size = gzipSync(readFileSync(path.join(webRoot, file)), { level: 9 }).length
      gz.set(file, size)
    }
    return size
  }
  return pageRoutes.map(({ page, route, public: isPublic, form }) => {
    const banned = form ? forbiddenOnPublic : [...forbiddenOnPublic, ...formModules]
    const seen = new Set<string>()
    const keys = [
      ...staticClosure(manifest, entry, seen),
      ...staticClosure(manifest, rendererModule, seen), // imported dynamically by the entry, preloaded with every page
      ...(route ? staticClosure(manifest, route, seen) : []),
    ]
    const files = keys.map((k) => manifest[k]!.file)
    const cssFiles = [...new Set(keys.flatMap((k) => manifest[k]!.css ?? []))]
    const forbidden = isPublic
      ? files.flatMap((file) => {
          const map = path.join(webRoot, `${file}.map`)
          if (!existsSync(map)) return []
          const sources = (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources
          return sources.filter((s) => banned.some((re) => re.test(s))).map((s) => `${file}: ${s}`)
        })
      : []
    return {
      page,
      public: isPublic,
      js: files.reduce((sum, f) => sum + gzip(f), 0),
      css: cssFiles.reduce((sum, f) => sum + gzip(f), 0),
      files,
      forbidden,
    }
  })
}

export type Figure = { figure: string; target: string; measured: string; pass: boolean }

export function bytesFigures(pages: PageBytes[]): Figure[] {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
  const figures: Figure[] = []
  for (const p of pages) {
    if (p.page === '/' || p.page === '/plans') {
      figures.push({
        figure: `JS gzip ${p.page}`,
        target: `≤ ${kb(bytesTargets.publicJs)}`,
        measured: kb(p.js),
        pass: p.js <= bytesTargets.publicJs,
      })
      figures.push({
        figure: `CSS gzip ${p.page}`,
        target: `≤ ${kb(bytesTargets.publicCss)}`,
        measured: kb(p.css),
        pass: p.css <= bytesTargets.publicCss,
      })
    } else if (p.page === '/dashboard') {
      figures.push({
        figure: 'JS gzip /dashboard',
        target: `≤ ${kb(bytesTargets.dashboardJs)}`,
        measured: kb(p.js),
        pass: p.js <= bytesTargets.dashboardJs,
      })
    } else {
      figures.push({ figure: `JS gzip ${p.page}`, target: '(informativo)', measured: kb(p.js), pass: true })
    }
  }
  const forbidden = pages.flatMap((p) => p.forbidden.map((f) => `${p.page} → ${f}`))
  figures.push({
    figure: 'páginas públicas sem dashboard/admin/form/QR',
    target: '0 módulos',
    measured: `${forbidden.length} módulos`,
    pass: forbidden.length === 0,
  })
  for (const f of forbidden.slice(0, 10)) console.log(`  proibido: ${f}`)
  return figures
}

export function printFigures(title: string, figures: Figure[]): void {
  const w = Math.max(...figures.map((f) => f.figure.length), 10)
  const t = Math.max(...figures.map((f) => f.target.length), 6)
  const m = Math.max(...figures.map((f) => f.measured.length), 8)
  console.log(`\n${title}`)
  console.log(`${'figure'.padEnd(w)}  ${'target'.padEnd(t)}  ${'measured'.padEnd(m)}  result`)
  for (const f of figures) {
    console.log(`${f.figure.padEnd(w)}  ${f.target.padEnd(t)}  ${f.measured.padEnd(m)}  ${f.pass ? 'pass' : 'FAIL'}`)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const pages = measurePageBytes(path.resolve('dist/web'))
  for (const p of pages) console.log(`${p.page}: ${p.files.join(' ')}`)
  const figures = bytesFigures(pages)
  printFigures('Bytes da web (gzip, antes de qualquer interação)', figures)
  process.exitCode = figures.every((f) => f.pass) ? 0 : 1
}
