import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from '../../src/server/test/free-port'

export type RunningServer = {
  url: string
  dataDir: string
  outboxPath: string
  stop(): Promise<void>
}

/**
 * Starts the real server (the compiled `dist/server/main.js`, serving the built SPA from dist/web) on a free port
 * with a fresh embedded database, exactly as `npm start` does after its build.
 */
export async function startServer(env: Record<string, string> = {}, attempts = 3): Promise<RunningServer> {
  // A busy machine (parallel builds and suites) can make a start miss its 120 s: try again, then fail.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(env)
    } catch (error) {
      if (attempt >= attempts) throw error
    }
  }
}

async function startOnce(env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort()
  const dataDir = mkdtempSync(path.join(tmpdir(), 'billing-e2e-'))
  const url = `http://127.0.0.1:${port}`
  const child: ChildProcess = spawn(process.execPath, ['--enable-source-maps', 'dist/server/main.js'], {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_URL: url,
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (d) => {
    output += String(d)
  })
  child.stderr?.on('data', (d) => {
    output += String(d)
  })
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`)
    try {
      const response = await fetch(`${url}/api/health`)
      if (response.ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server did not start in 120 s:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  return {
    url,
    dataDir,
    outboxPath: path.join(dataDir, 'outbox.jsonl'),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
        if (child.exitCode === null) child.kill('SIGKILL')
      }
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
