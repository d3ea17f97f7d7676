// A local fake of Meta's Graph API (WhatsApp Cloud API) for tests: it records POST /{phone-number-id}/messages
// calls and POST /{phone-number-id}/media uploads (multipart, as Meta takes them), answers like Meta (wamid ids; template errors with Meta's error body), and builds and posts signed inbound
// and status webhooks to the app, the way Meta signs them (X-Hub-Signature-256 over the raw body).
import { createHmac, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { FastifyInstance } from 'fastify'

export const fakeGraphToken = 'EAAG-fake-graph-token'
export const fakeGraphPhoneNumberId = '106540352242922'
export const fakeGraphAppSecret = 'fake-graph-app-secret-0123456789'
export const fakeGraphVerifyToken = 'fake-graph-verify-token'
/** Our business number, as Meta shows it in webhooks. */
export const fakeGraphBusinessNumber = '5585988887777'

export type GraphCall = {
  method: string | undefined
  url: string | undefined
  authorization: string | undefined
  body: Record<string, unknown>
  /** The wamid answered, when the call was accepted. */
  id?: string
}

/** A media upload (POST /{phone-number-id}/media): its form fields and the file's bytes. */
export type MediaUpload = {
  id: string
  fields: Record<string, string>
  file: { filename: string | null; contentType: string | null; bytes: Buffer } | null
}

export type GraphError = { status: number; code: number; message: string; details?: string }

/** An approved template: how many body parameters it takes and whether it has a copy-code (URL) button. */
export type ApprovedTemplate = { bodyParams: number; urlButton?: boolean }

export type FakeGraph = {
  apiUrl: string
  calls: GraphCall[]
  /** Media uploads accepted, in order (only image/png and image/jpeg files are accepted, like Meta's image type). */
  uploads: MediaUpload[]
  /** Approved templates by name; a template call outside it is refused like Meta does (132001). */
  templates: Map<string, ApprovedTemplate>
  /** The next calls fail with these errors, in order (e.g. 131026 for an undeliverable message). */
  failNext: GraphError[]
  /** The next media uploads fail with these errors, in order (the messages still go through). */
  failNextUpload: GraphError[]
  /** The next calls stall, in order: 'hang' never answers (the socket is closed at close()), 'slow' answers after `ms`. */
  stallNext: { mode: 'hang' | 'slow'; ms?: number }[]
  /** The env vars that point the app at this fake. */
  env(): Record<string, string>
  /** Text messages sent to a number, in order. */
  textsTo(to: string): string[]
  /** Image messages sent to a number (accepted), in order: the media id and the caption. */
  imagesTo(to: string): { id: string; caption: string | undefined }[]
  close(): Promise<void>
}

function wamid(): string {
  return `wamid.${randomBytes(24).toString('base64url')}`
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks)
}

/** Enough of multipart/form-data for the media upload: text fields and one file part. */
export function parseMultipart(raw: Buffer, contentType: string): Omit<MediaUpload, 'id'> | null {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType)
  const marker = boundary?.[1] ?? boundary?.[2]
  if (!marker) return null
  const delimiter = Buffer.from(`--${marker}`)
  const fields: Record<string, string> = {}
  let file: MediaUpload['file'] = null
  let start = raw.indexOf(delimiter)
  while (start !== -1) {
    const partStart = start + delimiter.length
    if (raw.subarray(partStart, partStart + 2).toString() === '--') break
    const next = raw.indexOf(delimiter, partStart)
    if (next === -1) break
    const part = raw.subarray(partStart + 2, next - 2) // skip the CRLF after the delimiter and before the next
    const headerEnd = part.indexOf('\r\n\r\n')
    if (headerEnd !== -1) {
      const headers = part.subarray(0, headerEnd).toString('utf8')
      const content = part.subarray(headerEnd + 4)
      const name = /name="([^"]*)"/i.exec(headers)?.[1]
      const filename = /filename="([^"]*)"/i.exec(headers)?.[1] ?? null
      const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? null
      if (name === 'file') file = { filename, contentType: type, bytes: Buffer.from(content) }
      else if (name) fields[name] = content.toString('utf8')
    }
    start = next
  }
  return { fields, file }
}

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** True when the bytes start with the PNG signature (89 50 4E 47 0D 0A 1A 0A). */
export function isPng(bytes: Buffer): boolean {
  return bytes.subarray(0, pngSignature.length).equals(pngSignature)
}

/** Meta's error body for an API error. */
export function graphErrorBody(error: GraphError) {
  return {
    error: {
      message: error.message,
      type: 'OAuthException',
      code: error.code,
      ...(error.details ? { error_data: { messaging_product: 'whatsapp', details: error.details } } : {}),
      fbtrace_id: `A${randomBytes(8).toString('hex')}`,
    },
  }
}

function templateError(body: Record<string, unknown>, templates: Map<string, ApprovedTemplate>): GraphError | null {
  const template = body.template as
    | { name?: string; language?: { code?: string }; components?: { type?: string; parameters?: unknown[] }[] }
    | undefined
  const name = template?.name ?? ''
  const approved = templates.get(name)
  const lang = template?.language?.code ?? ''
  if (!approved)
    return {
      status: 404,
      code: 132001,
      message: '(#132001) Template name does not exist in the translation',
      details: `template name (${name}) does not exist in ${lang}`,
    }
  const bodyParams = template?.components?.find((c) => c.type === 'body')?.parameters?.length ?? 0
  const buttons = template?.components?.filter((c) => c.type === 'button').length ?? 0
  if (bodyParams !== approved.bodyParams || buttons !== (approved.urlButton ? 1 : 0))
    return {
      status: 400,
      code: 132000,
      message: '(#132000) Number of parameters does not match the expected number of params',
      details: `body: number of localizable_params (${bodyParams}) does not match the expected number of params (${approved.bodyParams})`,
    }
  return null
}

export async function startFakeGraph(
  options: { templates?: Record<string, ApprovedTemplate> } = {},
): Promise<FakeGraph> {
  const calls: GraphCall[] = []
  const uploads: MediaUpload[] = []
  const failNextUpload: GraphError[] = []
  const failNext: GraphError[] = []
  const stallNext: FakeGraph['stallNext'] = []
  const templates = new Map<string, ApprovedTemplate>(Object.entries(options.templates ?? {}))
  const server: Server = createServer(async (request, response) => {
    const rawBytes = await readBody(request)
    const contentType = request.headers['content-type'] ?? ''
    const multipart = contentType.toLowerCase().startsWith('multipart/form-data')
    const raw = multipart ? '' : rawBytes.toString('utf8')
    let body: Record<string, unknown> = {}
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {}
    } catch {
      body = {}
    }
    const call: GraphCall = {
      method: request.method,
      url: request.url,
      authorization: request.headers.authorization,
      body,
    }
    calls.push(call)
    response.setHeader('content-type', 'application/json')
    const fail = (error: GraphError) => {
      response.statusCode = error.status
      response.end(JSON.stringify(graphErrorBody(error)))
    }
    if (request.headers.authorization !== `Bearer ${fakeGraphToken}`)
      return fail({ status: 401, code: 190, message: 'Invalid OAuth access token - Cannot parse access token' })
    const media = request.url === `/v21.0/${fakeGraphPhoneNumberId}/media`
    if (request.method !== 'POST' || (!media && request.url !== `/v21.0/${fakeGraphPhoneNumberId}/messages`))
      return fail({ status: 404, code: 2500, message: 'Unknown path components' })
    const stall = stallNext.shift()
    if (stall?.mode === 'hang') return
    if (stall?.mode === 'slow') await new Promise((resolve) => setTimeout(resolve, stall.ms ?? 3000))
    const planned = failNext.shift()
    if (planned) return fail(planned)
    if (media) {
      const uploadError = failNextUpload.shift()
      if (uploadError) return fail(uploadError)
      const form = multipart ? parseMultipart(rawBytes, contentType) : null
      call.body = form ? { ...form.fields, file: form.file?.filename ?? null } : {}
      const mime = form?.file?.contentType ?? ''
      if (!form?.file || form.fields.messaging_product !== 'whatsapp' || !['image/png', 'image/jpeg'].includes(mime))
        return fail({ status: 400, code: 100, message: '(#100) Invalid parameter' })
      if (mime === 'image/png' && !isPng(form.file.bytes))
        return fail({ status: 400, code: 131053, message: '(#131053) Media upload error' })
      const id = String(1_000_000_000_000 + uploads.length + Math.floor(Math.random() * 1e9))
      uploads.push({ id, fields: form.fields, file: form.file })
      call.id = id
      return response.end(JSON.stringify({ id }))
    }
    if (body.type === 'image') {
      const image = body.image as { id?: unknown } | undefined
      if (typeof image?.id !== 'string' || !uploads.some((u) => u.id === image.id))
        return fail({ status: 400, code: 131053, message: '(#131053) Media upload error', details: 'unknown media id' })
    }
    if (body.type === 'template') {
      const error = templateError(body, templates)
      if (error) return fail(error)
    }
    const to = String(body.to ?? '')
    call.id = wamid()
    response.end(
      JSON.stringify({
        messaging_product: 'whatsapp',
        contacts: [{ input: to, wa_id: to }],
        messages: [{ id: call.id, ...(body.type === 'template' ? { message_status: 'accepted' } : {}) }],
      }),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (typeof address !== 'object' || address === null) throw new Error('fake Graph API is not listening on TCP')
  const apiUrl = `http://127.0.0.1:${address.port}/v21.0`
  return {
    apiUrl,
    calls,
    uploads,
    templates,
    failNext,
    failNextUpload,
    stallNext,
    env: () => ({
      WHATSAPP_TOKEN: fakeGraphToken,
      WHATSAPP_PHONE_NUMBER_ID: fakeGraphPhoneNumberId,
      WHATSAPP_API_URL: apiUrl,
      WHATSAPP_APP_SECRET: fakeGraphAppSecret,
      WHATSAPP_VERIFY_TOKEN: fakeGraphVerifyToken,
    }),
    textsTo: (to) =>
      calls
        .filter((c) => c.id && c.body.to === to && c.body.type === 'text')
        .map((c) => String((c.body.text as { body?: unknown } | undefined)?.body ?? '')),
    imagesTo: (to) =>
      calls
        .filter((c) => c.id && c.body.to === to && c.body.type === 'image')
        .map((c) => {
          const image = c.body.image as { id: string; caption?: string }
          return { id: image.id, caption: image.caption }
        }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((e) => (e ? reject(e) : resolve()))
      }),
  }
}

// ---- webhooks Meta posts ----

export function signBody(raw: string, secret = fakeGraphAppSecret): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`
}

function envelope(value: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: fakeGraphBusinessNumber, phone_number_id: fakeGraphPhoneNumberId },
              ...value,
            },
          },
        ],
      },
    ],
  }
}

/** A customer's text message, as Meta posts it. */
export function inboundText(input: { from: string; text: string; id?: string; at?: Date; name?: string }) {
  const id = input.id ?? wamid()
  return {
    id,
    payload: envelope({
      contacts: [{ profile: { name: input.name ?? 'Cliente' }, wa_id: input.from }],
      messages: [
        {
          from: input.from,
          id,
          timestamp: String(Math.floor((input.at ?? new Date()).getTime() / 1000)),
          type: 'text',
          text: { body: input.text },
        },
      ],
    }),
  }
}

/** A delivery receipt for one of our messages ('failed' carries Meta's error). */
export function statusUpdate(input: {
  id: string
  recipient: string
  status: 'sent' | 'delivered' | 'read' | 'failed'
  at?: Date
  error?: { code: number; title: string }
}) {
  return envelope({
    statuses: [
      {
        id: input.id,
        status: input.status,
        timestamp: String(Math.floor((input.at ?? new Date()).getTime() / 1000)),
        recipient_id: input.recipient,
        ...(input.error
          ? {
              errors: [
                {
                  code: input.error.code,
                  title: input.error.title,
                  message: input.error.title,
                  error_data: { details: input.error.title },
                },
              ],
            }
          : {}),
      },
    ],
  })
}

/**
 * Posts a webhook to the app as Meta does: the JSON body signed with the app secret. `signature: null` sends none;
 * a string sends that header as is. `target` is the app (inject) or a base URL (real HTTP, e.g. the e2e server).
 */
export async function postWebhook(
  target: FastifyInstance | string,
  payload: unknown,
  options: { secret?: string; signature?: string | null } = {},
): Promise<{ statusCode: number; body: string }> {
  const raw = JSON.stringify(payload)
  const signature = options.signature === undefined ? signBody(raw, options.secret) : options.signature
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (signature !== null) headers['x-hub-signature-256'] = signature
  if (typeof target === 'string') {
    const response = await fetch(`${target.replace(/\/+$/, '')}/api/webhooks/whatsapp`, {
      method: 'POST',
      headers,
      body: raw,
    })
    return { statusCode: response.status, body: await response.text() }
  }
  const response = await target.inject({ method: 'POST', url: '/api/webhooks/whatsapp', headers, payload: raw })
  return { statusCode: response.statusCode, body: response.body }
}
