import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { addDays, addMonthsAnchored, nextPeriod, prorateUpgradeCents } from './billing-period.ts'

const utc = (iso: string) => new Date(iso)

describe('addMonthsAnchored', () => {
  it('moves to the same day and time of the next month', () => {
    expect(addMonthsAnchored(utc('2025-03-15T10:20:30.400Z'), 1)).toEqual(utc('2025-04-15T10:20:30.400Z'))
  })

  it('falls back to the last day of a shorter month', () => {
    expect(addMonthsAnchored(utc('2025-01-31T12:00:00Z'), 1)).toEqual(utc('2025-02-28T12:00:00Z'))
    expect(addMonthsAnchored(utc('2024-01-31T12:00:00Z'), 1)).toEqual(utc('2024-02-29T12:00:00Z'))
    expect(addMonthsAnchored(utc('2025-03-31T00:00:00Z'), 1)).toEqual(utc('2025-04-30T00:00:00Z'))
  })

  it('goes back to the anchor day once the month has it again', () => {
    expect(addMonthsAnchored(utc('2025-02-28T12:00:00Z'), 1, 31)).toEqual(utc('2025-03-31T12:00:00Z'))
    expect(addMonthsAnchored(utc('2025-04-30T12:00:00Z'), 1, 31)).toEqual(utc('2025-05-31T12:00:00Z'))
    expect(addMonthsAnchored(utc('2025-02-28T12:00:00Z'), 1)).toEqual(utc('2025-03-28T12:00:00Z'))
  })

  it('crosses years in both directions', () => {
    expect(addMonthsAnchored(utc('2025-12-31T23:59:59Z'), 2)).toEqual(utc('2026-02-28T23:59:59Z'))
    expect(addMonthsAnchored(utc('2025-01-15T00:00:00Z'), -1)).toEqual(utc('2024-12-15T00:00:00Z'))
    expect(addMonthsAnchored(utc('2024-02-29T00:00:00Z'), 12)).toEqual(utc('2025-02-28T00:00:00Z'))
    expect(addMonthsAnchored(utc('2025-05-10T00:00:00Z'), 0)).toEqual(utc('2025-05-10T00:00:00Z'))
  })

  it('works on UTC days whatever the local time zone would say', () => {
    // 02:00 UTC on the 1st is still the previous day in Brasília (UTC-3).
    expect(addMonthsAnchored(utc('2025-03-01T02:00:00Z'), 1)).toEqual(utc('2025-04-01T02:00:00Z'))
  })

  it('does not change the date it was given', () => {
    const start = utc('2025-01-31T12:00:00Z')
    addMonthsAnchored(start, 1)
    expect(start).toEqual(utc('2025-01-31T12:00:00Z'))
  })

  it('refuses fractional months, bad anchors and invalid dates', () => {
    const start = utc('2025-01-31T12:00:00Z')
    expect(() => addMonthsAnchored(start, 1.5)).toThrow(RangeError)
    expect(() => addMonthsAnchored(start, 1, 0)).toThrow(RangeError)
    expect(() => addMonthsAnchored(start, 1, 32)).toThrow(RangeError)
    expect(() => addMonthsAnchored(new Date(Number.NaN), 1)).toThrow(RangeError)
  })

  it('keeps renewals on the anchor day through a whole year', () => {
    let start = utc('2025-01-31T09:00:00Z')
    const ends: string[] = []
    for (let i = 0; i < 12; i++) {
      const period = nextPeriod(start, 31)
      ends.push(period.end.toISOString().slice(0, 10))
      start = period.end
    }
    expect(ends).toEqual([
      '2025-02-28',
      '2025-03-31',
      '2025-04-30',
      '2025-05-31',
      '2025-06-30',
      '2025-07-31',
      '2025-08-31',
      '2025-09-30',
      '2025-10-31',
      '2025-11-30',
      '2025-12-31',
      '2026-01-31',
    ])
  })

  const instant = fc.date({ min: utc('1970-01-01T00:00:00Z'), max: utc('2200-12-31T23:59:59Z'), noInvalidDate: true })

  it('always lands on the anchor day or the last day of the month, at the same time of day', () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: -600, max: 600 }), fc.integer({ min: 1, max: 31 }), (start, n, anchor) => {
        const result = addMonthsAnchored(start, n, anchor)
        const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate()
        expect(result.getUTCDate()).toBe(Math.min(anchor, lastDay))
        const monthsApart =
          (result.getUTCFullYear() - start.getUTCFullYear()) * 12 + result.getUTCMonth() - start.getUTCMonth()
        expect(monthsApart).toBe(n)
        const timeOfDay = (d: Date) => ((d.getTime() % 86_400_000) + 86_400_000) % 86_400_000
        expect(timeOfDay(result)).toBe(timeOfDay(start))
      }),
    )
  })
})

describe('nextPeriod', () => {
  it('lasts one calendar month from its start', () => {
    const start = utc('2025-01-31T15:00:00Z')
    expect(nextPeriod(start)).toEqual({ start, end: utc('2025-02-28T15:00:00Z') })
  })

  it('renews from the end of the previous period on the anchor day', () => {
    expect(nextPeriod(utc('2025-02-28T15:00:00Z'), 31)).toEqual({
      start: utc('2025-02-28T15:00:00Z'),
      end: utc('2025-03-31T15:00:00Z'),
    })
  })

  it('returns fresh Date objects', () => {
    const start = utc('2025-05-01T00:00:00Z')
    expect(nextPeriod(start).start).not.toBe(start)
  })
})

describe('addDays', () => {
  it('adds whole UTC days, for example the 3 days a PIX invoice stays due', () => {
    expect(addDays(utc('2025-02-27T18:30:00Z'), 3)).toEqual(utc('2025-03-02T18:30:00Z'))
    expect(addDays(utc('2024-02-27T18:30:00Z'), 3)).toEqual(utc('2024-03-01T18:30:00Z'))
    expect(addDays(utc('2025-01-01T00:00:00Z'), -1)).toEqual(utc('2024-12-31T00:00:00Z'))
  })
})

describe('prorateUpgradeCents', () => {
  const periodStart = utc('2025-04-01T00:00:00Z')
  const periodEnd = utc('2025-05-01T00:00:00Z') // 30 days
  const prices = { currentPriceCents: 9990, newPriceCents: 19990 }

  it('charges only the prorated difference on upgrade', () => {
    const now = utc('2025-04-21T00:00:00Z') // 10 of 30 days left
    expect(prorateUpgradeCents({ ...prices, periodStart, periodEnd, now })).toBe(3333)
  })

  it('charges the full difference at the very start of the period', () => {
    expect(prorateUpgradeCents({ ...prices, periodStart, periodEnd, now: periodStart })).toBe(10000)
  })

  it('charges the full difference when the upgrade happens before the period starts', () => {
    expect(prorateUpgradeCents({ ...prices, periodStart, periodEnd, now: utc('2025-03-01T00:00:00Z') })).toBe(10000)
  })

  it('charges nothing once the period is over', () => {
    expect(prorateUpgradeCents({ ...prices, periodStart, periodEnd, now: periodEnd })).toBe(0)
    expect(prorateUpgradeCents({ ...prices, periodStart, periodEnd, now: utc('2025-06-01T00:00:00Z') })).toBe(0)
  })

  it('charges nothing for a downgrade or the same price', () => {
    const now = utc('2025-04-10T00:00:00Z')
    const swapped = { currentPriceCents: 19990, newPriceCents: 9990 }
    expect(prorateUpgradeCents({ ...swapped, periodStart, periodEnd, now })).toBe(0)
    expect(prorateUpgradeCents({ currentPriceCents: 5000, newPriceCents: 5000, periodStart, periodEnd, now })).toBe(0)
  })

  it('rounds half a centavo up', () => {
    // 15 of 30 days left of a 1-centavo difference is exactly half a centavo.
    const now = utc('2025-04-16T00:00:00Z')
    expect(prorateUpgradeCents({ currentPriceCents: 0, newPriceCents: 1, periodStart, periodEnd, now })).toBe(1)
    // 45 centavos × 1/3 = 15 exactly; 100 × 1/3 = 33.33 rounds down.
    const third = utc('2025-04-21T00:00:00Z')
    expect(prorateUpgradeCents({ currentPriceCents: 0, newPriceCents: 45, periodStart, periodEnd, now: third })).toBe(
      15,
    )
    expect(prorateUpgradeCents({ currentPriceCents: 0, newPriceCents: 100, periodStart, periodEnd, now: third })).toBe(
      33,
    )
  })

  it('stays exact for very large prices', () => {
    const now = utc('2025-04-16T00:00:00Z') // half the period left
    const huge = { currentPriceCents: 0, newPriceCents: Number.MAX_SAFE_INTEGER - 1 }
    expect(prorateUpgradeCents({ ...huge, periodStart, periodEnd, now })).toBe((Number.MAX_SAFE_INTEGER - 1) / 2)
  })

  it('refuses an empty or inverted period, invalid dates and fractional prices', () => {
    const now = utc('2025-04-10T00:00:00Z')
    expect(() => prorateUpgradeCents({ ...prices, periodStart, periodEnd: periodStart, now })).toThrow(RangeError)
    expect(() => prorateUpgradeCents({ ...prices, periodStart: periodEnd, periodEnd: periodStart, now })).toThrow(
      RangeError,
    )
    expect(() => prorateUpgradeCents({ ...prices, periodStart, periodEnd, now: new Date(Number.NaN) })).toThrow(
      RangeError,
    )
    expect(() => prorateUpgradeCents({ ...prices, newPriceCents: 199.9, periodStart, periodEnd, now })).toThrow(
      RangeError,
    )
  })

  const price = fc.integer({ min: 0, max: 10_000_000 })
  const period = fc
    .tuple(fc.integer({ min: 0, max: 4_000_000_000_000 }), fc.integer({ min: 1, max: 400 * 86_400_000 }))
    .map(([start, length]) => ({ periodStart: new Date(start), periodEnd: new Date(start + length), length }))

  it('lies between nothing and the full difference', () => {
    fc.assert(
      fc.property(
        price,
        price,
        period,
        fc.integer({ min: -100 * 86_400_000, max: 500 * 86_400_000 }),
        (a, b, p, at) => {
          const now = new Date(p.periodStart.getTime() + at)
          const charge = prorateUpgradeCents({ currentPriceCents: a, newPriceCents: b, ...p, now })
          expect(Number.isInteger(charge)).toBe(true)
          expect(charge).toBeGreaterThanOrEqual(0)
          expect(charge).toBeLessThanOrEqual(Math.max(b - a, 0))
        },
      ),
    )
  })

  it('is the full difference with the whole period left and nothing with none left', () => {
    fc.assert(
      fc.property(price, price, period, (a, b, p) => {
        const input = { currentPriceCents: a, newPriceCents: b, periodStart: p.periodStart, periodEnd: p.periodEnd }
        expect(prorateUpgradeCents({ ...input, now: p.periodStart })).toBe(Math.max(b - a, 0))
        expect(prorateUpgradeCents({ ...input, now: p.periodEnd })).toBe(0)
      }),
    )
  })

  it('never charges less when more of the period is left', () => {
    fc.assert(
      fc.property(
        price,
        price,
        period,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (a, b, p, x, y) => {
          const at = (f: number) => new Date(p.periodStart.getTime() + Math.floor(f * p.length))
          const early = at(Math.min(x, y))
          const late = at(Math.max(x, y))
          const input = { currentPriceCents: a, newPriceCents: b, periodStart: p.periodStart, periodEnd: p.periodEnd }
          expect(prorateUpgradeCents({ ...input, now: early })).toBeGreaterThanOrEqual(
            prorateUpgradeCents({ ...input, now: late }),
          )
        },
      ),
    )
  })

  it('agrees with the exact fraction to within half a centavo', () => {
    fc.assert(
      fc.property(price, price, period, fc.nat(), (a, b, p, offset) => {
        const elapsed = offset % (p.length + 1)
        const now = new Date(p.periodStart.getTime() + elapsed)
        const exact = (Math.max(b - a, 0) * (p.length - elapsed)) / p.length
        const charge = prorateUpgradeCents({ currentPriceCents: a, newPriceCents: b, ...p, now })
        expect(Math.abs(charge - exact)).toBeLessThanOrEqual(0.5 + 1e-6)
      }),
    )
  })
})
