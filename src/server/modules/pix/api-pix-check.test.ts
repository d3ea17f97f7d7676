import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../config'
import { type FakePsp, startFakePsp } from '../../test/fake-psp/fake-psp'
import { apiPixClientFromConfig, checkApiPix } from './api-pix-check'

const dataDir = mkdtempSync(path.join(tmpdir(), 'pix-check-'))
let psp: FakePsp

beforeAll(async () => {
  psp = await startFakePsp()
})
afterAll(async () => {
  await psp.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

function configFailure(env: Record<string, string | undefined>): string {
  try {
    loadConfig({ DATA_DIR: dataDir, ...env })
  } catch (error) {
    if (error instanceof ConfigError) return error.message
    throw error
  }
  throw new Error('no ConfigError')
}

async function checkFailure(env: Record<string, string | undefined>): Promise<string> {
  const config = loadConfig({ DATA_DIR: dataDir, ...psp.env(), ...env })
  try {
    await checkApiPix(config, { timeoutMs: 3000 })
  } catch (error) {
    if (error instanceof ConfigError) return error.message
    throw error
  }
  throw new Error('checkApiPix passed')
}

describe('PIX_PROVIDER unset', () => {
  it('keeps the manual PIX flow: no client, no certificate read, no call', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, PIX_CERT: '/nowhere/cert.pem' })
    expect(config.PIX_PROVIDER).toBe('manual')
    expect(config.PIX_PSP_STYLE).toBe('bcb')
    expect(apiPixClientFromConfig(config)).toBeNull()
    const calls = psp.calls.length
    await expect(checkApiPix(config)).resolves.toBeUndefined()
    expect(psp.calls.length).toBe(calls)
  })
})

describe('configuration with PIX_PROVIDER=api-pix', () => {
  it.each(['PIX_API_URL', 'PIX_OAUTH_URL', 'PIX_CLIENT_ID', 'PIX_CLIENT_SECRET', 'PIX_CERT', 'PIX_KEY'])(
    'requires %s',
    (name) => {
      expect(configFailure({ ...psp.env(), [name]: '' })).toBe(
        `Configuração inválida: ${name} é obrigatório quando PIX_PROVIDER=api-pix`,
      )
    },
  )

  it.each([
    [{ PIX_PROVIDER: 'stripe' }, 'Configuração inválida: PIX_PROVIDER deve ser um destes: manual, api-pix'],
    [{ PIX_PSP_STYLE: 'inter' }, 'Configuração inválida: PIX_PSP_STYLE deve ser um destes: bcb, efi'],
    [
      { PIX_API_URL: 'http://pix.example.com/v2' },
      'Configuração inválida: PIX_API_URL deve ser uma URL https completa',
    ],
  ])('refuses %j', (env, line) => {
    expect(configFailure({ ...psp.env(), ...env })).toBe(line)
  })

  it('needs no PIX_CA and defaults to the BCB style', () => {
    const config = loadConfig({ DATA_DIR: dataDir, ...psp.env(), PIX_CA: '', PIX_PSP_STYLE: '' })
    expect(config.PIX_CA).toBeUndefined()
    expect(config.PIX_PSP_STYLE).toBe('bcb')
  })
})

describe('checkApiPix', () => {
  it('starts PIX Automático with only PIX_AUTOMATICO=true (the receiving account is optional)', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, ...psp.env(), PIX_AUTOMATICO: 'true' })
    expect(config.PIX_AUTOMATICO).toBe(true)
    expect(config.PIX_AUTOMATICO_ACCOUNT).toBeUndefined()
    await checkApiPix(config)
  })

  it('passes with readable certificates and a token from the PSP', async () => {
    const issued = psp.tokensIssued()
    await checkApiPix(loadConfig({ DATA_DIR: dataDir, ...psp.env() }))
    expect(psp.tokensIssued()).toBe(issued + 1)
  })

  it('refuses a missing certificate file', async () => {
    expect(await checkFailure({ PIX_CERT: '/nowhere/cert.pem' })).toBe(
      'Configuração inválida: PIX_CERT arquivo não encontrado: /nowhere/cert.pem',
    )
  })

  it('refuses files that are not PEM, and a key that is not the certificate’s', async () => {
    const junk = path.join(dataDir, 'junk.pem')
    writeFileSync(junk, 'not a certificate')
    expect(await checkFailure({ PIX_CERT: junk })).toBe(
      `Configuração inválida: PIX_CERT não é um certificado PEM: ${junk}`,
    )
    expect(await checkFailure({ PIX_KEY: junk })).toBe(
      `Configuração inválida: PIX_KEY não é uma chave privada PEM: ${junk}`,
    )
    expect(await checkFailure({ PIX_CA: junk })).toBe(`Configuração inválida: PIX_CA não é um certificado PEM: ${junk}`)
    const otherKey = psp.certificates.pspClient.keyPath
    expect(await checkFailure({ PIX_KEY: otherKey })).toBe(
      `Configuração inválida: PIX_KEY não corresponde ao certificado de PIX_CERT: ${otherKey}`,
    )
  })

  it('refuses a wrong secret', async () => {
    expect(await checkFailure({ PIX_CLIENT_SECRET: 'wrong' })).toBe(
      'Configuração inválida: PIX_CLIENT_ID ou PIX_CLIENT_SECRET recusados pelo PSP (HTTP 401 invalid_client)',
    )
  })

  it('refuses a PSP whose server certificate is not trusted without PIX_CA', async () => {
    expect(await checkFailure({ PIX_CA: '' })).toMatch(
      /^Configuração inválida: PIX_OAUTH_URL: o certificado do servidor do PSP não é confiável \([A-Z_]+\); confira PIX_CA$/,
    )
  })

  it('refuses a client certificate the PSP does not accept', async () => {
    const foreign = psp.certificates.foreignClient
    expect(await checkFailure({ PIX_CERT: foreign.certPath, PIX_KEY: foreign.keyPath })).toMatch(
      /^Configuração inválida: PIX_CERT: o PSP recusou a conexão com o certificado de cliente \(.+\)$/,
    )
  })

  it('refuses an unreachable token endpoint', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer()
      server.listen(0, '127.0.0.1', () => {
        const address = server.address()
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
      })
    })
    expect(await checkFailure({ PIX_OAUTH_URL: `https://127.0.0.1:${port}/oauth/token` })).toBe(
      'Configuração inválida: PIX_OAUTH_URL inacessível (ECONNREFUSED)',
    )
  })
})

describe('start-up (src/server/main.ts)', () => {
  const run = (env: Record<string, string>) => ({
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, ...env },
    encoding: 'utf8' as const,
    timeout: 60_000,
  })

  it('stops with one line when the certificate file is missing', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/server/main.ts'],
      run({ ...psp.env(), PIX_CERT: '/nowhere/cert.pem' }),
    )
    expect(result.status).toBe(1)
    expect(result.stderr.trim()).toBe('Configuração inválida: PIX_CERT arquivo não encontrado: /nowhere/cert.pem')
  }, 90_000)

  it('stops with one line when the PSP refuses the secret', async () => {
    // Asynchronous: the fake PSP answers the token call from this process.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      ...run({ ...psp.env(), PIX_CLIENT_SECRET: 'wrong' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
    })
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(status).toBe(1)
    expect(stderr.trim()).toBe(
      'Configuração inválida: PIX_CLIENT_ID ou PIX_CLIENT_SECRET recusados pelo PSP (HTTP 401 invalid_client)',
    )
  }, 90_000)
})
