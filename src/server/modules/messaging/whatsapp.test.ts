import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readOutbox } from './outbox'
import { verificationCodeWhatsApp } from './templates'
import {
  type FakeGraph,
  fakeGraphPhoneNumberId,
  fakeGraphToken,
  isPng,
  startFakeGraph,
} from '../../test/fake-graph/fake-graph'
import { qrPng } from '../whatsapp/chat.service'
import { createWhatsAppSender, isTemplateError, WhatsAppApiError } from './whatsapp'

const silentLog = { info: () => {} }
const goodToken = fakeGraphToken
const phoneNumberId = fakeGraphPhoneNumberId

// The Graph API fake of test support (src/server/test/fake-graph), in Meta's request and response shapes.
let graph: FakeGraph
let apiUrl: string
let tempDir: string
const requests: {
  method: string | undefined
  url: string | undefined
  authorization: string | undefined
  body: unknown
}[] = []

beforeAll(async () => {
  graph = await startFakeGraph({ templates: { codigo_verificacao: { bodyParams: 1, urlButton: true } } })
  apiUrl = graph.apiUrl
  tempDir = await mkdtemp(path.join(tmpdir(), 'whatsapp-test-'))
})

afterAll(async () => {
  await graph.close()
  await rm(tempDir, { recursive: true, force: true })
})

function recorded() {
  requests.length = 0
  for (const { method, url, authorization, body } of graph.calls) requests.push({ method, url, authorization, body })
  graph.calls.length = 0
  return requests
}

/** The production sender against the fake Graph API (its token and number unless `options` says otherwise). */
function productionSender(options: Partial<Parameters<typeof createWhatsAppSender>[0]> = {}) {
  return createWhatsAppSender({
    token: goodToken,
    phoneNumberId,
    apiUrl,
    outboxPath: path.join(tempDir, 'unused.jsonl'),
    production: true,
    log: silentLog,
    ...options,
  })
}

describe('WhatsApp Cloud API sender', () => {
  it('posts a text message with the bearer token to /{phone-number-id}/messages', async () => {
    graph.calls.length = 0
    const sender = productionSender({ apiUrl: `${apiUrl}/` })
    const { text } = verificationCodeWhatsApp('123456')

    const result = await sender.send('5585999990000', text)

    expect(result).toEqual({ id: expect.stringMatching(/^wamid\./) })
    expect(recorded()).toEqual([
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
    const sender = productionSender({ token: 'expired-token' })

    const sending = sender.send('5585999990000', 'Olá')

    await expect(sending).rejects.toThrow('Invalid OAuth access token - Cannot parse access token')
    await expect(sending).rejects.toBeInstanceOf(WhatsAppApiError)
    await expect(sending).rejects.toMatchObject({ status: 401, graphCode: 190 })
  })

  it('sends a code as the authentication template: body parameter and copy-code URL button parameter', async () => {
    graph.calls.length = 0
    const sender = productionSender()

    const result = await sender.sendCode?.('5585999990000', '123456')

    expect(result?.id).toMatch(/^wamid\./)
    expect(recorded().map((r) => r.body)).toEqual([
      {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '5585999990000',
        type: 'template',
        template: {
          name: 'codigo_verificacao',
          language: { code: 'pt_BR' },
          components: [
            { type: 'body', parameters: [{ type: 'text', text: '123456' }] },
            { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '123456' }] },
          ],
        },
      },
    ])
  })

  it("rejects a template Meta does not know with Meta's code 132001, which isTemplateError recognises", async () => {
    const sender = productionSender({ authTemplate: 'modelo_inexistente' })

    const error = await sender.sendCode?.('5585999990000', '123456').catch((e: unknown) => e)

    expect(error).toBeInstanceOf(WhatsAppApiError)
    expect(error).toMatchObject({ status: 404, graphCode: 132001 })
    expect(isTemplateError(error)).toBe(true)
    expect(isTemplateError(new WhatsAppApiError('x', 400, 131026))).toBe(false)
  })

  it('uploads a PNG to /{phone-number-id}/media (multipart) and sends it as an image message by its id', async () => {
    const sender = productionSender()
    const png = await qrPng('00020126-teste')
    const uploadsBefore = graph.uploads.length

    const sent = await sender.sendImage?.('5585999990001', png, 'QR Code PIX da fatura')

    expect(graph.uploads).toHaveLength(uploadsBefore + 1)
    const upload = graph.uploads.at(-1)!
    expect(upload.fields).toEqual({ messaging_product: 'whatsapp', type: 'image/png' })
    expect(upload.file).toMatchObject({ contentType: 'image/png' })
    expect(isPng(upload.file!.bytes)).toBe(true)
    expect(upload.file!.bytes).toEqual(png)
    expect(graph.imagesTo('5585999990001')).toEqual([{ id: upload.id, caption: 'QR Code PIX da fatura' }])
    expect(sent?.id).toMatch(/^wamid\./)
  })

  it("rejects an image whose upload Meta refuses, with Meta's code, and sends no message", async () => {
    const sender = productionSender()
    graph.failNextUpload.push({ status: 400, code: 131053, message: '(#131053) Media upload error' })

    const error = await sender.sendImage?.('5585999990002', await qrPng('x'), 'QR').catch((e: unknown) => e)

    expect(error).toMatchObject({ status: 400, graphCode: 131053 })
    expect(graph.imagesTo('5585999990002')).toEqual([])
  })

  it('rejects when the API cannot be reached', async () => {
    const sender = productionSender({ apiUrl: 'http://127.0.0.1:1/v21.0' })

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

  it('writes a line saying the QR Code image was sent, with its caption (not the bytes)', async () => {
    const outboxPath = path.join(tempDir, 'image-outbox.jsonl')
    const sender = createWhatsAppSender({ apiUrl, outboxPath, production: false, log: silentLog })

    await sender.sendImage?.('5585999990000', await qrPng('x'), 'QR Code PIX da fatura')

    expect(await readOutbox(outboxPath)).toEqual([
      expect.objectContaining({
        channel: 'whatsapp',
        to: '5585999990000',
        text: '[imagem: QR Code PIX] QR Code PIX da fatura',
      }),
    ])
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
