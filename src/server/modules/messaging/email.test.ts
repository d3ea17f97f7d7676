import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSmtp, type TestSmtp } from '../../test/smtp'
import { createMailSender } from './email'
import { readOutbox } from './outbox'
import { confirmEmail, resetPassword } from './templates'

const silentLog = { info: () => {} }
const from = 'Atendimento Multicanal <nao-responda@example.com.br>'
const confirmUrl =
  'http://localhost:3000/api/auth/verify-email?token=eyJhbGciOiJIUzI1NiJ9.abc-def_123&callbackURL=%2Flogin'

// A real SMTP server on loopback: nodemailer speaks the real protocol to it.
let smtp: TestSmtp
let tempDir: string

beforeAll(async () => {
  smtp = await startSmtp()
  await smtp.mode('ok')
  tempDir = await mkdtemp(path.join(tmpdir(), 'email-test-'))
})

afterAll(async () => {
  await smtp.close()
  await rm(tempDir, { recursive: true, force: true })
})

/** The production sender to the test SMTP server, what it received so far forgotten. */
function smtpSender() {
  smtp.received.length = 0
  return createMailSender({
    smtpUrl: smtp.url,
    from,
    outboxPath: path.join(tempDir, 'unused.jsonl'),
    production: true,
    log: silentLog,
  })
}

describe('SMTP mail sender', () => {
  it('delivers the confirmation e-mail with subject, recipient and link', async () => {
    const sender = smtpSender()

    await sender.send({ to: 'maria@example.com.br', ...confirmEmail({ name: 'Maria', url: confirmUrl }) })

    expect(smtp.received).toHaveLength(1)
    const mail = parseMail(smtp.received[0]?.raw ?? '')
    expect(smtp.received[0]?.from).toBe('nao-responda@example.com.br')
    expect(smtp.received[0]?.to).toEqual(['maria@example.com.br'])
    expect(mail.header('to')).toBe('maria@example.com.br')
    expect(mail.header('subject')).toBe('Confirme seu e-mail')
    expect(mail.parts.map((p) => p.type)).toEqual(['text/plain', 'text/html'])
    expect(mail.parts[0]?.body.split(/\r?\n/)).toContain(confirmUrl)
    expect(mail.parts[0]?.body).toContain('Olá, Maria!')
    expect(mail.parts[1]?.body).toContain(`href="${confirmUrl.replaceAll('&', '&amp;')}"`)
    expect(await readOutbox(path.join(tempDir, 'unused.jsonl'))).toEqual([])
  })

  it('keeps an accented subject intact', async () => {
    const sender = smtpSender()
    const url = 'https://app.example.com.br/reset-password/abc?callbackURL=%2Freset-password'

    await sender.send({ to: 'joao@example.com.br', ...resetPassword({ name: 'João', url }) })

    const mail = parseMail(smtp.received[0]?.raw ?? '')
    expect(mail.header('subject')).toBe('Redefinição de senha')
    expect(mail.parts[0]?.body.split(/\r?\n/)).toContain(url)
  })
})

describe('e-mail dev outbox', () => {
  it('appends the text and subject as one JSON line when SMTP_URL is unset', async () => {
    const outboxPath = path.join(tempDir, 'outbox.jsonl')
    const sender = createMailSender({ from, outboxPath, production: false, log: silentLog })
    const message = confirmEmail({ name: 'Maria', url: confirmUrl })

    await sender.send({ to: 'maria@example.com.br', ...message })

    expect(await readOutbox(outboxPath)).toEqual([
      {
        at: expect.any(String),
        channel: 'email',
        to: 'maria@example.com.br',
        subject: 'Confirme seu e-mail',
        text: message.text,
      },
    ])
  })

  it('refuses to start in production without SMTP', () => {
    expect(() =>
      createMailSender({ from, outboxPath: path.join(tempDir, 'x.jsonl'), production: true, log: silentLog }),
    ).toThrow('Provedor de e-mail não configurado')
  })
})

/** Just enough MIME to read what nodemailer writes: folded headers, RFC 2047 words, multipart, QP and base64. */
function parseMail(raw: string) {
  const { headers, body } = splitEntity(raw)
  const header = (name: string) => headers.get(name)
  const parts: { type: string; body: string }[] = []
  collectParts(headers, body, parts)
  return { header, parts }
}

function splitEntity(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n')
  const head = end === -1 ? raw : raw.slice(0, end)
  const body = end === -1 ? '' : raw.slice(end + 4)
  const headers = new Map<string, string>()
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()))
  }
  return { headers, body }
}

function collectParts(headers: Map<string, string>, body: string, parts: { type: string; body: string }[]): void {
  const contentType = headers.get('content-type') ?? 'text/plain'
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1]
  if (contentType.toLowerCase().startsWith('multipart/') && boundary) {
    const sections = body.split(`--${boundary}`).slice(1, -1)
    for (const section of sections) {
      const part = splitEntity(section.replace(/^\r\n/, ''))
      collectParts(part.headers, part.body.replace(/\r\n$/, ''), parts)
    }
    return
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase()
  const bytes =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body, 'base64')
        : Buffer.from(body, 'utf8')
  parts.push({ type: contentType.split(';')[0]?.trim().toLowerCase() ?? '', body: bytes.toString('utf8') })
}

function decodeQuotedPrintable(text: string): Buffer {
  const unfolded = text.replace(/=\r?\n/g, '')
  const bytes: number[] = []
  for (let i = 0; i < unfolded.length; i++) {
    const hex = unfolded.slice(i + 1, i + 3)
    if (unfolded[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16))
      i += 2
    } else {
      bytes.push(...Buffer.from(unfolded[i] ?? '', 'utf8'))
    }
  }
  return Buffer.from(bytes)
}

function decodeWords(value: string): string {
  // Whitespace between two encoded words is folding, not content (RFC 2047 §6.2).
  return value.replace(/(\?=)\s+(?==\?)/g, '$1').replace(/(?:=\?[^?]+\?[BbQq]\?[^?]*\?=)+/g, (run) => {
    const chunks = [...run.matchAll(/=\?[^?]+\?([BbQq])\?([^?]*)\?=/g)].map(([, kind, data = '']) =>
      kind?.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : decodeQuotedPrintable(data.replaceAll('_', ' ')),
    )
    return Buffer.concat(chunks).toString('utf8')
  })
}
