// What a PSP's webhook callback names. The body is never trusted (research §4.4): the app only takes each
// notified endToEndId/txid as a trigger to re-read the charge from the PSP.

export type PixCallbackItem = { endToEndId: string; txid?: string }

const endToEndIdPattern = /^[a-zA-Z0-9]{32}$/
const txidPattern = /^[a-zA-Z0-9]{1,35}$/
/** More items than any PSP batches: the rest is left to the reconciliation pass. */
const maxItems = 1000

/**
 * The PIX a callback body names, once each: `{ "pix": [ … ] }` as the specification says, or a JSON array at the
 * root as Banco Inter sends. Items without a well-formed endToEndId are skipped, a malformed txid is dropped.
 * An object without `pix` (Efí's registration probe `{ "evento": "teste_webhook" }`) names nothing: [].
 * Null when the body is neither an object nor an array.
 */
export function pixCallbackItems(body: unknown): PixCallbackItem[] | null {
  let list: unknown[]
  if (Array.isArray(body)) list = body
  else if (body && typeof body === 'object') {
    const pix = (body as { pix?: unknown }).pix
    list = Array.isArray(pix) ? pix : []
  } else return null
  const seen = new Map<string, PixCallbackItem>()
  for (const entry of list.slice(0, maxItems)) {
    if (!entry || typeof entry !== 'object') continue
    const { endToEndId, txid } = entry as { endToEndId?: unknown; txid?: unknown }
    if (typeof endToEndId !== 'string' || !endToEndIdPattern.test(endToEndId) || seen.has(endToEndId)) continue
    seen.set(endToEndId, {
      endToEndId,
      ...(typeof txid === 'string' && txidPattern.test(txid) ? { txid } : {}),
    })
  }
  return [...seen.values()]
}
