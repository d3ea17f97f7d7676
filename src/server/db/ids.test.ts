import { describe, expect, it } from 'vitest'
import { timeOrderedId } from './ids'

describe('timeOrderedId', () => {
  it('is a UUID version 7 whose first 48 bits are the milliseconds', () => {
    const at = Date.UTC(2026, 10, 27, 12, 34, 56, 789)
    const id = timeOrderedId(at)
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(at)
  })

  it('sorts as text in the order of its instants, and is never the same twice', () => {
    const start = Date.UTC(2026, 0, 1)
    const ids = Array.from({ length: 5000 }, (_, n) => timeOrderedId(start + Math.floor(n / 7) * 13))
    const byText = [...ids].sort()
    const instants = byText.map((id) => Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16))
    expect(instants).toEqual([...instants].sort((a, b) => a - b))
    expect(new Set(ids).size).toBe(ids.length)
    // Across the random pool's refills too (256 ids per refill).
    expect(new Set(Array.from({ length: 1000 }, () => timeOrderedId(start))).size).toBe(1000)
  })
})
