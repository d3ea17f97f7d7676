// The server's module boundary is kept by the linter (biome.json, the override for src/server/modules/**): a module
// reaches another module's queries only through that module's service, never by importing its *.repo file. These
// tests write a module file with a wrong import and one with right imports into the tree the override covers, run
// Biome on each, and remove them.
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const moduleDir = path.join(root, 'src/server/modules/billing')
const written: string[] = []

afterEach(() => {
  for (const file of written.splice(0)) rmSync(file, { force: true })
})

/** Writes a throw-away file into the billing module (not a test file, so the override applies) and lints it. */
function lintModuleFile(source: string) {
  const file = path.join(moduleDir, `lint-fixture-${randomUUID().slice(0, 8)}.ts`)
  written.push(file)
  writeFileSync(file, source)
  const result = spawnSync('npx', ['biome', 'lint', '--colors=off', path.relative(root, file)], {
    cwd: root,
    encoding: 'utf8',
  })
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` }
}

describe('server module boundaries (npm run lint)', { timeout: 120_000 }, () => {
  it("fails on an import of another module's repo, naming the rule", () => {
    const lint = lintModuleFile(
      "import { getPixSettings } from '../pix/pix-settings.repo'\n\nexport const settings = getPixSettings\n",
    )
    expect(lint.status).not.toBe(0)
    expect(lint.output).toContain('lint/style/noRestrictedImports')
    expect(lint.output).toContain("only through that module's service")
  })

  it("fails on another module's repo reached through the @/ alias, and on a module's second repo", () => {
    const lint = lintModuleFile(
      [
        "import { latestCodeOfBrowser } from '@/server/modules/whatsapp/verification.repo'",
        "import { claimNextDelivery } from '../lifecycle/platform-events.repo'",
        '',
        'export const both = [latestCodeOfBrowser, claimNextDelivery]',
        '',
      ].join('\n'),
    )
    expect(lint.status).not.toBe(0)
    expect(lint.output.match(/lint\/style\/noRestrictedImports/g)?.length).toBe(2)
  })

  it("passes for the module's own repo and another module's service", () => {
    const lint = lintModuleFile(
      [
        "import { findUserPayment } from './billing.repo'",
        "import { pixChargeFor } from '../pix/pix.service'",
        '',
        'export const both = [findUserPayment, pixChargeFor]',
        '',
      ].join('\n'),
    )
    expect(lint.output).not.toContain('noRestrictedImports')
    expect(lint.status).toBe(0)
  })
})
