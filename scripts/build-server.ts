// `npm run build` (after `vite build`): compiles the server to plain JavaScript in dist/server, so `npm start` and
// `npm run worker` run `node` on it and tsx stays a development tool. One esbuild bundle per entry (our code
// inlined, node_modules left to Node), all in dist/server beside a copy of the migrations: `db/client.ts` finds
// them at `./migrations` next to the running file, as it does next to its source under tsx.
import { cpSync, rmSync } from 'node:fs'
import path from 'node:path'
import { build } from 'esbuild'

const root = path.resolve(import.meta.dirname, '..')
const out = path.join(root, 'dist/server')

export const serverEntries = { main: 'src/server/main.ts', worker: 'src/server/worker.ts' }

const started = performance.now()
rmSync(out, { recursive: true, force: true })
await build({
  absWorkingDir: root,
  entryPoints: Object.entries(serverEntries).map(([name, file]) => ({ in: file, out: name })),
  outdir: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  packages: 'external', // dependencies resolve from node_modules at run time, exactly as under tsx
  tsconfig: path.join(root, 'tsconfig.json'), // the `@/` alias
  sourcemap: true,
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
})
cpSync(path.join(root, 'src/server/db/migrations'), path.join(out, 'migrations'), { recursive: true })
console.log(`Servidor compilado em dist/server (${Math.round(performance.now() - started)} ms)`)
