import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendOutbox, readOutbox } from './outbox'

let tempDir: string

beforeAll(async () => {
  tempDir = await mkdtemp(path.join(tmpdir(), 'outbox-test-'))
})

afterAll(async () => {
  await rm(tempDir, { recursive: true, force: true })
})

describe('dev outbox', () => {
  it('reads a missing outbox as empty', async () => {
    expect(await readOutbox(path.join(tempDir, 'missing', 'outbox.jsonl'))).toEqual([])
  })

  it('writes one JSON line per message, with the subject only for e-mail', async () => {
    const outboxPath = path.join(tempDir, 'a', 'b', 'outbox.jsonl')

    await appendOutbox(outboxPath, { channel: 'whatsapp', to: '5585999990000', text: 'linha 1\nlinha 2' })
    await appendOutbox(outboxPath, { channel: 'email', to: 'a@b.c', subject: 'Confirme seu e-mail', text: 'oi' })

    const lines = (await readFile(outboxPath, 'utf8')).split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[2]).toBe('')
    expect(Object.keys(JSON.parse(lines[0] ?? ''))).toEqual(['at', 'channel', 'to', 'text'])
    expect(Object.keys(JSON.parse(lines[1] ?? ''))).toEqual(['at', 'channel', 'to', 'subject', 'text'])
    expect((await readOutbox(outboxPath)).map((e) => e.text)).toEqual(['linha 1\nlinha 2', 'oi'])
  })

  it('keeps lines whole under concurrent appends', async () => {
    const outboxPath = path.join(tempDir, 'concurrent.jsonl')
    const long = 'x'.repeat(20_000)

    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        appendOutbox(outboxPath, { channel: 'whatsapp', to: String(i), text: long }),
      ),
    )

    const entries = await readOutbox(outboxPath)
    expect(entries).toHaveLength(200)
    expect(new Set(entries.map((e) => e.to)).size).toBe(200)
    expect(entries.every((e) => e.text === long)).toBe(true)
  })

  it('ignores a last line that is still being written', async () => {
    const outboxPath = path.join(tempDir, 'partial.jsonl')
    await appendOutbox(outboxPath, { channel: 'whatsapp', to: '5585999990000', text: 'completa' })
    await appendFile(outboxPath, '{"at":"2026-01-01T00:00:00.000Z","chan')

    expect((await readOutbox(outboxPath)).map((e) => e.text)).toEqual(['completa'])
  })
})
