import { z } from 'zod'
import { appendOutbox, type MessagingLog } from './outbox'
import { verificationCodeWhatsApp } from './templates'

/** What the Cloud API answered: Meta's message id (wamid), which delivery receipts refer to. */
export type SendResult = { id?: string | undefined }

/** A message template call, in the Graph API's shape (`type: "template"`). */
export type TemplatePayload = {
  name: string
  language: { code: string }
  components: Record<string, unknown>[]
}

/**
 * `send` is free-form text, which Meta only delivers inside the 24-hour window a customer's message opened.
 * Business-initiated messages go as approved templates: `sendCode` (the authentication template) and
 * `sendTemplate` (utility templates; `fallbackText` is what the dev outbox writes). Both are optional so that a
 * hand-made sender (tests) with only `send` keeps working: callers then send the text.
 */
export interface WhatsAppSender {
  // biome-ignore lint/suspicious/noConfusingVoidType: a hand-made sender (tests) may return nothing
  send(to: string, text: string): Promise<SendResult | void>
  // biome-ignore lint/suspicious/noConfusingVoidType: a hand-made sender (tests) may return nothing
  sendCode?(to: string, code: string): Promise<SendResult | void>
  // biome-ignore lint/suspicious/noConfusingVoidType: a hand-made sender (tests) may return nothing
  sendTemplate?(to: string, template: TemplatePayload, fallbackText: string): Promise<SendResult | void>
  /** An image (PNG bytes) with a caption: uploaded to the Cloud API's media endpoint, then sent by its id. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a hand-made sender (tests) may return nothing
  sendImage?(to: string, png: Uint8Array, caption: string): Promise<SendResult | void>
}

/** Meta's authentication template with its copy-code button: the code is the body parameter and the button's. */
export function authenticationTemplate(name: string, language: string, code: string): TemplatePayload {
  return {
    name,
    language: { code: language },
    components: [
      { type: 'body', parameters: [{ type: 'text', text: code }] },
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: code }] },
    ],
  }
}

/** A utility template whose body takes `params` as {{1}}, {{2}}, … in order. */
export function utilityTemplate(name: string, language: string, params: string[]): TemplatePayload {
  return {
    name,
    language: { code: language },
    components: [{ type: 'body', parameters: params.map((text) => ({ type: 'text', text })) }],
  }
}

/** Graph error codes of template problems (132000 parameter count, 132001 template does not exist, … 132016). */
export function isTemplateError(error: unknown): error is WhatsAppApiError {
  return (
    error instanceof WhatsAppApiError &&
    error.graphCode !== undefined &&
    error.graphCode >= 132000 &&
    error.graphCode <= 132016
  )
}

/** Sends a code the way the sender can: the authentication template, or the text of today (outbox, test senders). */
export async function sendCodeWith(sender: WhatsAppSender, to: string, code: string): Promise<SendResult> {
  const result = sender.sendCode
    ? await sender.sendCode(to, code)
    : await sender.send(to, verificationCodeWhatsApp(code).text)
  return result ?? {}
}

export async function sendTemplateWith(
  sender: WhatsAppSender,
  to: string,
  template: TemplatePayload,
  fallbackText: string,
): Promise<SendResult> {
  const result = sender.sendTemplate
    ? await sender.sendTemplate(to, template, fallbackText)
    : await sender.send(to, fallbackText)
  return result ?? {}
}

export async function sendTextWith(sender: WhatsAppSender, to: string, text: string): Promise<SendResult> {
  return (await sender.send(to, text)) ?? {}
}

/** Sends a PNG with its caption; null when the sender cannot send images (a hand-made test sender). */
export async function sendImageWith(
  sender: WhatsAppSender,
  to: string,
  png: Uint8Array,
  caption: string,
): Promise<SendResult | null> {
  if (!sender.sendImage) return null
  return (await sender.sendImage(to, png, caption)) ?? {}
}

/** What the dev outbox (and the kept message) says for an image: the bytes are not written anywhere. */
export function imageOutboxText(caption: string): string {
  return `[imagem: QR Code PIX] ${caption}`
}

export interface WhatsAppSenderOptions {
  token?: string | undefined
  phoneNumberId?: string | undefined
  /** Graph API base, e.g. https://graph.facebook.com/v21.0 */
  apiUrl: string
  outboxPath: string
  production: boolean
  log: MessagingLog
  /** The approved authentication template (WHATSAPP_AUTH_TEMPLATE) and the templates' language. */
  authTemplate?: string | undefined
  templateLanguage?: string | undefined
}

/** A failed Cloud API call: `status` is absent when no HTTP answer came back (network error, timeout). */
export class WhatsAppApiError extends Error {
  override name = 'WhatsAppApiError'
  constructor(
    message: string,
    readonly status?: number,
    readonly graphCode?: number,
    options?: ErrorOptions,
  ) {
    super(message, options)
  }
}

// 8 s: with our own work around it, the customer still has an answer within 10 s when Meta does not answer.
const requestTimeoutMs = 8_000

const graphErrorSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string().optional(),
    code: z.number().optional(),
    error_subcode: z.number().optional(),
    fbtrace_id: z.string().optional(),
  }),
})

const graphMediaSchema = z.object({ id: z.string().min(1) })

const graphSendResultSchema = z.object({
  messages: z.array(z.object({ id: z.string() })).optional(),
})

/** Meta WhatsApp Cloud API when configured; the dev outbox otherwise, which production refuses. */
export function createWhatsAppSender(opts: WhatsAppSenderOptions): WhatsAppSender {
  const { token, phoneNumberId } = opts
  if (token && phoneNumberId) return cloudApiSender({ ...opts, token, phoneNumberId })
  if (token || phoneNumberId)
    throw new Error(
      'Provedor de WhatsApp mal configurado: WHATSAPP_TOKEN e WHATSAPP_PHONE_NUMBER_ID devem ser definidos juntos',
    )
  if (opts.production)
    throw new Error(
      'Provedor de WhatsApp não configurado: defina WHATSAPP_TOKEN e WHATSAPP_PHONE_NUMBER_ID (a caixa de saída de desenvolvimento não é usada em produção)',
    )
  const outbox = async (to: string, text: string): Promise<SendResult> => {
    await appendOutbox(opts.outboxPath, { channel: 'whatsapp', to, text }, opts.log)
    return {}
  }
  return {
    send: outbox,
    sendCode: (to, code) => outbox(to, verificationCodeWhatsApp(code).text),
    sendTemplate: (to, _template, fallbackText) => outbox(to, fallbackText),
    sendImage: (to, _png, caption) => outbox(to, imageOutboxText(caption)),
  }
}

function cloudApiSender(opts: WhatsAppSenderOptions & { token: string; phoneNumberId: string }): WhatsAppSender {
  const base = `${opts.apiUrl.replace(/\/+$/, '')}/${encodeURIComponent(opts.phoneNumberId)}`
  /** One Graph API call: the JSON answer, or a WhatsAppApiError with Meta's error code. */
  const call = async (url: string, init: { body: string | FormData; json: boolean }): Promise<unknown> => {
    let response: Response
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${opts.token}`,
          ...(init.json ? { 'content-type': 'application/json' } : {}),
        },
        body: init.body,
        signal: AbortSignal.timeout(requestTimeoutMs),
      })
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      throw new WhatsAppApiError(`WhatsApp Cloud API inacessível: ${reason}`, undefined, undefined, { cause: error })
    }
    const body = await response.text()
    const json = parseJson(body)
    if (!response.ok) {
      const graph = graphErrorSchema.safeParse(json)
      const detail = graph.success ? graph.data.error.message : body.slice(0, 200) || response.statusText
      throw new WhatsAppApiError(
        `WhatsApp Cloud API respondeu ${response.status}: ${detail}`,
        response.status,
        graph.success ? graph.data.error.code : undefined,
      )
    }
    return json
  }
  const post = async (to: string, message: Record<string, unknown>): Promise<SendResult> => {
    const json = await call(`${base}/messages`, {
      body: JSON.stringify({ messaging_product: 'whatsapp', recipient_type: 'individual', to, ...message }),
      json: true,
    })
    const result = graphSendResultSchema.safeParse(json)
    const id = result.success ? result.data.messages?.[0]?.id : undefined
    // Only the id: the text may hold a verification code, which must stay out of production logs.
    opts.log.info({ channel: 'whatsapp', messageId: id }, 'whatsapp message accepted')
    return { id }
  }
  const language = opts.templateLanguage ?? 'pt_BR'
  return {
    send: (to, text) => post(to, { type: 'text', text: { preview_url: false, body: text } }),
    sendCode: (to, code) =>
      post(to, {
        type: 'template',
        template: authenticationTemplate(opts.authTemplate ?? 'codigo_verificacao', language, code),
      }),
    sendTemplate: (to, template) => post(to, { type: 'template', template }),
    // No public URL needed: the PNG is uploaded to the media endpoint (multipart) and the message names its id.
    sendImage: async (to, png, caption) => {
      const form = new FormData()
      form.append('messaging_product', 'whatsapp')
      form.append('type', 'image/png')
      form.append('file', new Blob([Uint8Array.from(png)], { type: 'image/png' }), 'qrcode-pix.png')
      const uploaded = graphMediaSchema.safeParse(await call(`${base}/media`, { body: form, json: false }))
      if (!uploaded.success) throw new WhatsAppApiError('WhatsApp Cloud API não devolveu o id da imagem enviada')
      return post(to, { type: 'image', image: { id: uploaded.data.id, caption } })
    },
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
