import { describe, expect, it } from 'vitest'
import { addMonthsToDateInput, fromDateInput, toDateInput } from './dates'

describe('date inputs in Fortaleza time', () => {
  it('shows an instant as the day it is in Fortaleza', () => {
    expect(toDateInput('2025-03-01T02:00:00Z')).toBe('2025-02-28')
  })

  it('sends a day as the instant it starts in Fortaleza', () => {
    expect(fromDateInput('2025-03-01')).toBe('2025-03-01T03:00:00.000Z')
    expect(toDateInput(fromDateInput('2025-03-01'))).toBe('2025-03-01')
  })

  it('adds calendar months, clamping to the end of a shorter month', () => {
    expect(addMonthsToDateInput('2025-01-31', 1)).toBe('2025-02-28')
    expect(addMonthsToDateInput('2025-12-15', 1)).toBe('2026-01-15')
  })
})
