import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMailSender } from './modules/messaging/email'
import { createWhatsAppSender } from './modules/messaging/whatsapp'
import { createTestApp, type TestApp } from './test/test-app'
import { createUser, get } from './test/users'

// A built SPA with its (hidden) source maps beside the bundles.
const webRoot = mkdtempSync(path.join(tmpdir(), 'billing-web-'))
mkdirSync(path.join(webRoot, 'assets'))
writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>app</title>')
writeFileSync(path.join(webRoot, 'assets', 'index-abc.js'), 'console.log(1)')
writeFileSync(path.join(webRoot, 'assets', 'index-abc.js.map'), '{"version":3,"sources":["src/web/main.tsx"]}')

async function appFor(env: Record<string, string>): Promise<TestApp> {
  const outboxPath = path.join(mkdtempSync(path.join(tmpdir(), 'billing-outbox-')), 'outbox.jsonl')
  const log = { info: () => {} }
  const t = await createTestApp({
    env,
    webRoot,
    // Production refuses the dev outbox: these fakes of the providers write to it anyway, so tests read codes.
    mail: createMailSender({ outboxPath, from: 'x <x@x>', production: false, log }),
    whatsapp: createWhatsAppSender({ outboxPath, apiUrl: 'http://127.0.0.1:1', production: false, log }),
  })
  return { ...t, outboxPath }
}

afterAll(() => rmSync(webRoot, { recursive: true, force: true }))

describe('in production', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await appFor({
      NODE_ENV: 'production',
      STRIPE_SECRET_KEY: 'sk_test_x',
      STRIPE_WEBHOOK_SECRET: 'whsec_x',
      SMTP_URL: 'smtp://127.0.0.1:1',
      // This test is about the docs; two-factor for admins (the production default) has its own tests.
      ADMIN_MFA: 'optional',
    })
  })
  afterAll(async () => {
    await t?.close()
  })

  it('serves the API docs and the OpenAPI document to admins only', async () => {
    for (const url of ['/api/docs', '/api/docs/json', '/api/docs/static/index.html', '/api/openapi.json'])
      expect((await get(t.app, url)).statusCode, url).toBe(401)
    const user = await createUser(t)
    expect((await get(t.app, '/api/openapi.json', user.cookie)).statusCode).toBe(403)
    expect((await get(t.app, '/api/docs/json', user.cookie)).statusCode).toBe(403)
    const admin = await createUser(t, { admin: true })
    const doc = await get(t.app, '/api/openapi.json', admin.cookie)
    expect(doc.statusCode).toBe(200)
    expect(doc.json().openapi).toBe('3.0.3')
    expect((await get(t.app, '/api/docs/json', admin.cookie)).statusCode).toBe(200)
  })

  it('does not serve source maps', async () => {
    expect((await get(t.app, '/assets/index-abc.js')).statusCode).toBe(200)
    const map = await get(t.app, '/assets/index-abc.js.map')
    expect(map.statusCode).toBe(404)
    expect(map.body).not.toContain('sources')
  })
})

describe('in development', () => {
  it('keeps the docs public', async () => {
    const t = await appFor({})
    try {
      expect((await get(t.app, '/api/openapi.json')).statusCode).toBe(200)
      expect((await get(t.app, '/api/docs/json')).statusCode).toBe(200)
    } finally {
      await t.close()
    }
  })
})
