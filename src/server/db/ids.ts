// Row ids made in time order. A random UUID puts each new row's primary-key entry (and the entry of every index
// ending in the id) on a random page of the index, which at a million payments is seldom in memory; the billing
// passes insert a row every few microseconds. A UUID version 7 (RFC 9562) begins with the Unix milliseconds, so a
// new entry lands on the index's right edge, already in memory. The rest is random (74 bits): unguessable enough
// for ids that no rule depends on keeping secret, and never a sequence to enumerate.
import { randomFillSync } from 'node:crypto'

const pool = Buffer.alloc(16 * 256)
let next = pool.length

/** A UUID version 7: 48 bits of Unix milliseconds, the version and variant bits, and 74 random bits. */
export function timeOrderedId(at: number = Date.now()): string {
  if (next === pool.length) {
    randomFillSync(pool)
    next = 0
  }
  const b = pool.subarray(next, next + 16)
  next += 16
  b.writeUIntBE(Math.max(0, Math.floor(at)) % 2 ** 48, 0, 6)
  b[6] = 0x70 | ((b[6] ?? 0) & 0x0f)
  b[8] = 0x80 | ((b[8] ?? 0) & 0x3f)
  const hex = b.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
