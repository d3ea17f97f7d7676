import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sessions } from './db/schema/auth'
import { createTestApp, type TestApp } from './test/test-app'
import { createUser } from './test/users'
import { listRoutes } from './test/http'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t?.close()
})

describe('health', () => {
  it('answers ok with the database up, never cached', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/health' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ status: 'ok', database: 'up' })
    expect(['pglite', 'postgres']).toContain(response.json().kind)
    expect(response.headers['cache-control']).toBe('no-store')
  })
})

describe('OpenAPI', () => {
  it('serves an OpenAPI 3 document', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/openapi.json' })
    expect(response.statusCode).toBe(200)
    const doc = response.json()
    expect(doc.openapi).toMatch(/^3\./)
    expect(doc.info.title).toBeTruthy()
    expect(doc.components.schemas.Problem).toBeDefined()
  })

  it('documents every /api route the server answers, the auth routes included', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>
    }
    // Not part of the API: the document itself, its viewer, and /api/dev/ (HTML pages of the card
    // simulator, refused in production).
    const routes = listRoutes(t.app).filter(
      (r) =>
        r.url.startsWith('/api/') &&
        r.url !== '/api/openapi.json' &&
        !r.url.startsWith('/api/docs') &&
        !r.url.startsWith('/api/dev/') &&
        r.method !== 'HEAD' &&
        r.method !== 'OPTIONS',
    )
    expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining([
        'GET /api/health',
        'POST /api/whatsapp/send-code',
        'POST /api/whatsapp/verify-code',
        'POST /api/auth/sign-up',
        'POST /api/auth/sign-in',
        'POST /api/auth/sign-out',
        'GET /api/auth/session',
        'GET /api/auth/verify-email',
        'POST /api/auth/resend-verification',
        'POST /api/auth/forgot-password',
        'POST /api/auth/reset-password',
      ]),
    )
    const missing = routes
      .filter((r) => {
        const path = r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
        return !doc.paths[path]?.[r.method.toLowerCase()]
      })
      .map((r) => `${r.method} ${r.url}`)
    expect(missing).toEqual([])
  })

  it('documents the error answers of the auth routes as problems', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
    const signIn = doc.paths['/api/auth/sign-in'].post
    expect(Object.keys(signIn.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '429']))
    expect(JSON.stringify(signIn.responses['401'])).toContain('Problem')
  })

  it('serves the documentation page as HTML', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/docs' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/html/)
    expect(response.body).toMatch(/<html/i)
  })
})

describe('errors and protection', () => {
  it.each([
    ['GET', '/api/nao-existe'],
    ['POST', '/api/nao-existe'],
    ['GET', '/api'],
    ['GET', '/api/auth/nao-existe'],
  ])('answers %s %s with a 404 problem', async (method, url) => {
    const response = await t.app.inject({
      method: method as 'GET',
      url,
      headers: { origin: 'http://localhost:3000' },
      ...(method === 'POST' ? { payload: {} } : {}),
    })
    expect(response.statusCode).toBe(404)
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(response.json()).toMatchObject({ status: 404, code: 'not_found', message: 'Recurso não encontrado.' })
  })

  it('answers unknown pages with 404 when no web build is served', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/alguma-pagina' })
    expect(response.statusCode).toBe(404)
  })

  it('refuses a write from a foreign origin', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/sign-in',
      payload: { email: 'a@example.com', password: 'qualquer-coisa' },
      headers: { origin: 'https://evil.example' },
    })
    expect(response.statusCode).toBe(403)
    expect(response.json()).toMatchObject({ code: 'origin_forbidden', message: 'Origem da requisição não permitida.' })
  })

  it('accepts a write from the app origin, from a same-origin fetch and from a client without cookies', async () => {
    const body = { email: 'ninguem@example.com', password: 'qualquer-coisa' }
    for (const headers of [{ origin: 'http://localhost:3000' }, { 'sec-fetch-site': 'same-origin' }, {}]) {
      const response = await t.app.inject({ method: 'POST', url: '/api/auth/sign-in', payload: body, headers })
      expect(response.statusCode).toBe(401)
    }
  })

  describe('on the routed path and for cookie-authenticated writes', () => {
    async function liveSessions(userId: string) {
      return t.database.db.select().from(sessions).where(eq(sessions.userId, userId))
    }

    it('refuses a percent-encoded /%61pi/... write from a foreign origin, and the session survives', async () => {
      const user = await createUser(t)
      const before = await liveSessions(user.id)
      expect(before).toHaveLength(1)
      for (const url of ['/%61pi/auth/sign-out', '/%61%70%69/auth/sign-out']) {
        const response = await t.app.inject({
          method: 'POST',
          url,
          headers: { origin: 'https://evil.example', cookie: user.cookie },
        })
        expect(response.statusCode, url).toBe(403)
        expect(response.json()).toMatchObject({ code: 'origin_forbidden' })
      }
      expect(await liveSessions(user.id)).toEqual(before)
    })

    it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('checks %s as well', async (method) => {
      const response = await t.app.inject({
        method: method as 'POST',
        url: '/api/profile',
        payload: {},
        headers: { origin: 'https://evil.example' },
      })
      expect(response.statusCode).toBe(403)
      expect(response.json().code).toBe('origin_forbidden')
    })

    it('refuses a cookie write with neither Origin nor Sec-Fetch-Site: same-origin', async () => {
      const user = await createUser(t)
      const before = await liveSessions(user.id)
      for (const headers of [{}, { 'sec-fetch-site': 'same-site' }, { 'sec-fetch-site': 'cross-site' }]) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/auth/sign-out',
          headers: { cookie: user.cookie, ...headers },
        })
        expect(response.statusCode, JSON.stringify(headers)).toBe(403)
        expect(response.json()).toMatchObject({
          code: 'origin_required',
          message: 'Requisição sem origem identificada. Use o site para fazer esta operação.',
        })
      }
      expect(await liveSessions(user.id)).toEqual(before)
      // The browser's own same-origin fetch, even without Origin, passes.
      const own = await t.app.inject({
        method: 'POST',
        url: '/api/auth/sign-out',
        headers: { cookie: user.cookie, 'sec-fetch-site': 'same-origin' },
      })
      expect(own.statusCode).toBe(200)
      expect(await liveSessions(user.id)).toHaveLength(0)
    })

    it('leaves signed provider webhooks under /api/webhooks/ to their signature', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/stripe',
        payload: '{}',
        headers: { origin: 'https://evil.example', 'content-type': 'application/json', cookie: 'a=b' },
      })
      expect(response.json().code).not.toMatch(/^origin_/)
    })
  })

  it('answers a malformed JSON body with a 400 problem, not a 500', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/sign-in',
      payload: '{"email":',
      headers: { origin: 'http://localhost:3000', 'content-type': 'application/json' },
    })
    expect(response.statusCode).toBe(400)
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  })

  it('answers a schema failure with validation_failed and the failing paths', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/sign-in',
      payload: { email: 'nao-e-email' },
      headers: { origin: 'http://localhost:3000' },
    })
    expect(response.statusCode).toBe(400)
    const body = response.json()
    expect(body).toMatchObject({ code: 'validation_failed', type: 'urn:problem:validation_failed', status: 400 })
    expect(body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['email']))
  })

  it("sends OWASP's API headers on API answers, refusals included, and helmet's full set on documents", async () => {
    const user = await createUser(t)
    const answers = [
      await t.app.inject({ method: 'GET', url: '/api/health' }),
      await t.app.inject({ method: 'GET', url: '/api/auth/session', headers: { cookie: user.cookie } }),
      await t.app.inject({ method: 'GET', url: '/api/payments' }), // 401
    ]
    for (const response of answers) {
      expect(response.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'")
      expect(response.headers['x-content-type-options']).toBe('nosniff')
      expect(response.headers['x-frame-options']).toBe('DENY')
      expect(response.headers['cross-origin-resource-policy']).toBe('same-origin')
      expect(response.headers['cache-control']).toBe('no-store')
      // Document-only headers stay off JSON.
      expect(response.headers['cross-origin-opener-policy']).toBeUndefined()
      expect(response.headers['x-dns-prefetch-control']).toBeUndefined()
      // Plain http in development: HSTS would lock localhost to https.
      expect(response.headers['strict-transport-security']).toBeUndefined()
    }
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 401])

    // A path no route serves (this app has no built pages) and Swagger UI are documents.
    for (const url of ['/nao-existe', '/api/docs/static/index.html']) {
      const response = await t.app.inject({ method: 'GET', url })
      expect(response.headers['content-security-policy'], url).toContain("default-src 'self'")
      expect(response.headers['cross-origin-opener-policy'], url).toBe('same-origin')
      expect(response.headers['x-frame-options'], url).toBe('SAMEORIGIN')
      expect(response.headers['referrer-policy'], url).toBe('same-origin')
    }
    // A document under /api/ is nobody's to keep either.
    expect((await t.app.inject({ method: 'GET', url: '/api/docs/static/index.html' })).headers['cache-control']).toBe(
      'no-store',
    )
  })

  it('keeps every API answer out of caches unless its route says otherwise', async () => {
    const user = await createUser(t)
    for (const url of ['/api/subscriptions', '/api/payments', '/api/profile', '/api/auth/session']) {
      const response = await t.app.inject({ method: 'GET', url, headers: { cookie: user.cookie } })
      expect(response.statusCode, url).toBe(200)
      expect(response.headers['cache-control'], url).toBe('no-store')
    }
    // Refused answers too; the plans keep their own revalidation rule.
    expect((await t.app.inject({ method: 'GET', url: '/api/payments' })).headers['cache-control']).toBe('no-store')
    expect((await t.app.inject({ method: 'GET', url: '/api/plans' })).headers['cache-control']).toBe('no-cache')
  })
})
