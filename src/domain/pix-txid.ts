// The txid of a PSP charge (API Pix cob/cobv), derived from our payment id so a retried create can never make a
// second charge: the PSP keeps one charge per txid, and the same payment always gives the same txid.

const uuidPattern = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i
const chargeTxidPattern = /^[A-Za-z0-9]{26,35}$/

/** True when `txid` is a valid txid of a cob, cobv or cobr: 26 to 35 letters and digits (case-sensitive). */
export function isChargeTxid(txid: string): boolean {
  return chargeTxidPattern.test(txid)
}

/**
 * The charge txid of a payment: its UUID without the four hyphens, 32 hexadecimal digits with their case kept
 * ('0f6f…-…' -> '0f6f…'). Deterministic and reversible (see `paymentIdFromTxid`), hence distinct for distinct ids.
 * Throws a RangeError for an id that is not a UUID (payment ids are `randomUUID()`).
 */
export function pixTxidFor(paymentId: string): string {
  const match = uuidPattern.exec(paymentId)
  if (!match) throw new RangeError(`pixTxidFor: the payment id must be a UUID, got '${paymentId}'`)
  return match.slice(1).join('')
}

/** The payment id a txid made by `pixTxidFor` came from, or null for any other txid (a static code's, a forgery). */
export function paymentIdFromTxid(txid: string): string | null {
  if (!/^[0-9a-f]{32}$/i.test(txid)) return null
  return [txid.slice(0, 8), txid.slice(8, 12), txid.slice(12, 16), txid.slice(16, 20), txid.slice(20)].join('-')
}
