// Billing periods are calendar months computed in UTC; dates are instants, so the time of day is kept.

const dayMs = 86_400_000

function assertValidDate(d: Date, name: string): number {
  const ms = d.getTime()
  if (Number.isNaN(ms)) throw new RangeError(`${name} is an invalid Date`)
  return ms
}

/** `month` is 0-11. Computed by hand because Date.UTC maps years 0-99 to 1900-1999. */
function daysInMonth(year: number, month: number): number {
  if (month === 1) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return [3, 5, 8, 10].includes(month) ? 30 : 31
}

/**
 * Adds whole calendar months in UTC, keeping the time of day. The day of the month is `anchorDay` (default: the
 * start's own day), or the month's last day when the month is shorter: 31 Jan + 1 -> 28/29 Feb, and with
 * anchorDay 31, 28 Feb + 1 -> 31 Mar. Pass the subscription's original day as `anchorDay` so that renewals do not
 * drift to the 28th after February. `months` may be negative; throws a RangeError when it is not an integer or
 * when `anchorDay` is not 1-31.
 */
export function addMonthsAnchored(start: Date, months: number, anchorDay?: number): Date {
  assertValidDate(start, 'start')
  if (!Number.isInteger(months)) throw new RangeError(`months must be an integer, got ${months}`)
  const anchor = anchorDay ?? start.getUTCDate()
  if (!Number.isInteger(anchor) || anchor < 1 || anchor > 31) {
    throw new RangeError(`anchorDay must be an integer from 1 to 31, got ${anchor}`)
  }
  const monthIndex = start.getUTCFullYear() * 12 + start.getUTCMonth() + months
  const year = Math.floor(monthIndex / 12)
  const month = monthIndex - year * 12
  const result = new Date(start.getTime())
  // Set year, month and day together so no intermediate date can overflow into the next month.
  result.setUTCFullYear(year, month, Math.min(anchor, daysInMonth(year, month)))
  return result
}

/**
 * The one-calendar-month period that begins at `periodStart`: { start: periodStart, end: start + 1 month }.
 * For a renewal pass the current period's end, and the subscription's original day as `anchorDay`.
 */
export function nextPeriod(periodStart: Date, anchorDay?: number): { start: Date; end: Date } {
  return {
    start: new Date(assertValidDate(periodStart, 'periodStart')),
    end: addMonthsAnchored(periodStart, 1, anchorDay),
  }
}

/** `d` plus `n` days of exactly 24 hours (UTC has no daylight saving). `n` may be negative or fractional. */
export function addDays(d: Date, n: number): Date {
  return new Date(assertValidDate(d, 'd') + n * dayMs)
}

export type ProrateUpgradeInput = {
  /** Price of the current plan for one full period, in integer centavos. */
  currentPriceCents: number
  /** Price of the new plan for one full period, in integer centavos. */
  newPriceCents: number
  periodStart: Date
  periodEnd: Date
  /** The moment of the upgrade. Before the period counts as the whole period; after it, as nothing left. */
  now: Date
}

/**
 * What an upgrade costs now, in integer centavos: (new price − current price) × remaining time ÷ period length,
 * rounded half up to the centavo. Time is measured in whole milliseconds, remaining time is clamped to
 * [0, period length], and the result is never negative (a downgrade charges 0). The arithmetic is exact (BigInt),
 * so large prices and long periods do not drift. Throws a RangeError when a price is not a safe integer, a date
 * is invalid, or the period does not end after it starts.
 */
export function prorateUpgradeCents(input: ProrateUpgradeInput): number {
  const { currentPriceCents, newPriceCents } = input
  if (!Number.isSafeInteger(currentPriceCents) || !Number.isSafeInteger(newPriceCents)) {
    throw new RangeError('prices must be safe integers of centavos')
  }
  const start = assertValidDate(input.periodStart, 'periodStart')
  const end = assertValidDate(input.periodEnd, 'periodEnd')
  const now = assertValidDate(input.now, 'now')
  if (end <= start) throw new RangeError('periodEnd must be after periodStart')

  const difference = BigInt(newPriceCents) - BigInt(currentPriceCents)
  if (difference <= 0n) return 0
  const length = BigInt(end) - BigInt(start)
  const left = BigInt(end) - BigInt(now)
  const remaining = left < 0n ? 0n : left > length ? length : left
  // Half up: floor((2·d·r + L) / 2L) with everything non-negative.
  return Number((2n * difference * remaining + length) / (2n * length))
}
