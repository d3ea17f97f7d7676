// `npm run worker`: the billing lifecycle jobs without the HTTP server, for deployments that run the API with
// RUN_JOBS=false or want more job capacity. Any number of workers (and API processes running jobs) can share one
// PostgreSQL: pg-boss hands each job to one of them and the passes lock the rows they touch.
import { buildApp } from './app'
import { prepareDatabase } from './bootstrap'
import { ConfigError, loadConfig } from './config'
import { connectDatabase } from './db/client'
import { startJobs } from './jobs'

async function main() {
  const config = loadConfig()
  if (!config.DATABASE_URL) {
    // PGlite is one process: a second one opening DATA_DIR/db beside the server would corrupt it.
    throw new ConfigError(
      'Configuração inválida: DATABASE_URL é obrigatório para o worker (com o banco embutido, os jobs rodam dentro do servidor)',
    )
  }
  const database = await connectDatabase(config)
  await prepareDatabase(database, (m) => console.log(m))
  const app = await buildApp({ config, database })
  await app.ready()
  const jobs = await startJobs({ ...app.ctx, log: app.log })

  const shutdown = async (signal: string) => {
    app.log.info(`${signal}: encerrando o worker`)
    await jobs.stop()
    await app.close()
    await database.close()
    process.exit(0)
  }
  process.once('SIGINT', () => void shutdown('SIGINT'))
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
  app.log.info('Worker de cobrança pronto (PostgreSQL)')
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message)
  else console.error('Falha ao iniciar o worker:', error instanceof Error ? error.message : error)
  process.exit(1)
})
