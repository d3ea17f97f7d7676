import { z } from 'zod'
import { appendOutbox, type MessagingLog } from './outbox'

export interface WhatsAppSender {
  send(to: string, text: string): Promise<void>
}

export interface WhatsAppSenderOptions {
  token?: string | undefined
  phoneNumberId?: string | undefined
  /** Graph API base, e.g. https://graph.facebook.com/v21.0 */
  apiUrl: string
  outboxPath: string
  production: boolean
  log: MessagingLog
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

const requestTimeoutMs = 10_000

const graphErrorSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string().optional(),
    code: z.number().optional(),
    error_subcode: z.number().optional(),
    fbtrace_id: z.string().optional(),
  }),
})

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
  return {
    async send(to, text) {
      await appendOutbox(opts.outboxPath, { channel: 'whatsapp', to, text }, opts.log)
    },
  }
}

function cloudApiSender(opts: WhatsAppSenderOptions & { token: string; phoneNumberId: string }): WhatsAppSender {
  const endpoint = `${opts.apiUrl.replace(/\/+$/, '')}/${encodeURIComponent(opts.phoneNumberId)}/messages`
  return {
    async send(to, text) {
      let response: Response
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { authorization: `Bearer ${opts.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            messaging_product: 'whatsapp',
            recipient_type: 'individual',
            to,
            type: 'text',
            text: { preview_url: false, body: text },
          }),
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
      const result = graphSendResultSchema.safeParse(json)
      // Only the id: the text may hold a verification code, which must stay out of production logs.
      opts.log.info(
        { channel: 'whatsapp', messageId: result.success ? result.data.messages?.[0]?.id : undefined },
        'whatsapp message accepted',
      )
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
