import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../config'

// The lifecycle's settings (README "Configuration"): the platform webhook and RUN_JOBS.
const base = { DATA_DIR: '/tmp/unused-data-dir', AUTH_SECRET: 'x'.repeat(32) }

function message(env: Record<string, string>): string {
  try {
    loadConfig({ ...base, ...env })
  } catch (error) {
    if (error instanceof ConfigError) return error.message
    throw error
  }
  throw new Error(`no ConfigError for ${JSON.stringify(env)}`)
}

describe('lifecycle configuration', () => {
  it('runs jobs in the API process and records platform events as skipped by default', () => {
    const config = loadConfig(base)
    expect(config.RUN_JOBS).toBe(true)
    expect(config.PLATFORM_WEBHOOK_URL).toBeUndefined()
    expect(loadConfig({ ...base, RUN_JOBS: 'false' }).RUN_JOBS).toBe(false)
  })

  it('accepts a platform URL with a secret of 16 characters or more', () => {
    const config = loadConfig({
      ...base,
      PLATFORM_WEBHOOK_URL: 'https://chat.example.com.br/webhooks/billing',
      PLATFORM_WEBHOOK_SECRET: 's'.repeat(16),
    })
    expect(config.PLATFORM_WEBHOOK_URL).toBe('https://chat.example.com.br/webhooks/billing')
  })

  it('stops with one line naming the variable when the platform settings are wrong', () => {
    expect(message({ PLATFORM_WEBHOOK_URL: 'https://chat.example.com.br/hook' })).toBe(
      'Configuração inválida: PLATFORM_WEBHOOK_SECRET é obrigatório quando PLATFORM_WEBHOOK_URL é definido',
    )
    expect(
      message({ PLATFORM_WEBHOOK_URL: 'https://chat.example.com.br/hook', PLATFORM_WEBHOOK_SECRET: 'curto' }),
    ).toBe('Configuração inválida: PLATFORM_WEBHOOK_SECRET deve ter pelo menos 16 caracteres')
    expect(
      message({ PLATFORM_WEBHOOK_URL: 'ftp://chat.example.com.br', PLATFORM_WEBHOOK_SECRET: 's'.repeat(16) }),
    ).toBe('Configuração inválida: PLATFORM_WEBHOOK_URL deve ser uma URL http(s) completa')
    expect(message({ RUN_JOBS: 'talvez' })).toBe('Configuração inválida: RUN_JOBS deve ser um destes: true, false')
  })
})
