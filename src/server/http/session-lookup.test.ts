import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { verifiedCookieValue } from './session-lookup'

const sign = (value: string, secret: string) =>
  `${value}.${createHmac('sha256', secret).update(value).digest('base64')}`

describe('verifiedCookieValue', () => {
  const secret = 's'.repeat(40)

  it('gives the value of a signed cookie, again when asked again, and nothing for a forged one', () => {
    const cookie = sign('token-a', secret)
    expect(verifiedCookieValue(cookie, secret)).toBe('token-a')
    expect(verifiedCookieValue(cookie, secret)).toBe('token-a')
    // The same value with another signature, a signature of another value, another secret: forged, though the
    // good cookie was checked a moment ago.
    const other = sign('token-b', secret)
    expect(verifiedCookieValue(`token-a.${other.split('.')[1]}`, secret)).toBeNull()
    expect(verifiedCookieValue(cookie.replace('token-a', 'token-A'), secret)).toBeNull()
    expect(verifiedCookieValue(cookie, 't'.repeat(40))).toBeNull()
    expect(verifiedCookieValue('token-a', secret)).toBeNull()
  })

  it('stays right past the number of cookies it keeps', () => {
    const cookies = Array.from({ length: 5000 }, (_, i) => sign(`token-${i}`, secret))
    for (let round = 0; round < 2; round++)
      for (const [i, cookie] of cookies.entries()) expect(verifiedCookieValue(cookie, secret)).toBe(`token-${i}`)
    expect(verifiedCookieValue(`token-1.${cookies[2]?.split('.')[1]}`, secret)).toBeNull()
  })
})
