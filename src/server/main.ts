import { buildApp } from './app'
import { ensureAdmin, prepareDatabase } from './bootstrap'
import { ConfigError, loadConfig, startupWarnings } from './config'
import { connectDatabase } from './db/client'
import { type Jobs, startJobs } from './jobs'
import { startJobsThread } from './jobs-thread'
import { checkApiPix } from './modules/pix/api-pix-check'
import { registerPixWebhookAtStartup } from './modules/pix/pix-admin.service'
import { registerAutomaticoWebhooksAtStartup } from './modules/pix-automatico/automatico.service'

async function main() {
  const config = loadConfig()
  // PIX_PROVIDER=api-pix: certificate files and the PSP's token call, before anything else starts.
  await checkApiPix(config)
  for (const line of startupWarnings()) console.warn(line)
  const database = await connectDatabase(config)
  await prepareDatabase(database, (m) => console.log(m))
  const app = await buildApp({ config, database })
  await ensureAdmin(app.ctx, (m) => app.log.info(m))

  let jobs: Jobs | undefined
  const shutdown = async (signal: string) => {
    app.log.info(`${signal}: encerrando`)
    await jobs?.stop()
    await app.close()
    await database.close()
    process.exit(0)
  }
  process.once('SIGINT', () => void shutdown('SIGINT'))
  process.once('SIGTERM', () => void shutdown('SIGTERM'))

  await app.listen({ port: config.PORT, host: config.HOST })
  // The billing lifecycle jobs (renewals, reminders, webhooks); RUN_JOBS=false leaves them to `npm run worker`. On
  // PostgreSQL they run in a thread of their own (jobs-thread.ts); PGlite is one connection in this thread.
  if (config.RUN_JOBS)
    jobs = database.kind === 'postgres' ? startJobsThread(app.log) : await startJobs({ ...app.ctx, log: app.log })
  // PIX_PROVIDER=api-pix: PUT /webhook/{chave} (best effort; the admin PIX settings can retry it).
  void registerPixWebhookAtStartup({ ...app.ctx, log: app.log })
  void registerAutomaticoWebhooksAtStartup({ ...app.ctx, log: app.log })
  app.log.info(`Pronto em ${config.appUrl} (banco: ${database.kind === 'pglite' ? 'PGlite embutido' : 'PostgreSQL'})`)
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message)
  else console.error('Falha ao iniciar:', error instanceof Error ? error.message : error)
  process.exit(1)
})
