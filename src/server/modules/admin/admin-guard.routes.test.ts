import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/test-app'
import { createUser, type TestUser } from '../../test/users'
import { send } from './admin-fixtures'

let t: TestApp
let customer: TestUser

beforeAll(async () => {
  t = await createTestApp()
  customer = await createUser(t)
})
afterAll(async () => {
  await t.close()
})

type Route = { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string }

/**
 * Every registered route under /api/admin, read from Fastify's own route tree, so that a route added later is
 * checked without anyone remembering to list it here.
 */
function adminRoutes(): Route[] {
  const tree = t.app.printRoutes({ commonPrefix: false })
  const stack: string[] = []
  const routes: Route[] = []
  for (const line of tree.split('\n')) {
    const marker = line.search(/[├└]── /)
    if (marker < 0) continue
    const depth = marker / 4
    const match = line.slice(marker + 4).match(/^(\S+)(?: \(([^)]*)\))?/)
    if (!match?.[1]) continue
    const path = (stack[depth - 1] ?? '') + match[1]
    stack[depth] = path
    stack.length = depth + 1
    if (!path.startsWith('/api/admin')) continue
    for (const method of (match[2] ?? '').split(', ')) {
      if (method === 'GET' || method === 'POST' || method === 'PUT' || method === 'DELETE') {
        routes.push({ method, url: path.replace(/:(\w+)/g, 'some-$1') })
      }
    }
  }
  return routes
}

describe('every /api/admin route', () => {
  it('is found in the route tree (the walk below is not vacuous)', () => {
    const found = adminRoutes().map((r) => `${r.method} ${r.url}`)
    expect(found).toEqual(
      expect.arrayContaining([
        'GET /api/admin/subscriptions',
        'POST /api/admin/subscriptions',
        'PUT /api/admin/subscriptions/some-id',
        'POST /api/admin/subscriptions/some-id/cancel',
        'GET /api/admin/payments',
        'POST /api/admin/payments/some-id/confirm',
        'GET /api/admin/users',
        'GET /api/admin/customers',
        'PUT /api/admin/users/some-id/role',
        'GET /api/admin/plans',
        'POST /api/admin/plans',
        'PUT /api/admin/plans/some-id',
        'DELETE /api/admin/plans/some-id',
        'GET /api/admin/pix-settings',
        'PUT /api/admin/pix-settings',
        'GET /api/admin/card-info',
      ]),
    )
  })

  it('answers 401 to anonymous callers and 403 to regular users, whatever the body', async () => {
    const results: string[] = []
    for (const route of adminRoutes()) {
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : {}
      const anonymous = await send(t.app, route.method, route.url, { body })
      const regular = await send(t.app, route.method, route.url, { body, cookie: customer.cookie })
      results.push(`${route.method} ${route.url} → ${anonymous.statusCode} ${regular.statusCode}`)
      if (anonymous.statusCode === 401) expect(anonymous.json()).toMatchObject({ code: 'unauthenticated' })
      if (regular.statusCode === 403) {
        expect(regular.json()).toMatchObject({ detail: 'Você não tem permissão para acessar esta área' })
      }
    }
    expect(results.filter((r) => !r.endsWith('→ 401 403'))).toEqual([])
  })
})
