import { spawn } from 'node:child_process'
import { ScriptError } from './run-script'

/** libpq's environment for a connection string: the password never appears on a command line. */
export function libpqEnv(url: string): NodeJS.ProcessEnv {
  const u = new URL(url)
  const env: NodeJS.ProcessEnv = { ...process.env }
  if (u.hostname) env.PGHOST = decodeURIComponent(u.hostname)
  if (u.port) env.PGPORT = u.port
  if (u.username) env.PGUSER = decodeURIComponent(u.username)
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password)
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''))
  if (database) env.PGDATABASE = database
  const sslmode = u.searchParams.get('sslmode')
  if (sslmode) env.PGSSLMODE = sslmode
  return env
}

/** Runs pg_dump / pg_restore; a failure becomes one Portuguese sentence with the tool's own first error line. */
export function runTool(tool: 'pg_dump' | 'pg_restore', args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { env, stdio: ['ignore', 'inherit', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
    })
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ScriptError(
          error.code === 'ENOENT'
            ? `${tool} não encontrado: instale o cliente do PostgreSQL (a mesma versão do servidor).`
            : `${tool} falhou: ${error.message}`,
        ),
      ),
    )
    child.on('close', (code) => {
      if (code === 0) resolve()
      else {
        const first = stderr.split('\n').find((l) => l.trim()) ?? `código ${code}`
        reject(new ScriptError(`${tool} falhou: ${first.trim()}`))
      }
    })
  })
}
