import { describe, expect, it } from 'vitest'
import { apiSecurityHeaders, securityHeaders } from './security-headers'

describe('security header sets', () => {
  it("gives API answers the documents' HSTS, and no HSTS when the documents have none", () => {
    const secure = securityHeaders({ strictTransportSecurity: true })
    const hsts = secure.find(([name]) => name === 'strict-transport-security')
    expect(hsts?.[1]).toMatch(/^max-age=\d+/)
    expect(apiSecurityHeaders(secure)).toContainEqual(hsts)

    const plain = securityHeaders({ strictTransportSecurity: false })
    expect(apiSecurityHeaders(plain).map(([name]) => name)).toEqual([
      'cache-control',
      'content-security-policy',
      'cross-origin-resource-policy',
      'x-content-type-options',
      'x-frame-options',
    ])
  })
})
