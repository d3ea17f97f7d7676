import { createHmac } from 'node:crypto'

/** RFC 4648 base32 (the `secret` of an otpauth:// URI) to bytes. */
function base32Decode(input: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = 0
  let value = 0
  const out: number[] = []
  for (const char of input.toUpperCase().replace(/=+$/, '')) {
    const index = alphabet.indexOf(char)
    if (index < 0) throw new Error(`not base32: ${char}`)
    value = (value << 5) | index
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

/** The 6-digit TOTP code (RFC 6238: HMAC-SHA1, 30 s steps) an authenticator app shows for this base32 secret. */
export function totpCode(base32Secret: string, at: number = Date.now()): string {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 1000 / 30)))
  const hmac = createHmac('sha1', base32Decode(base32Secret)).update(counter).digest()
  const offset = (hmac[hmac.length - 1] ?? 0) & 0x0f
  const binary = hmac.readUInt32BE(offset) & 0x7fffffff
  return String(binary % 1_000_000).padStart(6, '0')
}

/** The base32 secret of an otpauth:// URI. */
export function secretOf(totpUri: string): string {
  const secret = new URL(totpUri).searchParams.get('secret')
  if (!secret) throw new Error(`no secret in ${totpUri}`)
  return secret
}
