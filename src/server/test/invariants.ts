import { expect } from 'vitest'
import type { Executor } from '../db/client'
import { checkInvariants, formatReport, invariants } from '../db/invariants'

/**
 * Ends a journey test: every invariant of `npm run db:check` holds on its database (the report is the message).
 * `except` leaves out invariants a file's fixtures bypass on purpose (rows inserted directly, not through the API);
 * say why where it is used.
 */
export async function expectInvariantsHold(db: Executor, options: { except?: readonly string[] } = {}): Promise<void> {
  const except = options.except ?? []
  const report = await checkInvariants(
    db,
    invariants.map((i) => i.name).filter((name) => !except.includes(name)),
  )
  expect(report.violations, formatReport(report)).toEqual([])
}
