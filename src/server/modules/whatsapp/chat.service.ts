// Billing answered in the chat (issue 16): a customer's WhatsApp message is kept, understood (a few intents, see
// domain/whatsapp-intents.ts) and answered with free-form text, which Meta delivers because the customer's message
// has just opened the 24-hour window; '2ª via' also sends the invoice's QR Code as an image. Nothing here changes a
// subscription or a payment: 'cancelar' only links the dashboard's cancel flow.
import { DomainError } from '../../../domain/errors'
import { formatBRL } from '../../../domain/money'
import { subscriptionStatusLabel } from '../../../domain/subscription-status'
import { parseWhatsAppIntent, type WhatsAppIntent } from '../../../domain/whatsapp-intents'
import type { AppContext } from '../../context'
import { firstOpenPixInvoice, shownPixCharge, currentSubscriptionWithPlan } from '../billing/billing.service'
import { formatDateBR } from '../lifecycle/notification-templates'
import { imageOutboxText, sendImageWith, sendTextWith, WhatsAppApiError } from '../messaging/whatsapp'
import { hitRateLimit, type RateRule } from '../rate-limit/rate-limit'
import { findCustomerByNumber, recordInbound, recordOutbound } from './messages.repo'

export type ChatDeps = Pick<AppContext, 'db' | 'whatsapp' | 'config' | 'now' | 'card' | 'pix'> & {
  log: { warn(obj: object, msg: string): void }
}

/** Answers per number: past it, messages are still kept but not answered (a loop with another bot stops here). */
export const chatReplyRule: RateRule = { limit: 10, windowMs: 60 * 60_000 }

export type InboundMessage = { id: string; from: string; type: string; text: string | null }
export type InboundOutcome = 'replied' | 'duplicate' | 'rate_limited' | 'send_failed'

function links(config: ChatDeps['config']) {
  return {
    payments: `${config.appUrl}/dashboard/payments`,
    cancel: `${config.appUrl}/dashboard/my-subscriptions`,
    signup: `${config.appUrl}/signup`,
    support: `https://wa.me/${config.SUPPORT_WHATSAPP}`,
  }
}

function menuText(config: ChatDeps['config']): string {
  return [
    'Posso ajudar com a sua assinatura por aqui. Responda:',
    '• *2ª via* — valor, vencimento e código PIX da fatura em aberto',
    '• *status* — seu plano, a situação e o próximo pagamento',
    '• *cancelar* — como cancelar a assinatura',
    '',
    `Para falar com o suporte: ${links(config).support}`,
  ].join('\n')
}

function signupText(config: ChatDeps['config']): string {
  const l = links(config)
  return [
    'Olá! Este número não está cadastrado em nenhuma conta.',
    `Para assinar um plano, crie sua conta: ${l.signup}`,
    '',
    `Se você já é cliente, confira o número de WhatsApp no seu perfil ou fale com o suporte: ${l.support}`,
  ].join('\n')
}

/** An answer: a text, or the QR Code image of a BR Code (rendered here, sent with its caption). */
type Reply = { type: 'text'; text: string } | { type: 'qr'; brCode: string; caption: string }

const text = (value: string): Reply => ({ type: 'text', text: value })

export const qrCaption = 'QR Code PIX da fatura'

/** The BR Code as a PNG QR Code, about 400x400, that a banking app reads from the chat. */
export async function qrPng(brCode: string): Promise<Buffer> {
  // Loaded with the first QR Code asked for in the chat, not with the server.
  const { default: QRCode } = await import('qrcode')
  return QRCode.toBuffer(brCode, { type: 'png', width: 400, margin: 2, errorCorrectionLevel: 'M' })
}

/**
 * The invoice answer: the summary, the QR Code image, then the BR Code alone in its own message so that it copies
 * whole. The code is the dashboard's (shownPixCharge: the static code, or the PSP charge's with api-pix).
 */
async function invoiceReplies(deps: ChatDeps, userId: string): Promise<Reply[]> {
  const l = links(deps.config)
  const open = await firstOpenPixInvoice(deps.db, userId)
  if (!open) return [text(`Você não tem nenhuma fatura PIX em aberto. Seus pagamentos: ${l.payments}`)]
  const planName = (open.targetPlan ?? open.plan).name
  let brCode: string | null = null
  try {
    brCode = (await shownPixCharge(deps, userId, open.payment.id)).brCode
  } catch (error) {
    // PIX settings incomplete (or the invoice closed meanwhile): the summary links the dashboard instead
    if (!(error instanceof DomainError)) throw error
    brCode = null
  }
  const summary = [
    `Fatura do plano ${planName}`,
    `Valor: ${formatBRL(open.payment.amountCents)}`,
    `Vencimento: ${formatDateBR(open.payment.dueDate)}`,
    '',
    brCode
      ? 'Leia o QR Code da próxima mensagem ou copie o código PIX copia e cola que vem depois dela e cole no app do seu banco.'
      : 'O código PIX não está disponível agora.',
    `Você também pode pagar pelo painel: ${l.payments}`,
  ].join('\n')
  return brCode ? [text(summary), { type: 'qr', brCode, caption: qrCaption }, text(brCode)] : [text(summary)]
}

async function statusReply(deps: ChatDeps, userId: string): Promise<string> {
  const l = links(deps.config)
  const current = await currentSubscriptionWithPlan(deps.db, userId)
  if (!current) return `Você ainda não tem uma assinatura. Conheça os planos: ${deps.config.appUrl}/plans`
  const { subscription, plan } = current
  const lines = [`Plano: ${plan.name}`, `Situação: ${subscriptionStatusLabel[subscription.status]}`]
  if (subscription.status === 'canceled') {
    lines.push(`Para voltar a usar a plataforma, escolha um plano: ${deps.config.appUrl}/plans`)
  } else if (subscription.cancelAtPeriodEnd) {
    lines.push(`Cancelamento agendado para ${formatDateBR(subscription.currentPeriodEnd)}.`)
  } else if (subscription.status === 'pending_pix' || subscription.status === 'past_due') {
    const open = await firstOpenPixInvoice(deps.db, userId)
    if (open)
      lines.push(
        `Pagamento pendente: ${formatBRL(open.payment.amountCents)}, vencimento ${formatDateBR(open.payment.dueDate)}. Responda *2ª via* para receber o código PIX.`,
      )
    else lines.push(`Seus pagamentos: ${l.payments}`)
  } else {
    lines.push(`Próximo pagamento: ${formatDateBR(subscription.currentPeriodEnd)} (${formatBRL(plan.priceCents)})`)
  }
  return lines.join('\n')
}

async function customerReplies(deps: ChatDeps, userId: string, intent: WhatsAppIntent): Promise<Reply[]> {
  switch (intent) {
    case 'invoice':
      return invoiceReplies(deps, userId)
    case 'status':
      return [text(await statusReply(deps, userId))]
    case 'cancel':
      return [
        text(
          [
            `Para cancelar a sua assinatura, acesse o painel: ${links(deps.config).cancel}`,
            'Por segurança, o cancelamento é feito só pelo painel, com você conectado à sua conta; por aqui nada é cancelado.',
          ].join('\n'),
        ),
      ]
    case 'menu':
      return [text(menuText(deps.config))]
  }
}

/**
 * Keeps the message (once: a second delivery of the same id is a duplicate and gets no answer), then answers it
 * within the per-number limit. Every answer is kept too, with Meta's message id for its delivery receipts.
 */
export async function handleInbound(deps: ChatDeps, message: InboundMessage): Promise<InboundOutcome> {
  const now = deps.now()
  const customer = await findCustomerByNumber(deps.db, message.from)
  const inserted = await recordInbound(deps.db, {
    userId: customer?.id ?? null,
    phone: message.from,
    body: message.text ?? `[${message.type}]`,
    providerMessageId: message.id,
    now,
  })
  if (!inserted) return 'duplicate'
  try {
    await hitRateLimit(deps.db, `wa-reply:${message.from}`, chatReplyRule, now)
  } catch {
    return 'rate_limited'
  }
  const replies = customer
    ? await customerReplies(deps, customer.id, message.text === null ? 'menu' : parseWhatsAppIntent(message.text))
    : [text(signupText(deps.config))]
  const userId = customer?.id ?? null
  for (const reply of replies) {
    if (reply.type === 'qr') {
      await sendQr(deps, userId, message.from, reply)
      continue
    }
    try {
      const sent = await sendTextWith(deps.whatsapp, message.from, reply.text)
      await recordOutbound(deps.db, {
        userId,
        phone: message.from,
        kind: 'reply',
        body: reply.text,
        providerMessageId: sent.id,
        status: 'accepted',
        now: deps.now(),
      })
    } catch (error) {
      deps.log.warn({ err: error, to: message.from }, 'whatsapp chat reply failed')
      await recordFailed(deps, { userId, phone: message.from, kind: 'reply', body: reply.text }, error)
      return 'send_failed'
    }
  }
  return 'replied'
}

/** The QR Code image; a failure (rendering, upload, send) is logged and kept, and the texts still go out. */
async function sendQr(deps: ChatDeps, userId: string | null, to: string, reply: Reply & { type: 'qr' }) {
  const body = imageOutboxText(reply.caption)
  try {
    const sent = await sendImageWith(deps.whatsapp, to, await qrPng(reply.brCode), reply.caption)
    if (!sent) return // a sender without images (hand-made test sender): the code goes as text only
    await recordOutbound(deps.db, {
      userId,
      phone: to,
      kind: 'image',
      body,
      providerMessageId: sent.id,
      status: 'accepted',
      now: deps.now(),
    })
  } catch (error) {
    deps.log.warn({ err: error, to }, 'whatsapp chat QR Code image failed; the code still goes as text')
    await recordFailed(deps, { userId, phone: to, kind: 'image', body }, error)
  }
}

async function recordFailed(
  deps: ChatDeps,
  r: { userId: string | null; phone: string; kind: 'reply' | 'image'; body: string },
  error: unknown,
) {
  await recordOutbound(deps.db, {
    ...r,
    status: 'failed',
    errorCode: error instanceof WhatsAppApiError ? error.graphCode : null,
    errorTitle: (error instanceof Error ? error.message : String(error)).slice(0, 300),
    now: deps.now(),
  })
}
