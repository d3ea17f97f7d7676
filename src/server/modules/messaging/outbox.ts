import { appendFile, mkdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'

/** The slice of a pino logger the messaging providers use. */
export interface MessagingLog {
  info(obj: object, msg: string): void
}

export type OutboxChannel = 'whatsapp' | 'email'

export interface OutboxMessage {
  channel: OutboxChannel
  to: string
  subject?: string
  text: string
}

export const outboxEntrySchema = z.object({
  at: z.string(),
  channel: z.enum(['whatsapp', 'email']),
  to: z.string(),
  subject: z.string().optional(),
  text: z.string(),
})

export type OutboxEntry = z.infer<typeof outboxEntrySchema>

/**
 * Appends one JSON line to the dev outbox (ARCHITECTURE.md, "Dev outbox") and logs that it did (not what).
 * The whole line goes out in a single append, so concurrent calls never interleave.
 */
export async function appendOutbox(
  outboxPath: string,
  message: OutboxMessage,
  log?: MessagingLog,
): Promise<OutboxEntry> {
  const entry: OutboxEntry = {
    at: new Date().toISOString(),
    channel: message.channel,
    to: message.to,
    ...(message.subject === undefined ? {} : { subject: message.subject }),
    text: message.text,
  }
  await mkdir(path.dirname(outboxPath), { recursive: true })
  await appendFile(outboxPath, `${JSON.stringify(entry)}\n`, 'utf8')
  // Never the text nor the recipient: codes and links stay in the file (the log may be shipped elsewhere).
  log?.info({ channel: entry.channel }, `dev outbox: ${entry.channel} message written to ${outboxPath}`)
  return entry
}

/** Entries of the dev outbox, oldest first; a missing file is an empty outbox. */
export async function readOutbox(outboxPath: string): Promise<OutboxEntry[]> {
  let content: string
  try {
    content = await readFile(outboxPath, 'utf8')
  } catch (error) {
    if (isNodeError(error) && error.code === 'ENOENT') return []
    throw error
  }
  // Only newline-terminated lines are complete: another process may be writing the last one.
  const lines = content.split('\n').slice(0, -1)
  return lines.filter((line) => line.trim() !== '').map((line) => outboxEntrySchema.parse(JSON.parse(line)))
}

function isNodeError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error
}
