import { DomainError } from '../src/domain/errors'
import { type Config, ConfigError, loadConfig } from '../src/server/config'
import { connectDatabase, type Database } from '../src/server/db/client'

/** A failure the operator can act on, already written as one Portuguese sentence. */
export class ScriptError extends Error {
  override name = 'ScriptError'
}

export type ScriptContext = { config: Config; database: Database; log: (line: string) => void }

/** Where the data lives, without the password of a connection string. */
export function describeDatabase(config: Config, database: Database): string {
  if (database.kind === 'pglite') return `PGlite embutido em ${config.dataDir}`
  const url = new URL(config.DATABASE_URL ?? '')
  return `PostgreSQL em ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0]?.trim() || 'erro desconhecido'
}

/**
 * Runs an operator task: configuration and database from the environment (as the server does), the task, then
 * the connection closed. Any failure ends the process with code 1 and one line on stderr.
 */
export async function runScript(what: string, task: (context: ScriptContext) => Promise<void>): Promise<never> {
  let database: Database | undefined
  let code = 0
  try {
    const config = loadConfig()
    database = await connectDatabase(config)
    await task({ config, database, log: (line) => console.log(line) })
  } catch (error) {
    code = 1
    if (error instanceof ConfigError || error instanceof ScriptError || error instanceof DomainError)
      console.error(error.message)
    else console.error(`Falha ao ${what}: ${oneLine(error)}`)
  } finally {
    await database?.close().catch(() => {})
  }
  process.exit(code)
}

/** SQLSTATE of a failed query (drizzle keeps the driver's error as the cause). */
export function sqlState(error: unknown): string | undefined {
  const cause = error instanceof Error ? (error.cause ?? error) : error
  if (typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string')
    return cause.code
  return undefined
}
