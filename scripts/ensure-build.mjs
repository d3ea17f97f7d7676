// `npm start` / `npm run worker` run this first (prestart, preworker): it runs `npm run build` only when the build
// is missing or older than a source file, so a start on an up-to-date build goes straight to `node`. Plain
// JavaScript on purpose: it runs before anything is compiled and must cost milliseconds, not a tsx start.
import { execSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const outputs = ['dist/server/main.js', 'dist/server/worker.js', 'dist/web/index.html', 'dist/ssr/entry-server.js'].map(
  (f) => path.join(root, f),
)
const inputs = ['src', 'scripts', 'vite.config.ts', 'package.json', 'package-lock.json', 'tsconfig.json']

function newest(file) {
  if (!existsSync(file)) return 0
  const stat = statSync(file)
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = stat.mtimeMs
  for (const entry of readdirSync(file)) latest = Math.max(latest, newest(path.join(file, entry)))
  return latest
}

const missing = outputs.filter((f) => !existsSync(f))
const builtAt = missing.length > 0 ? 0 : Math.min(...outputs.map((f) => statSync(f).mtimeMs))
const changedAt = Math.max(...inputs.map((f) => newest(path.join(root, f))))
if (missing.length > 0 || changedAt > builtAt) {
  console.log(missing.length > 0 ? 'Sem build: compilando…' : 'Fontes mais novas que o build: compilando…')
  execSync('npm run build', { cwd: root, stdio: 'inherit' })
}
