import { like } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { rateLimits } from '../../db/schema/platform'
import type { TestApp } from '../../test/test-app'
import { origin } from '../../test/users'
import { fileTestApp } from '../../test/http'

// The per-IP limits are only as good as the address they key on. forgot-password is the cheapest route with
// one (10 per hour per address, no password hashing), so these tests speak through it.

let counter = 0
function forgot(t: TestApp, remoteAddress: string, forwardedFor?: string) {
  counter += 1
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/forgot-password',
    payload: { email: `ninguem${counter}@example.com` },
    headers: { origin, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    remoteAddress,
  })
}

async function resetKeys(t: TestApp): Promise<Record<string, number>> {
  const rows = await t.database.db.select().from(rateLimits).where(like(rateLimits.key, 'reset:ip:%'))
  return Object.fromEntries(rows.map((r) => [r.key, r.count]))
}

describe('TRUST_PROXY as a hop count', () => {
  const t = fileTestApp({ env: { TRUST_PROXY: '1' } })

  it('takes the client from the hop the proxy appended, whatever the client wrote before it', async () => {
    for (let i = 0; i < 10; i++) {
      const response = await forgot(t, '127.0.0.1', `10.9.${i}.1, 198.51.100.7`)
      expect(response.statusCode, `request ${i + 1}`).toBe(200)
    }
    const eleventh = await forgot(t, '127.0.0.1', '10.99.99.99, 198.51.100.7')
    expect(eleventh.statusCode).toBe(429)
    expect(await resetKeys(t)).toEqual({ 'reset:ip:198.51.100.7': 11 })
    // Another client behind the same proxy has its own budget.
    expect((await forgot(t, '127.0.0.1', '198.51.100.8')).statusCode).toBe(200)
  })
})

describe('TRUST_PROXY as proxy addresses', () => {
  const t = fileTestApp({ env: { TRUST_PROXY: '10.0.0.0/8' } })

  it('skips trusted proxies only, and ignores the header from anyone else', async () => {
    expect((await forgot(t, '10.0.0.5', '203.0.113.1, 10.0.0.9')).statusCode).toBe(200)
    // Sent straight to the app (not through a trusted proxy): the header is the client's own word.
    expect((await forgot(t, '192.0.2.50', '203.0.113.1')).statusCode).toBe(200)
    expect(await resetKeys(t)).toEqual({ 'reset:ip:203.0.113.1': 1, 'reset:ip:192.0.2.50': 1 })
  })
})

describe('IPv6 clients', () => {
  const t = fileTestApp()

  it('share one bucket per /64, so a subscriber cannot rotate through its own addresses', async () => {
    for (let i = 0; i < 10; i++) {
      const response = await forgot(t, `2001:db8:aa:bb::${(i + 1).toString(16)}`)
      expect(response.statusCode, `request ${i + 1}`).toBe(200)
    }
    expect((await forgot(t, '2001:db8:aa:bb:1234:5678:9abc:def0')).statusCode).toBe(429)
    // The next /64 is someone else.
    expect((await forgot(t, '2001:db8:aa:bc::1')).statusCode).toBe(200)
    expect(await resetKeys(t)).toEqual({ 'reset:ip:2001:db8:aa:bb::/64': 11, 'reset:ip:2001:db8:aa:bc::/64': 1 })
  })

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    expect((await forgot(t, '::ffff:192.0.2.77')).statusCode).toBe(200)
    expect((await forgot(t, '192.0.2.77')).statusCode).toBe(200)
    expect((await resetKeys(t))['reset:ip:192.0.2.77']).toBe(2)
  })
})
