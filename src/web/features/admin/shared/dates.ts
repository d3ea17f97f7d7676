// <input type="date"> speaks yyyy-MM-dd; the API speaks ISO instants. Dates are Fortaleza's (UTC-3, no DST).

const fortalezaOffset = '-03:00'
const ymd = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/Fortaleza',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
})

/** An instant as the yyyy-MM-dd it is in Fortaleza. */
export function toDateInput(instant: string | Date): string {
  return ymd.format(typeof instant === 'string' ? new Date(instant) : instant)
}

/** A yyyy-MM-dd as the instant that day starts in Fortaleza. */
export function fromDateInput(date: string): string {
  return new Date(`${date}T00:00:00${fortalezaOffset}`).toISOString()
}

/** The same day `months` calendar months later, clamped to the month's end (31/01 → 28/02). */
export function addMonthsToDateInput(date: string, months: number): string {
  const [y = 0, m = 1, d = 1] = date.split('-').map(Number)
  const target = new Date(Date.UTC(y, m - 1 + months, 1))
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate()
  target.setUTCDate(Math.min(d, lastDay))
  return target.toISOString().slice(0, 10)
}

export const dateInputPattern = /^\d{4}-\d{2}-\d{2}$/
