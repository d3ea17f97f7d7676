// `npm run db:backup [-- <arquivo>]`: a full copy of the database. With DATABASE_URL, pg_dump in its custom format
// (restored by pg_restore: `npm run db:restore`); otherwise PGlite's own dump of DATA_DIR (a gzipped tarball of the
// data directory). Default file: backups/backup-<date>.dump (PostgreSQL) or .tar.gz (PGlite) under DATA_DIR's
// parent. With the embedded database, stop the server first (PGlite is one process at a time); pg_dump takes a
// consistent snapshot beside running servers.
import { mkdirSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { libpqEnv, runTool } from './backup-common'
import { describeDatabase, runScript } from './run-script'

const stamp = new Date()
  .toISOString()
  .replaceAll(':', '-')
  .replace(/\.\d+Z$/, 'Z')
const target = process.argv.slice(2).find((a) => !a.startsWith('--'))

function sizeOf(file: string): string {
  const bytes = statSync(file).size
  return bytes > 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`
}

await runScript('fazer o backup', async ({ config, database, log }) => {
  log(`Banco: ${describeDatabase(config, database)}`)
  const postgres = database.kind === 'postgres'
  const file = path.resolve(target ?? path.join('backups', `backup-${stamp}.${postgres ? 'dump' : 'tar.gz'}`))
  mkdirSync(path.dirname(file), { recursive: true })
  if (postgres) {
    await database.close() // pg_dump opens its own connection
    await runTool('pg_dump', ['--format=custom', '--no-owner', `--file=${file}`], libpqEnv(config.DATABASE_URL ?? ''))
  } else {
    if (!database.pglite) throw new Error('PGlite instance missing')
    const dump = await database.pglite.dumpDataDir('gzip')
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
  }
  log(`Backup gravado em ${file} (${sizeOf(file)}). Restaure com: npm run db:restore -- ${file}`)
})
