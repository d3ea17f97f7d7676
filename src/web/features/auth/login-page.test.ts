import { describe, expect, it } from 'vitest'
import { safeNextPath } from './login-page'

describe('safeNextPath', () => {
  it('keeps a path of this site, query included', () => {
    expect(safeNextPath('/dashboard/payments?tab=pix')).toBe('/dashboard/payments?tab=pix')
  })

  it.each([null, '', 'dashboard', '//evil.example/x', '/\\evil.example', 'https://evil.example/'])(
    'sends %j to the dashboard',
    (next) => {
      expect(safeNextPath(next)).toBe('/dashboard')
    },
  )
})
