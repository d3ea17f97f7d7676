import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readOutbox } from './outbox'
import { verificationCodeWhatsApp } from './templates'
import { createWhatsAppSender, WhatsAppApiError } from './whatsapp'

const silentLog = { info: () => {} }
const goodToken = 'EAAG-test-token'
const phoneNumberId = '106540352242922'

interface RecordedRequest {
  method: string | undefined
  url: string | undefined
  authorization: string | undefined
  body: unknown
}

// A fake of the Graph API's POST /{phone-number-id}/messages, in its real request and response shapes.
const requests: RecordedRequest[] = []
let server: Server
let apiUrl: string
let tempDir: string

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks).toString('utf8')
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const raw = await readBody(request)
    const body: unknown = raw ? JSON.parse(raw) : undefined
    requests.push({ method: request.method, url: request.url, authorization: request.headers.authorization, body })
    response.setHeader('content-type', 'application/json')
    if (request.headers.authorization !== `Bearer ${goodToken}`) {
      response.statusCode = 401
      response.end(
        JSON.stringify({
          error: {
            message: 'Invalid OAuth access token - Cannot parse access token',
            type: 'OAuthException',
            code: 190,
            fbtrace_id: 'AbCdEfGh123',
          },
        }),
      )
      return
    }
    if (request.method !== 'POST' || request.url !== `/v21.0/${phoneNumberId}/messages`) {
      response.statusCode = 404
      response.end(
        JSON.stringify({ error: { message: 'Unknown path components', type: 'OAuthException', code: 2500 } }),
      )
      return
    }
    const to = typeof body === 'object' && body !== null && 'to' in body ? String(body.to) : ''
    response.end(
      JSON.stringify({
        messaging_product: 'whatsapp',
        contacts: [{ input: to, wa_id: to }],
        messages: [{ id: 'wamid.X' }],
      }),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (typeof address !== 'object' || address === null) throw new Error('server is not listening on TCP')
  const { port } = address
  apiUrl = `http://127.0.0.1:${port}/v21.0`
  tempDir = await mkdtemp(path.join(tmpdir(), 'whatsapp-test-'))
})

afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
  await rm(tempDir, { recursive: true, force: true })
})

describe('WhatsApp Cloud API sender', () => {
  it('posts a text message with the bearer token to /{phone-number-id}/messages', async () => {
    requests.length = 0
    const sender = createWhatsAppSender({
      token: goodToken,
      phoneNumberId,
      apiUrl: `${apiUrl}/`,
      outboxPath: path.join(tempDir, 'unused.jsonl'),
      production: true,
      log: silentLog,
    })
    const { text } = verificationCodeWhatsApp('123456')

    await sender.send('5585999990000', text)

    expect(requests).toEqual([
      {
        method: 'POST',
        url: `/v21.0/${phoneNumberId}/messages`,
        authorization: `Bearer ${goodToken}`,
        body: {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: '5585999990000',
          type: 'text',
          text: { preview_url: false, body: text },
        },
      },
    ])
    expect(await readOutbox(path.join(tempDir, 'unused.jsonl'))).toEqual([])
  })

  it("rejects with Graph's error message when the API refuses the token", async () => {
    const sender = createWhatsAppSender({
      token: 'expired-token',
      phoneNumberId,
      apiUrl,
      outboxPath: path.join(tempDir, 'unused.jsonl'),
      production: true,
      log: silentLog,
    })

    const sending = sender.send('5585999990000', 'Olá')

    await expect(sending).rejects.toThrow('Invalid OAuth access token - Cannot parse access token')
    await expect(sending).rejects.toBeInstanceOf(WhatsAppApiError)
    await expect(sending).rejects.toMatchObject({ status: 401, graphCode: 190 })
  })

  it('rejects when the API cannot be reached', async () => {
    const sender = createWhatsAppSender({
      token: goodToken,
      phoneNumberId,
      apiUrl: 'http://127.0.0.1:1/v21.0',
      outboxPath: path.join(tempDir, 'unused.jsonl'),
      production: true,
      log: silentLog,
    })

    await expect(sender.send('5585999990000', 'Olá')).rejects.toThrow('WhatsApp Cloud API inacessível')
  })
})

describe('WhatsApp dev outbox', () => {
  it('appends the message as one JSON line when no token is configured', async () => {
    const outboxPath = path.join(tempDir, 'nested', 'outbox.jsonl')
    const logged: object[] = []
    const sender = createWhatsAppSender({
      apiUrl,
      outboxPath,
      production: false,
      log: { info: (obj) => logged.push(obj) },
    })

    await sender.send('5585999990000', verificationCodeWhatsApp('654321').text)

    const entries = await readOutbox(outboxPath)
    expect(entries).toEqual([
      {
        at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        channel: 'whatsapp',
        to: '5585999990000',
        text: 'Seu código de verificação é 654321. Ele expira em 10 minutos. Não compartilhe este código.',
      },
    ])
    expect(entries[0]?.text.match(/\b\d{6}\b/)?.[0]).toBe('654321')
    expect(logged).toHaveLength(1)
  })

  it('refuses to start in production without the Cloud API configured', () => {
    expect(() =>
      createWhatsAppSender({ apiUrl, outboxPath: path.join(tempDir, 'x.jsonl'), production: true, log: silentLog }),
    ).toThrow('Provedor de WhatsApp não configurado')
  })

  it('refuses a token without a phone number id', () => {
    expect(() =>
      createWhatsAppSender({
        token: goodToken,
        apiUrl,
        outboxPath: path.join(tempDir, 'x.jsonl'),
        production: false,
        log: silentLog,
      }),
    ).toThrow('devem ser definidos juntos')
  })
})
