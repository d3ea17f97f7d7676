// What the server tests share for talking to the app as a browser would: the test app for the whole file, requests
// from our origin with a client address, a fresh address per test (so the per-IP rate limits of one test never leak
// into another) and the signed-in session. Fixtures that insert rows live beside the module they serve.
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, expect } from 'vitest'
import { createTestApp, type TestApp } from './test-app'
import { origin } from './users'

/**
 * The file's test app: started in beforeAll, closed in afterAll. The handle reads the running app, so it can be
 * used in tests and helpers declared at the top of the file.
 */
export function fileTestApp(options?: Parameters<typeof createTestApp>[0]): TestApp {
  let current: TestApp | undefined
  beforeAll(async () => {
    current = await createTestApp(options)
  })
  afterAll(async () => {
    await current?.close()
  })
  return lateHandle(() => current, 'the test app')
}

/** A handle on what a beforeAll hook starts (`read` gives it, once started), usable from the top of the file. */
export function lateHandle<T extends object>(read: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_, key) {
      const current = read()
      if (!current) throw new Error(`${what} starts in beforeAll: use it inside a test or a hook`)
      const value = Reflect.get(current, key)
      return typeof value === 'function' ? value.bind(current) : value
    },
  })
}

/**
 * A source of client addresses, one new address per call, in 10.<block>.x.y: files that count per-IP limits use a
 * block each, so their addresses never meet.
 */
export function ipSource(block: number): () => string {
  let counter = 0
  return () => {
    counter += 1
    return `10.${block}.${Math.floor(counter / 250)}.${(counter % 250) + 1}`
  }
}

/** A POST from our origin (the CSRF check lets it through) from `ip`, with the session or browser cookie if any. */
export function postFrom(
  app: FastifyInstance,
  url: string,
  payload: Record<string, unknown>,
  ip: string,
  cookie?: string,
) {
  return app.inject({
    method: 'POST',
    url,
    payload,
    headers: { origin, ...(cookie ? { cookie } : {}) },
    remoteAddress: ip,
  })
}

/** The answer has `status` and its JSON body holds `body` (the error's code and its Portuguese message, say). */
export function expectAnswer(
  response: { statusCode: number; body: string; json(): unknown },
  status: number,
  body: Record<string, unknown>,
): void {
  expect(response.statusCode, response.body).toBe(status)
  expect(response.json()).toMatchObject(body)
}

/** The database is out of reach: 503 problem+json with Retry-After and the Portuguese message. */
export function expectUnavailable(response: {
  statusCode: number
  body: string
  headers: Record<string, unknown>
  json(): unknown
}) {
  expect(response.statusCode, response.body).toBe(503)
  expect(response.headers['content-type']).toContain('application/problem+json')
  expect(response.headers['retry-after']).toMatch(/^\d+$/)
  expect(response.json()).toMatchObject({
    code: 'service_unavailable',
    message: 'Serviço temporariamente indisponível. Tente novamente em instantes.',
  })
}

/** GET /api/auth/session with that cookie (none: signed out). */
export function getSession(app: FastifyInstance, cookie?: string) {
  return app.inject({ method: 'GET', url: '/api/auth/session', headers: cookie ? { cookie } : {} })
}

/** Every route the server answers, read from Fastify's own route tree. */
export function listRoutes(app: FastifyInstance): { method: string; url: string }[] {
  const routes: { method: string; url: string }[] = []
  const stack: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = line.match(/^([│ ]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/u)
    if (!match) continue
    const depth = (match[1] ?? '').length / 4
    stack.length = depth
    stack.push(match[2] ?? '')
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim()))
      if (method) routes.push({ method, url: stack.join('') })
  }
  return routes
}
