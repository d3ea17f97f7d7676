// What the tests of the operator scripts share: a script runs as the operator runs it, a child process of
// `node --import tsx` in the repository root configured only by its environment; PostgreSQL databases for such a
// run are created and dropped through the server's maintenance connection.
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'

export type ScriptRun = { code: number | null; stdout: string; stderr: string }

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url))

/** This process's PATH, HOME and TMPDIR, development mode and silent logs, then `env` (which wins). */
export function scriptEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    ...env,
  }
}

/** Starts `file` (relative to the repository root) with exactly `env`; `done` has its exit code and output, trimmed. */
export function startScript(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; done: Promise<ScriptRun> } {
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { cwd: repoRoot, env })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const done = new Promise<ScriptRun>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout: stdout.trim(), stderr: stderr.trim() }))
  })
  return { child, done }
}

/** Runs `scripts/<name>.ts` with `args` and `scriptEnv(env)` to its end. */
export function runScript(name: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ScriptRun> {
  return startScript(`scripts/${name}.ts`, args, scriptEnv(env)).done
}

/** One statement on the PostgreSQL server of `serverUrl` (create or drop a database), on a connection of its own. */
export async function adminQuery(serverUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}
