// `npm run openapi`: writes openapi.json at the repository root from the route schemas, so contract changes show
// up in review. The app is built on a throwaway in-memory database; nothing is read from the environment.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildApp } from '../src/server/app'
import { loadConfig } from '../src/server/config'
import { connectPglite } from '../src/server/db/client'

const target = fileURLToPath(new URL('../openapi.json', import.meta.url))
const dataDir = mkdtempSync(path.join(tmpdir(), 'billing-openapi-'))

try {
  // Fixed values: the document must not depend on who generates it.
  const config = loadConfig({
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    APP_URL: 'http://localhost:3000',
    AUTH_SECRET: 'openapi-generation-secret-not-used-for-anything',
    LOG_LEVEL: 'silent',
  })
  const database = await connectPglite()
  try {
    await database.migrate()
    const app = await buildApp({ config, database, logger: false, webRoot: path.join(dataDir, 'no-web') })
    try {
      await app.ready()
      writeFileSync(target, `${JSON.stringify(app.swagger(), null, 2)}\n`)
    } finally {
      await app.close()
    }
  } finally {
    await database.close()
  }
  console.log(`OpenAPI gravado em ${path.relative(process.cwd(), target) || target}`)
} catch (error) {
  console.error(`Falha ao gerar o OpenAPI: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`)
  process.exitCode = 1
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
process.exit(process.exitCode ?? 0)
