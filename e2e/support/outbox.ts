import { readOutbox } from '../../src/server/modules/messaging/outbox'

/** Waits for a message to reach the dev outbox, as a person waits for their phone. */
export async function waitForOutbox(
  outboxPath: string,
  match: { channel: 'whatsapp' | 'email'; to: string },
  pattern: RegExp,
): Promise<string> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const entries = (await readOutbox(outboxPath)).filter((e) => e.channel === match.channel && e.to === match.to)
    for (const entry of entries.reverse()) {
      const found = entry.text.match(pattern)
      if (found) return found[1] ?? found[0]
    }
    if (Date.now() > deadline) throw new Error(`nothing matching ${pattern} for ${match.to} in the outbox`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

export const whatsappCode = /\b(\d{6})\b/
export const verifyEmailLink = /(https?:\/\/\S+verify-email\S*)/
export const resetPasswordLink = /(https?:\/\/\S+reset-password\S*)/
