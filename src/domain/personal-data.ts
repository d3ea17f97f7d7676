// Rules of the account deletion (LGPD): how an erased person is written and how their traces are scrubbed from the
// records that must stay (fiscal records, audit trail). Pure functions; the server applies them in one transaction.

/** What replaces a piece of personal data inside a kept record. */
export const removedText = '[removido]'

/**
 * The e-mail of an erased account: unique (the id), never deliverable (`.invalid` is reserved by RFC 2606), and not a
 * valid sign-up address, so the person's real e-mail is free for a new account at once.
 */
export function erasedEmail(profileId: string): string {
  return `excluido-${profileId}@invalid`
}

export function isErasedEmail(email: string): boolean {
  return /^excluido-[^@]+@invalid$/.test(email)
}

export type ScrubRules = {
  /** Whole string values that are the person's data (name, e-mail, numbers, company): replaced wherever they occur. */
  values: ReadonlySet<string>
  /** Values also cut out of longer strings (e-mail addresses and phone numbers are unambiguous enough). */
  substrings: readonly string[]
  /** Keys whose value is personal data whatever it holds (only for records that are about the person). */
  keys: ReadonlySet<string>
}

/** Only strings worth matching: short ones (initials, empty company) would hit unrelated text. */
export function piiValues(candidates: Iterable<unknown>): Set<string> {
  const out = new Set<string>()
  for (const value of candidates) {
    if (typeof value !== 'string') continue
    const trimmed = value.trim()
    if (trimmed.length >= 3 && trimmed !== removedText && !isErasedEmail(trimmed)) out.add(trimmed)
  }
  return out
}

/** E-mail addresses and phone numbers among the values: safe to cut out of longer text. */
export function piiSubstrings(values: Iterable<string>): string[] {
  return [...values].filter((v) => v.includes('@') || /^\+?\d{10,15}$/.test(v))
}

/** A copy of a JSON value with the person's data replaced by `[removido]` (objects under a personal key: null). */
export function scrubJson(value: unknown, rules: ScrubRules): unknown {
  if (typeof value === 'string') {
    if (rules.values.has(value.trim())) return removedText
    let out = value
    for (const sub of rules.substrings) if (out.includes(sub)) out = out.replaceAll(sub, removedText)
    return out
  }
  if (Array.isArray(value)) return value.map((item) => scrubJson(item, rules))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      if (rules.keys.has(key) && item !== null && item !== undefined && item !== '') {
        out[key] = typeof item === 'object' ? null : removedText
      } else {
        out[key] = scrubJson(item, rules)
      }
    }
    return out
  }
  return value
}

/** Keys of our own snapshots (audit before/after of a profile) that hold personal data. */
export const profileSnapshotKeys: ReadonlySet<string> = new Set([
  'name',
  'email',
  'companyName',
  'company_name',
  'whatsappNumber',
  'whatsapp_number',
  'phone',
  'phoneNumber',
  'phone_number',
  'ip',
  'ipAddress',
  'userAgent',
])

/** Keys of provider payloads (Stripe objects) that hold the customer's personal data. */
export const providerPayloadKeys: ReadonlySet<string> = new Set([
  'email',
  'phone',
  'address',
  'shipping',
  'billing_details',
  'customer_email',
  'customer_name',
  'customer_phone',
  'customer_address',
  'customer_shipping',
  'customer_details',
])
