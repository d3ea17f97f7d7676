// Customer notifications of the billing lifecycle, in Portuguese. Each builds the e-mail (subject, text, HTML) and
// the WhatsApp text from the same lines. No text may contain a standalone 6-digit number: tests and people read
// verification codes from the outbox with /\b\d{6}\b/.
import { addDays } from '../../../domain/billing-period'
import { formatBRL } from '../../../domain/money'
import { escapeHtml } from '../messaging/templates'

export type NotificationKind =
  | 'invoice_created'
  | 'due_tomorrow'
  | 'payment_confirmed'
  | 'cancel_scheduled'
  | 'canceled'
  | 'overdue'
  | 'card_upgrade_declined'
  | 'pix_automatico_notice'
  | 'pix_automatico_failed'
  | 'pix_automatico_revoked'

/** An approved WhatsApp utility template and its body parameters ({{1}}, {{2}}, … in order). */
export type WhatsAppTemplateCall = { name: string; params: string[] }

export type NotificationMessage = {
  subject: string
  text: string
  html: string
  /** The free-form text (dev outbox, and the e-mail-like record of what was said). */
  whatsapp: string
  /** What the Cloud API sends: business-initiated messages must be approved templates. */
  template: WhatsAppTemplateCall
}

/**
 * The utility templates an operator submits to Meta (category UTILITY, language WHATSAPP_TEMPLATE_LANG), one per
 * notification kind, exactly as written here (the README lists them). A body may neither start nor end with a
 * parameter, and a parameter may not hold line breaks.
 */
export const billingTemplates = {
  invoice_created: {
    name: 'fatura_disponivel',
    params: ['nome', 'plano', 'valor', 'vencimento', 'link dos pagamentos'],
    body: 'Olá, {{1}}! A fatura da sua assinatura do plano {{2}} está disponível. Valor: {{3}}. Vencimento: {{4}}. Pague pelo painel em {{5}} ou responda 2ª via para receber aqui o código PIX copia e cola.',
  },
  due_tomorrow: {
    name: 'fatura_vence_amanha',
    params: ['nome', 'valor', 'plano', 'vencimento', 'link dos pagamentos'],
    body: 'Olá, {{1}}! A fatura de {{2}} da sua assinatura do plano {{3}} vence amanhã, {{4}}. Pague pelo painel em {{5}} ou responda 2ª via para receber aqui o código PIX copia e cola. Se você já pagou, desconsidere esta mensagem.',
  },
  overdue: {
    name: 'assinatura_vencida',
    params: ['nome', 'plano', 'vencida desde', 'link dos pagamentos'],
    body: 'Olá, {{1}}! Sua assinatura do plano {{2}} está vencida desde {{3}}: o pagamento da renovação não foi identificado. Regularize pelo painel em {{4}} ou responda 2ª via para receber aqui o código PIX copia e cola.',
  },
  payment_confirmed: {
    name: 'pagamento_confirmado',
    params: ['nome', 'valor', 'data do pagamento', 'plano', 'ativa até'],
    body: 'Olá, {{1}}! Recebemos o pagamento de {{2}} em {{3}}. Obrigado! Sua assinatura do plano {{4}} está ativa até {{5}}.',
  },
  cancel_scheduled: {
    name: 'cancelamento_agendado',
    params: ['nome', 'plano', 'fim do período'],
    body: 'Olá, {{1}}! Sua assinatura do plano {{2}} será cancelada no final do período de faturamento, em {{3}}. Até lá, o acesso continua normalmente.',
  },
  card_upgrade_declined: {
    name: 'upgrade_cartao_recusado',
    params: ['nome', 'plano pedido', 'plano atual', 'link dos pagamentos'],
    body: 'Olá, {{1}}! O pagamento com cartão do upgrade para o plano {{2}} foi recusado, e nada foi cobrado. Sua assinatura continua no plano {{3}}. Para tentar de novo, confira o cartão ou use outro em {{4}}.',
  },
  canceled: {
    name: 'assinatura_cancelada',
    params: ['nome', 'plano', 'link dos planos'],
    body: 'Olá, {{1}}! Sua assinatura do plano {{2}} foi cancelada. Para voltar a usar a plataforma, escolha um plano em {{3}} quando quiser.',
  },
  pix_automatico_notice: {
    name: 'renovacao_pix_automatico',
    params: ['nome', 'valor', 'data do débito', 'plano'],
    body: 'Olá, {{1}}! Sua renovação de {{2}} será debitada em {{3}} via PIX Automático, para a assinatura do plano {{4}}. Não é preciso fazer nada.',
  },
  pix_automatico_failed: {
    name: 'pix_automatico_falhou',
    params: ['nome', 'valor', 'plano', 'nova tentativa'],
    body: 'Olá, {{1}}! Não conseguimos debitar {{2}} da renovação do plano {{3}} via PIX Automático. Uma nova tentativa será feita em {{4}}: deixe saldo disponível na conta.',
  },
  pix_automatico_revoked: {
    name: 'pix_automatico_cancelado',
    params: ['nome', 'plano', 'link dos pagamentos'],
    body: 'Olá, {{1}}! A autorização do PIX Automático da sua assinatura do plano {{2}} foi cancelada no seu banco. A assinatura continua: a cada mês você receberá a fatura para pagar em {{3}}.',
  },
} as const satisfies Record<NotificationKind, { name: string; params: readonly string[]; body: string }>

/** A template parameter: one line, never empty (Meta refuses both). */
function param(value: string): string {
  const clean = value
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim()
  return clean || '-'
}

function templateCall(kind: NotificationKind, params: string[]): WhatsAppTemplateCall {
  const template = billingTemplates[kind]
  if (params.length !== template.params.length)
    throw new Error(`O modelo ${template.name} tem ${template.params.length} parâmetros`)
  return { name: template.name, params: params.map(param) }
}

function firstName(name: string): string {
  return name.replace(/\s+/g, ' ').trim() || 'cliente'
}

export type InvoiceType = 'new' | 'upgrade' | 'renewal'
export type CancelReason = 'period_end' | 'overdue' | 'expired' | 'other'

/** Days a past_due PIX subscription waits for its payment before it is canceled. */
export const overdueGraceDays = 7

/**
 * When an unpaid PIX subscription is canceled: overdueGraceDays after its period ended, or after its renewal invoice
 * was issued when that came later (the jobs were down past the period end): a customer always has the grace days
 * from the invoice on, never a cancellation in the minute the invoice reached them.
 */
export function graceEndsAt(periodEnd: Date, renewalIssuedAt: Date | null | undefined): Date {
  return addDays(renewalIssuedAt && renewalIssuedAt > periodEnd ? renewalIssuedAt : periodEnd, overdueGraceDays)
}

/**
 * A renewal invoice issued at or after its due date (the jobs were down past the period end): with the static code
 * its overdue message announces it, instead of an invoice_created one. SQL twin: lateRenewal in notifications.repo.ts.
 */
export function isLateRenewal(dueDate: Date, issuedAt: Date): boolean {
  return dueDate <= issuedAt
}

const fortaleza = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Fortaleza',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
})

/** dd/MM/yyyy in Brazil's (Fortaleza) time, as the dashboard shows dates. */
export function formatDateBR(date: Date): string {
  return fortaleza.format(date)
}

type Common = { name: string; planName: string; paymentsUrl: string }

function greeting(name: string): string {
  const clean = name.replace(/\s+/g, ' ').trim()
  return clean ? `Olá, ${clean}!` : 'Olá!'
}

/**
 * A billing e-mail's HTML, made from its subject and text (build's paragraphs, a blank line between them): each
 * paragraph a <p>, its lines kept with <br>. A function of the text, so the outbox keeps only the text and the
 * delivery makes the HTML again (notifications.service.ts): the HTML was a third of what a billing pass wrote.
 */
export function emailHtml(subject: string, text: string): string {
  const paragraphs = text.replace(/\n$/, '').split('\n\n')
  return [
    '<!doctype html>',
    '<html lang="pt-BR">',
    `<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family: Arial, sans-serif; line-height: 1.5; color: #111827;">',
    ...paragraphs.map((p) => `<p>${p.split('\n').map(escapeHtml).join('<br>')}</p>`),
    '</body>',
    '</html>',
  ].join('\n')
}

/** Paragraphs → text (blank line between them) and its HTML (emailHtml, made when read). */
function build(
  subject: string,
  name: string,
  paragraphs: string[],
  template: WhatsAppTemplateCall,
): NotificationMessage {
  const all = [greeting(name), ...paragraphs, 'Equipe Atendimento Multicanal']
  const text = `${all.join('\n\n')}\n`
  return {
    subject,
    text,
    get html() {
      return emailHtml(subject, text)
    },
    whatsapp: `*${subject}*\n\n${text}`,
    template,
  }
}

function pixLines(brCode: string | null, paymentsUrl: string): string[] {
  if (!brCode) return [`Para pagar, acesse seus pagamentos: ${paymentsUrl}`]
  return [`Código PIX copia e cola:\n${brCode}`, `Você também pode pagar pelo painel: ${paymentsUrl}`]
}

const invoicePurpose: Record<InvoiceType, (planName: string) => string> = {
  new: (plan) => `para ativar sua assinatura do plano ${plan}`,
  renewal: (plan) => `para renovar sua assinatura do plano ${plan}`,
  upgrade: (plan) => `para concluir o upgrade para o plano ${plan}`,
}

export function invoiceCreatedMessage(
  input: Common & {
    type: InvoiceType
    amountCents: number
    dueDate: Date
    brCode: string | null
    /** The open invoice this one replaces (a renewal re-issued at the new plan's price after an upgrade). */
    replaced?: { amountCents: number } | null
  },
): NotificationMessage {
  if (input.replaced) {
    return build(
      'Fatura de renovação atualizada',
      input.name,
      [
        `Seu plano mudou para ${input.planName}. Por isso, a fatura de renovação de ${formatBRL(input.replaced.amountCents)} foi cancelada e substituída por esta, com o valor do novo plano.`,
        `Valor: ${formatBRL(input.amountCents)}\nVencimento: ${formatDateBR(input.dueDate)}`,
        ...pixLines(input.brCode, input.paymentsUrl),
        'Se você já pagou a fatura anterior, fale com o suporte antes de pagar esta.',
      ],
      invoiceTemplate(input),
    )
  }
  const subject = input.type === 'renewal' ? 'Fatura de renovação disponível' : 'Fatura PIX gerada'
  return build(
    subject,
    input.name,
    [
      `Sua fatura PIX está disponível. Realize o pagamento ${invoicePurpose[input.type](input.planName)}.`,
      `Valor: ${formatBRL(input.amountCents)}\nVencimento: ${formatDateBR(input.dueDate)}`,
      ...pixLines(input.brCode, input.paymentsUrl),
      'A ativação do pagamento PIX é manual e acontece em até 24 horas.',
    ],
    invoiceTemplate(input),
  )
}

function invoiceTemplate(input: Common & { amountCents: number; dueDate: Date }): WhatsAppTemplateCall {
  return templateCall('invoice_created', [
    firstName(input.name),
    input.planName,
    formatBRL(input.amountCents),
    formatDateBR(input.dueDate),
    input.paymentsUrl,
  ])
}

export function dueTomorrowMessage(
  input: Common & { amountCents: number; dueDate: Date; brCode: string | null },
): NotificationMessage {
  return build(
    'Sua fatura vence amanhã',
    input.name,
    [
      `A fatura PIX de ${formatBRL(input.amountCents)} da sua assinatura do plano ${input.planName} vence amanhã, ${formatDateBR(input.dueDate)}.`,
      ...pixLines(input.brCode, input.paymentsUrl),
      'Se você já pagou, desconsidere esta mensagem.',
    ],
    templateCall('due_tomorrow', [
      firstName(input.name),
      formatBRL(input.amountCents),
      input.planName,
      formatDateBR(input.dueDate),
      input.paymentsUrl,
    ]),
  )
}

export function paymentConfirmedMessage(
  input: Common & { amountCents: number; paidAt: Date; periodEnd: Date },
): NotificationMessage {
  return build(
    'Pagamento confirmado',
    input.name,
    [
      `Recebemos o pagamento de ${formatBRL(input.amountCents)} em ${formatDateBR(input.paidAt)}. Obrigado!`,
      `Sua assinatura do plano ${input.planName} está ativa até ${formatDateBR(input.periodEnd)}.`,
      `O recibo está nos seus pagamentos: ${input.paymentsUrl}`,
    ],
    templateCall('payment_confirmed', [
      firstName(input.name),
      formatBRL(input.amountCents),
      formatDateBR(input.paidAt),
      input.planName,
      formatDateBR(input.periodEnd),
    ]),
  )
}

export function cancelScheduledMessage(input: Common & { periodEnd: Date }): NotificationMessage {
  return build(
    'Cancelamento agendado',
    input.name,
    [
      `Sua assinatura do plano ${input.planName} será cancelada no final do período de faturamento, em ${formatDateBR(input.periodEnd)}.`,
      'Até lá, o acesso continua normalmente.',
    ],
    templateCall('cancel_scheduled', [firstName(input.name), input.planName, formatDateBR(input.periodEnd)]),
  )
}

const cancelReason: Record<CancelReason, string> = {
  period_end: 'no final do período de faturamento, como você pediu',
  overdue: `porque a fatura ficou mais de ${overdueGraceDays} dias vencida sem pagamento`,
  expired: 'porque a fatura PIX não foi paga até o vencimento',
  other: '',
}

export function canceledMessage(input: Common & { reason: CancelReason; plansUrl: string }): NotificationMessage {
  const reason = cancelReason[input.reason]
  return build(
    'Assinatura cancelada',
    input.name,
    [
      `Sua assinatura do plano ${input.planName} foi cancelada${reason ? ` ${reason}` : ''}.`,
      `Para voltar a usar a plataforma, escolha um plano: ${input.plansUrl}`,
    ],
    templateCall('canceled', [firstName(input.name), input.planName, input.plansUrl]),
  )
}

export function overdueMessage(
  input: Common & {
    periodEnd: Date
    /** When the grace period ends (PIX); null when the card provider decides. */
    cancelOn: Date | null
    invoice: { amountCents: number; brCode: string | null } | null
  },
): NotificationMessage {
  const lines = [
    `Sua assinatura do plano ${input.planName} está vencida desde ${formatDateBR(input.periodEnd)}: o pagamento da renovação não foi identificado.`,
  ]
  if (input.cancelOn) lines.push(`Regularize até ${formatDateBR(input.cancelOn)} para que ela não seja cancelada.`)
  if (input.invoice) {
    lines.push(`Valor: ${formatBRL(input.invoice.amountCents)}`, ...pixLines(input.invoice.brCode, input.paymentsUrl))
  } else {
    lines.push(`Acesse seus pagamentos: ${input.paymentsUrl}`)
  }
  return build(
    'Assinatura vencida',
    input.name,
    lines,
    templateCall('overdue', [firstName(input.name), input.planName, formatDateBR(input.periodEnd), input.paymentsUrl]),
  )
}

/** A card upgrade whose prorated charge was declined: the plan stays as it was (Stripe pending update). */
export function cardUpgradeDeclinedMessage(input: Common & { targetPlanName: string }): NotificationMessage {
  return build(
    'Pagamento do upgrade recusado',
    input.name,
    [
      `O pagamento com cartão do upgrade para o plano ${input.targetPlanName} foi recusado, e nada foi cobrado.`,
      `Sua assinatura continua no plano ${input.planName}, sem nenhuma alteração.`,
      `Para tentar de novo, confira os dados do cartão ou use outro em: ${input.paymentsUrl}`,
    ],
    templateCall('card_upgrade_declined', [
      firstName(input.name),
      input.targetPlanName,
      input.planName,
      input.paymentsUrl,
    ]),
  )
}

/** PIX Automático: the debit of the next renewal is scheduled (sent with the recurring charge, D-8 to D-3). */
export function pixAutomaticoNoticeMessage(
  input: Common & { amountCents: number; debitOn: Date; dayMonth: string },
): NotificationMessage {
  return build(
    'Renovação via PIX Automático',
    input.name,
    [
      `Sua renovação de ${formatBRL(input.amountCents)} será debitada em ${input.dayMonth} via PIX Automático.`,
      `O débito é da assinatura do plano ${input.planName}, autorizado por você no app do seu banco. Não é preciso fazer nada.`,
      `Para desativar a renovação automática, acesse suas assinaturas no painel ou cancele a autorização no app do banco: ${input.paymentsUrl}`,
    ],
    templateCall('pix_automatico_notice', [
      firstName(input.name),
      formatBRL(input.amountCents),
      input.dayMonth,
      input.planName,
    ]),
  )
}

/** PIX Automático: an attempt failed and a retry is scheduled. */
export function pixAutomaticoFailedMessage(
  input: Common & { amountCents: number; retryOn: string },
): NotificationMessage {
  return build(
    'Débito do PIX Automático não realizado',
    input.name,
    [
      `Não conseguimos debitar ${formatBRL(input.amountCents)} da renovação do plano ${input.planName} via PIX Automático.`,
      `Uma nova tentativa será feita em ${input.retryOn}: deixe saldo disponível na conta.`,
      `Se preferir, pague a fatura agora pelo painel: ${input.paymentsUrl}`,
    ],
    templateCall('pix_automatico_failed', [
      firstName(input.name),
      formatBRL(input.amountCents),
      input.planName,
      input.retryOn,
    ]),
  )
}

/** PIX Automático: the payer revoked the authorisation; the subscription goes on with monthly invoices. */
export function pixAutomaticoRevokedMessage(input: Common): NotificationMessage {
  return build(
    'PIX Automático cancelado no banco',
    input.name,
    [
      `A autorização do PIX Automático da sua assinatura do plano ${input.planName} foi cancelada no seu banco.`,
      'Sua assinatura continua: a cada mês você receberá a fatura por e-mail e WhatsApp para pagar com PIX.',
      `Para voltar a usar a renovação automática, ative-a de novo em suas assinaturas: ${input.paymentsUrl}`,
    ],
    templateCall('pix_automatico_revoked', [firstName(input.name), input.planName, input.paymentsUrl]),
  )
}
