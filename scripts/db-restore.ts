// `npm run db:restore -- <arquivo> [--force]`: puts a backup of `npm run db:backup` back. With DATABASE_URL, the
// database must exist; pg_restore fills it. Otherwise the PGlite data directory DATA_DIR/db is created from the dump.
// A database that already has tables (or a DATA_DIR/db that already has data) is refused unless --force, which
// replaces what is there. Stop the servers and workers first.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { ConfigError, loadConfig } from '../src/server/config'
import { connectPglite } from '../src/server/db/client'
import { libpqEnv, runTool } from './backup-common'
import { ScriptError } from './run-script'

async function restore(log: (line: string) => void) {
  const args = process.argv.slice(2)
  const force = args.includes('--force')
  const source = args.find((a) => !a.startsWith('--'))
  if (!source) throw new ScriptError('Informe o arquivo do backup: npm run db:restore -- <arquivo> [--force].')
  const file = path.resolve(source)
  if (!existsSync(file)) throw new ScriptError(`Arquivo de backup não encontrado: ${file}.`)
  const config = loadConfig()

  if (config.DATABASE_URL) {
    const url = new URL(config.DATABASE_URL)
    log(`Banco: PostgreSQL em ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`)
    const client = new pg.Client({ connectionString: config.DATABASE_URL })
    await client.connect()
    let tables = 0
    try {
      const result = await client.query(
        "select count(*)::int as n from information_schema.tables where table_schema in ('public', 'drizzle')",
      )
      tables = result.rows[0]?.n ?? 0
    } finally {
      await client.end()
    }
    if (tables > 0 && !force)
      throw new ScriptError(
        `O banco de destino não está vazio (${tables} tabelas). Use --force para substituir o que está nele.`,
      )
    const env = libpqEnv(config.DATABASE_URL)
    await runTool(
      'pg_restore',
      [
        ...(tables > 0 ? ['--clean', '--if-exists'] : []),
        '--no-owner',
        '--exit-on-error',
        '--single-transaction',
        `--dbname=${env.PGDATABASE ?? ''}`,
        file,
      ],
      env,
    )
  } else {
    const dataDir = path.join(config.dataDir, 'db')
    log(`Banco: PGlite embutido em ${config.dataDir}`)
    const hasData = existsSync(dataDir) && readdirSync(dataDir).length > 0
    if (hasData && !force)
      throw new ScriptError(`O diretório ${dataDir} já tem um banco. Use --force para substituí-lo.`)
    if (hasData) rmSync(dataDir, { recursive: true, force: true })
    const database = await connectPglite({ dataDir, loadDataDir: new Blob([readFileSync(file)]) })
    await database.close()
  }
  log(`Backup restaurado de ${file}. Confira com: npm run db:check`)
}

try {
  await restore((line) => console.log(line))
} catch (error) {
  if (error instanceof ScriptError || error instanceof ConfigError) console.error(error.message)
  else console.error(`Falha ao restaurar o backup: ${error instanceof Error ? error.message.split('\n')[0] : error}`)
  process.exitCode = 1
}
