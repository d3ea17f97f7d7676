// The billing jobs of an API process on PostgreSQL, in a thread of their own (worker.ts as a worker thread): the
// passes' JavaScript (rendering a batch of messages, building its statements, their garbage collection) runs on
// another event loop and heap, so a customer's request never waits behind it. PGlite is one connection inside the
// process: there the jobs stay on the main thread (jobs.ts).
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker, type WorkerOptions } from 'node:worker_threads'
import type { Jobs } from './jobs'

type Log = { info(msg: string): void; error(obj: object, msg: string): void }

/** How long a stopping thread may take to finish its pass and close before it is terminated. */
const stopTimeoutMs = 30_000
/** A thread that ended by itself is started again after this long (doubling up to a minute while it keeps failing). */
const restartDelayMs = 2_000

/**
 * A worker thread running `file`; a TypeScript one (under tsx: `npm run dev`, the benches) first registers tsx's
 * loader in the thread, which a thread does not inherit (nor take from execArgv's --import on Node 20).
 */
export function moduleWorker(file: URL, options: WorkerOptions = {}): Worker {
  if (!file.pathname.endsWith('.ts')) return new Worker(file, options)
  const code = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(file.href)}) })`
  return new Worker(code, { ...options, eval: true })
}

/**
 * The thread's heap limits: a young generation of 16 MiB (V8's default for a thread is 3 × 16 MiB semi-spaces; the
 * main thread runs with 8 MiB ones, `--max-semi-space-size=8` in `npm start`), so the process stays under 250 MB.
 */
export const jobsThreadLimits = { maxYoungGenerationSizeMb: 16 }

/** worker.ts beside this file: dist/server/worker.js in the build, src/server/worker.ts under tsx. */
function thread(env: NodeJS.ProcessEnv): Worker {
  return moduleWorker(new URL(`./worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url), {
    env,
    resourceLimits: jobsThreadLimits,
  })
}

/**
 * Starts the jobs thread (its configuration read from `env`, the process's own by default); it is started again
 * whenever it ends by itself, until stop().
 */
export function startJobsThread(log: Log, env: NodeJS.ProcessEnv = process.env): Jobs {
  let worker: Worker | undefined
  let stopping = false
  let failures = 0
  let timer: NodeJS.Timeout | undefined

  const start = () => {
    const started = thread(env)
    worker = started
    started.on('message', (message) => {
      if (message !== 'ready') return
      failures = 0
      log.info('Jobs de cobrança prontos (thread própria)')
    })
    started.on('error', (error) => log.error({ err: error }, 'jobs thread failed'))
    started.on('exit', (code) => {
      if (stopping) return
      failures += 1
      const delay = Math.min(restartDelayMs * 2 ** (failures - 1), 60_000)
      log.error({ code, restartInMs: delay }, 'jobs thread ended; starting it again')
      timer = setTimeout(start, delay)
    })
  }
  start()

  return {
    async stop() {
      stopping = true
      clearTimeout(timer)
      const running = worker
      if (!running || running.threadId === -1) return
      const ended = new Promise<void>((resolve) => {
        running.on('message', (message) => message === 'stopped' && resolve())
        running.once('exit', () => resolve())
      })
      running.postMessage('stop')
      const late = setTimeout(() => void running.terminate(), stopTimeoutMs)
      await ended
      clearTimeout(late)
      await running.terminate()
    },
  }
}
