import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig, startupWarnings } from './config'

const dataDir = mkdtempSync(path.join(tmpdir(), 'billing-config-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const secret = 'x'.repeat(32)
const production = {
  NODE_ENV: 'production',
  DATA_DIR: dataDir,
  APP_URL: 'https://assinaturas.example.com',
  AUTH_SECRET: secret,
  STRIPE_SECRET_KEY: 'sk_live_x',
  STRIPE_WEBHOOK_SECRET: 'whsec_x',
  SMTP_URL: 'smtps://user:pass@smtp.example.com',
}

function failure(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig({ DATA_DIR: dataDir, ...env })
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error(`no ConfigError for ${JSON.stringify(env)}`)
}

describe('loadConfig', () => {
  it('starts with the documented defaults', () => {
    const config = loadConfig({ DATA_DIR: dataDir })
    expect(config).toMatchObject({
      NODE_ENV: 'development',
      PORT: 3000,
      HOST: '127.0.0.1',
      appUrl: 'http://localhost:3000',
      secureCookies: false,
      outboxPath: path.join(dataDir, 'outbox.jsonl'),
      SUPPORT_WHATSAPP: '5585999990000',
      TRUST_PROXY: false,
    })
    expect(config.DATABASE_URL).toBeUndefined()
    expect(config.trustedOrigins).toContain('http://localhost:3000')
  })

  it('generates the session secret once into DATA_DIR and reuses it', () => {
    const first = loadConfig({ DATA_DIR: dataDir }).authSecret
    expect(first.length).toBeGreaterThanOrEqual(32)
    expect(readFileSync(path.join(dataDir, 'auth-secret'), 'utf8').trim()).toBe(first)
    expect(loadConfig({ DATA_DIR: dataDir }).authSecret).toBe(first)
  })

  it('derives APP_URL from PORT and drops a trailing slash', () => {
    expect(loadConfig({ DATA_DIR: dataDir, PORT: '8080' }).appUrl).toBe('http://localhost:8080')
    const config = loadConfig({ DATA_DIR: dataDir, APP_URL: 'https://example.com/' })
    expect(config.appUrl).toBe('https://example.com')
    expect(config.secureCookies).toBe(true)
  })

  it.each([
    ['false', false],
    ['0', false],
    ['1', 1],
    ['2', 2],
    ['10.0.0.0/8', '10.0.0.0/8'],
    [' 10.0.0.1 , 192.168.0.0/16,fd00::/8 ', '10.0.0.1,192.168.0.0/16,fd00::/8'],
    ['loopback', 'loopback'],
  ])('takes TRUST_PROXY=%j in one of Fastify\'s forms, never "trust anything"', (value, expected) => {
    expect(loadConfig({ DATA_DIR: dataDir, TRUST_PROXY: value }).TRUST_PROXY).toBe(expected)
  })

  it('requires two-factor for admins by default in production only (ADMIN_MFA)', () => {
    expect(loadConfig(production).adminMfa).toBe('required')
    expect(loadConfig({ ...production, ADMIN_MFA: 'optional' }).adminMfa).toBe('optional')
    expect(loadConfig({ DATA_DIR: dataDir }).adminMfa).toBe('optional')
    expect(loadConfig({ DATA_DIR: dataDir, ADMIN_MFA: 'required' }).adminMfa).toBe('required')
    expect(() => loadConfig({ DATA_DIR: dataDir, ADMIN_MFA: 'sim' })).toThrow(
      'Configuração inválida: ADMIN_MFA deve ser um destes: required, optional',
    )
  })

  it('treats blank optional values as unset', () => {
    const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: '  ', SMTP_URL: '', APP_URL: '' })
    expect(config.DATABASE_URL).toBeUndefined()
    expect(config.SMTP_URL).toBeUndefined()
    expect(config.appUrl).toBe('http://localhost:3000')
  })

  it('accepts a complete production configuration and trusts only APP_URL there', () => {
    const config = loadConfig(production)
    expect(config.trustedOrigins).toEqual(['https://assinaturas.example.com'])
    expect(config.authSecret).toBe(secret)
    expect(config.secureCookies).toBe(true)
  })

  it.each([
    [{ PORT: 'abc' }, 'PORT', 'deve ser um número'],
    [{ PORT: '70000' }, 'PORT', 'deve ser no máximo 65535'],
    [{ DATABASE_URL: 'mysql://root@localhost/db' }, 'DATABASE_URL', 'deve começar com postgres://'],
    [{ SUPPORT_WHATSAPP: '12' }, 'SUPPORT_WHATSAPP', 'deve ter de 10 a 15 dígitos'],
    [{ SUPPORT_WHATSAPP: '+5585999990000' }, 'SUPPORT_WHATSAPP', 'deve ter de 10 a 15 dígitos'],
    [{ APP_URL: 'localhost:3000' }, 'APP_URL', 'deve ser uma URL http(s) completa'],
    [{ APP_URL: 'javascript:alert(1)' }, 'APP_URL', 'deve ser uma URL http(s) completa'],
    [{ CHAT_PLATFORM_URL: 'ftp://chat.example.com' }, 'CHAT_PLATFORM_URL', 'deve ser uma URL http(s) completa'],
    [{ AUTH_SECRET: 'curto' }, 'AUTH_SECRET', 'deve ter pelo menos 32 caracteres'],
    [{ ADMIN_EMAIL: 'admin', ADMIN_PASSWORD: 'senha-longa-123' }, 'ADMIN_EMAIL', 'deve ser um e-mail válido'],
    [{ ADMIN_EMAIL: 'a@example.com', ADMIN_PASSWORD: 'curta' }, 'ADMIN_PASSWORD', 'pelo menos 8 caracteres'],
    [{ SMTP_URL: 'http://mail.example.com' }, 'SMTP_URL', 'deve começar com smtp://'],
    [{ NODE_ENV: 'prod' }, 'NODE_ENV', 'development, production, test'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY', 'número de proxies'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY', 'não aceita true'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY', 'endereços/CIDRs'],
    [{ TRUST_PROXY: '10.0.0.1, *' }, 'TRUST_PROXY', 'endereços/CIDRs'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', 'deve ser um destes'],
  ])('refuses %j with one line naming %s', (env, name, problem) => {
    const error = failure(env)
    expect(error.message).toMatch(new RegExp(`^Configuração inválida: ${name} `))
    expect(error.message).toContain(problem)
    expect(error.message).not.toContain('\n')
  })

  it.each([
    [{ WHATSAPP_TOKEN: 'token' }, 'WHATSAPP_TOKEN e WHATSAPP_PHONE_NUMBER_ID'],
    [{ WHATSAPP_PHONE_NUMBER_ID: '123' }, 'WHATSAPP_TOKEN e WHATSAPP_PHONE_NUMBER_ID'],
    [{ STRIPE_SECRET_KEY: 'sk_test_x' }, 'STRIPE_SECRET_KEY e STRIPE_WEBHOOK_SECRET'],
    [{ ADMIN_EMAIL: 'a@example.com' }, 'ADMIN_EMAIL e ADMIN_PASSWORD'],
  ])('refuses half of a pair (%j)', (env, names) => {
    expect(failure(env).message).toContain(names)
  })

  describe('in production', () => {
    it.each([
      ['AUTH_SECRET', 'AUTH_SECRET'],
      ['APP_URL', 'APP_URL'],
      ['STRIPE_SECRET_KEY', 'STRIPE_SECRET_KEY'],
      ['STRIPE_WEBHOOK_SECRET', 'STRIPE_WEBHOOK_SECRET'],
      ['SMTP_URL', 'SMTP_URL'],
    ])('refuses to start without %s', (missing, named) => {
      const env: Record<string, string | undefined> = { ...production, [missing]: undefined }
      const error = failure(env)
      expect(error.message).toContain(named)
      expect(error.message).toContain('produção')
      expect(error.message).not.toContain('\n')
    })

    it('does not write a generated secret', () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'billing-config-prod-'))
      try {
        failure({ ...production, DATA_DIR: dir, AUTH_SECRET: undefined })
        expect(existsSync(path.join(dir, 'auth-secret'))).toBe(false)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
})

describe('start-up with a bad configuration', () => {
  it('stops with exit code 1 and one line naming the variable', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: 'abc' },
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(result.status).toBe(1)
    expect(result.stderr.trim()).toBe('Configuração inválida: PORT deve ser um número')
  }, 90_000)
})

describe('start-up without NODE_ENV', () => {
  const start = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      // An unreachable database stops start-up right after the configuration is read.
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, DATABASE_URL: 'postgres://127.0.0.1:1/nada', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    })

  it('prints one warning line that the dev outbox and the card simulator are on', () => {
    const result = start({})
    expect(result.status).toBe(1)
    const warnings = result.stderr.split('\n').filter((l) => l.startsWith('Atenção: NODE_ENV não definido'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('simulador de cartão')
    expect(warnings[0]).toContain('caixa de saída')
  }, 90_000)

  it('prints nothing of the sort when NODE_ENV is set', () => {
    expect(start({ NODE_ENV: 'development' }).stderr).not.toContain('NODE_ENV não definido')
    expect(startupWarnings({ NODE_ENV: 'production' })).toEqual([])
    expect(startupWarnings({})).toHaveLength(1)
  }, 90_000)
})
