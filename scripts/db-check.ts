// `npm run db:check`: runs every invariant of src/server/db/invariants.ts against the database of DATABASE_URL (or
// the embedded one in DATA_DIR) and prints the violating rows. Exit 0 when all hold, 1 on any violation (or when
// the database cannot be read). Read-only; safe beside running servers on PostgreSQL (with the embedded database,
// stop the server first: PGlite is one process at a time).
import { checkInvariants, formatReport, type InvariantReport } from '../src/server/db/invariants'
import { describeDatabase, runScript, ScriptError, sqlState } from './run-script'

await runScript('verificar as invariantes', async ({ config, database, log }) => {
  log(`Banco: ${describeDatabase(config, database)}`)
  let report: InvariantReport
  try {
    report = await checkInvariants(database.db)
  } catch (error) {
    if (sqlState(error) === '42P01') throw new ScriptError('As tabelas não existem: rode npm run db:migrate antes.')
    throw error
  }
  log(formatReport(report))
  if (report.violations.length > 0)
    throw new ScriptError(`Banco inconsistente: ${report.violations.map((v) => v.name).join(', ')}.`)
})
