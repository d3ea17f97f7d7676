// Runs a command with TEST_DATABASE_URL pointing at a reachable PostgreSQL, so `npm test` covers both
// databases. Without a server it says so and skips — except in CI, where PostgreSQL is required.
import { spawnSync } from 'node:child_process'
import pg from 'pg'

const url = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
const [command, ...args] = process.argv.slice(2)
if (!command) {
  console.error('uso: tsx scripts/with-postgres.ts <comando> [argumentos…]')
  process.exit(2)
}

async function reachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.query('select 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

if (!(await reachable())) {
  const message = `PostgreSQL não respondeu em ${url.replace(/:[^:@/]+@/, ':***@')}`
  if (process.env.CI) {
    console.error(`${message}: os testes no PostgreSQL são obrigatórios no CI.`)
    process.exit(1)
  }
  console.warn(`${message}: suíte no PostgreSQL pulada (defina TEST_DATABASE_URL para rodá-la).`)
  process.exit(0)
}
const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, TEST_DATABASE_URL: url } })
process.exit(result.status ?? 1)
