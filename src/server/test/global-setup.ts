import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { connectPglite, connectPostgres } from '../db/client'
import { templateDatabaseName, testDatabaseUrl } from './database-url'

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string
  }
}

/**
 * Migrates once: a PGlite data directory dumped to a file (each test file loads it in ≈1 s instead of
 * running initdb), or, with TEST_DATABASE_URL, a PostgreSQL template database each file clones.
 */
export default async function setup(project: TestProject) {
  const url = testDatabaseUrl()
  if (url) {
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query(`drop database if exists ${templateDatabaseName} with (force)`)
    await admin.query(`create database ${templateDatabaseName}`)
    await admin.end()
    const template = connectPostgres(withDatabase(url, templateDatabaseName), { max: 1 })
    await template.migrate()
    await template.close()
    project.provide('pgliteTemplate', '')
    return
  }
  const database = await connectPglite()
  await database.migrate()
  const dump = await database.pglite!.dumpDataDir('gzip')
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'billing-test-')), 'template.tar.gz')
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
  await database.close()
  project.provide('pgliteTemplate', file)
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}
