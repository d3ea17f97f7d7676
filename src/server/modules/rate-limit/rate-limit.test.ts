import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DomainError } from '../../../domain/errors'
import type { Database } from '../../db/client'
import { rateLimits } from '../../db/schema/platform'
import { createTestDatabase } from '../../test/test-app'
import { clientKey, hitRateLimit, pruneRateLimits, rateRules } from './rate-limit'

let database: Database
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await database?.close()
})

const rule = { limit: 3, windowMs: 60_000 }
const start = new Date('2026-03-10T12:00:00.000Z')
const at = (ms: number) => new Date(start.getTime() + ms)

async function outcome(key: string, now: Date, code?: 'code_hourly_limit'): Promise<string> {
  try {
    await hitRateLimit(database.db, key, rule, now, code)
    return 'ok'
  } catch (error) {
    if (error instanceof DomainError) return error.code
    throw error
  }
}

describe('hitRateLimit', () => {
  it('allows up to the limit within a window and refuses beyond it', async () => {
    const results = []
    for (let i = 0; i < 5; i++) results.push(await outcome('test:limit', at(i * 1_000)))
    expect(results).toEqual(['ok', 'ok', 'ok', 'rate_limited', 'rate_limited'])
  })

  it('starts counting again in the next window', async () => {
    for (let i = 0; i < 4; i++) await outcome('test:window', at(59_000))
    expect(await outcome('test:window', at(59_999))).toBe('rate_limited')
    expect(await outcome('test:window', at(60_000))).toBe('ok')
  })

  it('keeps keys apart', async () => {
    for (let i = 0; i < 4; i++) await outcome('test:a', at(0))
    expect(await outcome('test:a', at(0))).toBe('rate_limited')
    expect(await outcome('test:b', at(0))).toBe('ok')
  })

  it('throws the code it is given', async () => {
    for (let i = 0; i < 3; i++) await outcome('test:code', at(0), 'code_hourly_limit')
    expect(await outcome('test:code', at(0), 'code_hourly_limit')).toBe('code_hourly_limit')
  })

  it('counts parallel hits exactly (one shared counter, as across API instances)', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => outcome('test:parallel', at(0))))
    expect(results.filter((r) => r === 'ok')).toHaveLength(3)
    const [row] = await database.db.select().from(rateLimits).where(eq(rateLimits.key, 'test:parallel'))
    expect(row?.count).toBe(10)
  })

  it('names every rule with a positive limit and window', () => {
    for (const [name, r] of Object.entries(rateRules)) {
      expect(r.limit, name).toBeGreaterThan(0)
      expect(r.windowMs, name).toBeGreaterThan(0)
    }
    expect(rateRules.signInFailuresPerAccountAndIp).toEqual({ limit: 10, windowMs: 15 * 60_000 })
    expect(rateRules.signInFailuresPerAccount).toEqual({ limit: 100, windowMs: 60 * 60_000 })
  })
})

describe('clientKey', () => {
  it('keeps an IPv4 address as it is, and reads an IPv4-mapped IPv6 address as IPv4', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7')
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(clientKey('::FFFF:203.0.113.7')).toBe('203.0.113.7')
  })

  it('groups IPv6 addresses by their /64, whatever the spelling', () => {
    const key = clientKey('2001:db8:1:2::1')
    expect(key).toBe('2001:db8:1:2::/64')
    for (const ip of [
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0db8:0001:0002:0000:0000:0000:0abc',
      '2001:DB8:1:2:a::b',
      '2001:db8:1:2::1.2.3.4',
    ])
      expect(clientKey(ip), ip).toBe(key)
    expect(clientKey('2001:db8:1:3::1')).not.toBe(key)
    expect(clientKey('::1')).toBe('0:0:0:0::/64')
    expect(clientKey('2001:db8::')).toBe('2001:db8:0:0::/64')
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
  })

  it('leaves anything that is not an address alone', () => {
    expect(clientKey('unknown')).toBe('unknown')
  })
})

describe('pruneRateLimits', () => {
  it('removes windows older than a day and keeps recent ones', async () => {
    await outcome('test:old', at(0))
    await outcome('test:recent', at(23 * 60 * 60_000))
    await pruneRateLimits(database.db, at(24 * 60 * 60_000 + 60_000))
    expect(await database.db.select().from(rateLimits).where(eq(rateLimits.key, 'test:old'))).toHaveLength(0)
    expect(await database.db.select().from(rateLimits).where(eq(rateLimits.key, 'test:recent'))).toHaveLength(1)
  })
})
