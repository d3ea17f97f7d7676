// `npm run db:seed-demo`: the three demo plans and demo PIX settings, on request (start-up seeds only a new
// embedded database, never a PostgreSQL). Rows that exist are left alone, so it can run again.
import { and, eq } from 'drizzle-orm'
import { demoPixSettings, seedDemo } from '../src/server/db/seed'
import { pixSettings } from '../src/server/db/schema/billing'
import { plans } from '../src/server/db/schema/plans'
import { describeDatabase, runScript, ScriptError, sqlState } from './run-script'

await runScript('criar os dados de demonstração', async ({ config, database, log }) => {
  log(`Banco: ${describeDatabase(config, database)}`)
  const db = database.db
  const countPlans = async () => (await db.select({ id: plans.id }).from(plans)).length
  let before: number
  try {
    before = await countPlans()
  } catch (error) {
    if (sqlState(error) === '42P01') throw new ScriptError('As tabelas não existem: rode npm run db:migrate antes.')
    throw error
  }
  await seedDemo(db)
  const after = await countPlans()
  log(
    after > before
      ? `Planos de demonstração criados: ${after - before} (plan_basic, plan_pro, plan_business).`
      : 'Planos de demonstração já existiam; nada mudou.',
  )
  // db:migrate leaves a blank settings row, which seedDemo does not overwrite; a blank row is not a choice.
  const { id, ...demoPix } = demoPixSettings
  const filled = await db
    .update(pixSettings)
    .set(demoPix)
    .where(and(eq(pixSettings.id, id), eq(pixSettings.pixKey, '')))
    .returning({ id: pixSettings.id })
  const [pix] = await db.select({ pixKey: pixSettings.pixKey }).from(pixSettings).where(eq(pixSettings.id, id))
  log(
    filled.length > 0
      ? `Configurações PIX de demonstração gravadas (chave ${pix?.pixKey}).`
      : `Configurações PIX já preenchidas (chave ${pix?.pixKey}); nada mudou.`,
  )
})
