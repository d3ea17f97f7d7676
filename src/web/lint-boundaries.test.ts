import { execFile } from 'node:child_process'
import { rm, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

// The folder boundaries of the web (README, "Folder boundaries") are kept by biome.json's noRestrictedImports
// overrides. These tests lint a throw-away file inside a feature folder, so a broken override fails here.
const root = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)

async function lint(relativePath: string, source: string): Promise<{ ok: boolean; output: string }> {
  const file = `${root}${relativePath}`
  await writeFile(file, source)
  try {
    const { stdout, stderr } = await run('npx', ['biome', 'lint', '--max-diagnostics=20', relativePath], { cwd: root })
    return { ok: true, output: stdout + stderr }
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    return { ok: false, output: stdout + stderr }
  } finally {
    await rm(file, { force: true })
  }
}

describe('web folder boundaries (biome noRestrictedImports)', { timeout: 60_000 }, () => {
  it('fails a feature that imports another feature, naming the rule', async () => {
    const result = await lint(
      'src/web/features/billing/lint-fixture-cross.ts',
      "import { LoginPage } from '@/web/features/auth/login-page'\n\nexport const page = LoginPage\n",
    )
    expect(result.ok).toBe(false)
    expect(result.output).toContain('lint/style/noRestrictedImports')
    expect(result.output).toContain('A web feature never imports another feature')
  })

  it('fails a relative import that climbs out of its folder', async () => {
    const result = await lint(
      'src/web/features/billing/lint-fixture-up.ts',
      "import { api } from '../../lib/api'\n\nexport const client = api\n",
    )
    expect(result.ok).toBe(false)
    expect(result.output).toContain('lint/style/noRestrictedImports')
  })

  it('fails shared code that imports a feature', async () => {
    const result = await lint(
      'src/web/shared/lint-fixture-shared.ts',
      "import { LoginPage } from '@/web/features/auth/login-page'\n\nexport const page = LoginPage\n",
    )
    expect(result.ok).toBe(false)
    expect(result.output).toContain('lint/style/noRestrictedImports')
  })

  it('passes a feature that imports its own files and shared code through @/', async () => {
    const result = await lint(
      'src/web/features/billing/lint-fixture-ok.ts',
      [
        "import { paymentsQuery } from '@/web/shared/billing/api'",
        "import { api } from '@/web/lib/api'",
        "import { subscriptionReference } from './payments-page'",
        "import { ReceiptPage } from '@/web/features/billing/receipt-page'",
        '',
        'export const used = [paymentsQuery, api, subscriptionReference, ReceiptPage]',
        '',
      ].join('\n'),
    )
    expect(result.output).not.toContain('noRestrictedImports')
    expect(result.ok).toBe(true)
  })
})
