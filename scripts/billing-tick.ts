// `npm run billing:tick`: runs every due pass of the billing lifecycle once (renewals, reminders, period ends,
// overdue, expired invoices, notifications, platform events, deliveries) against the configured database, prints
// what each did, and exits. Running it twice in a row changes nothing the second time. Safe beside running servers
// and workers on PostgreSQL; with the embedded database, stop the server first (PGlite is one process at a time).
import { buildApp } from '../src/server/app'
import { runBillingTick } from '../src/server/modules/lifecycle/lifecycle.service'
import { describeDatabase, runScript } from './run-script'

await runScript('executar o ciclo de cobrança', async ({ config, database, log }) => {
  log(`Banco: ${describeDatabase(config, database)}`)
  await database.migrate()
  const app = await buildApp({ config, database })
  try {
    await app.ready()
    const report = await runBillingTick({ ...app.ctx, log: app.log })
    const done = Object.entries(report).filter(([, n]) => n > 0)
    log(done.length ? `Processado: ${done.map(([name, n]) => `${name} ${n}`).join(', ')}.` : 'Nada a fazer.')
  } finally {
    await app.close()
  }
})
