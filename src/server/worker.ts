// `npm run worker`: the billing lifecycle jobs without the HTTP server, for deployments that run the API with
// RUN_JOBS=false or want more job capacity. Any number of workers (and API processes running jobs) can share one
// PostgreSQL: pg-boss hands each job to one of them and the passes lock the rows they touch.
// The same file is the jobs thread of an API process on PostgreSQL (jobs-thread.ts): there the parent's messages
// stop it, instead of signals.
import { isMainThread, parentPort } from 'node:worker_threads'
import pino from 'pino'
import { prepareDatabase } from './bootstrap'
import { ConfigError, loadConfig } from './config'
import { connectDatabase } from './db/client'
import { startJobs } from './jobs'
import { createProviders } from './providers'

async function main() {
  const config = loadConfig()
  if (!config.DATABASE_URL) {
    // PGlite is one process: a second one opening DATA_DIR/db beside the server would corrupt it.
    throw new ConfigError(
      'Configuração inválida: DATABASE_URL é obrigatório para o worker (com o banco embutido, os jobs rodam dentro do servidor)',
    )
  }
  const database = await connectDatabase(config)
  // A thread's parent has prepared the database already.
  if (isMainThread) await prepareDatabase(database, (m) => console.log(m))
  // The jobs' context without the HTTP server (its routes, docs and pages): the providers and the clock.
  const log = pino({ level: config.LOG_LEVEL }, pino.destination({ dest: 1, sync: false }))
  const now = () => new Date()
  const providers = createProviders({ config, database, log, now })
  const jobs = await startJobs({ config, database, db: database.db, ...providers, now, log })

  const shutdown = async () => {
    await jobs.stop()
    await providers.pix?.close()
    await database.close()
    log.flush()
  }
  if (parentPort) {
    const parent = parentPort
    parent.on('message', (message) => {
      if (message !== 'stop') return
      void shutdown().finally(() => parent.postMessage('stopped'))
    })
    parent.postMessage('ready')
    return
  }
  const onSignal = async (signal: string) => {
    log.info(`${signal}: encerrando o worker`)
    await shutdown()
    process.exit(0)
  }
  process.once('SIGINT', () => void onSignal('SIGINT'))
  process.once('SIGTERM', () => void onSignal('SIGTERM'))
  log.info('Worker de cobrança pronto (PostgreSQL)')
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message)
  else console.error('Falha ao iniciar o worker:', error instanceof Error ? error.message : error)
  process.exit(1)
})
