// What a customer's WhatsApp message asks for (issue 16: billing answered in the chat). Pure: no I/O.

export type WhatsAppIntent = 'invoice' | 'status' | 'cancel' | 'menu'

/** Lower case, without accents, ordinals (ª º) as letters and punctuation as spaces, spaces collapsed. */
export function normalizeMessage(text: string): string {
  return text
    .replaceAll('ª', 'a')
    .replaceAll('º', 'o')
    .replaceAll('°', 'o')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
}

const invoiceWords = /\b(2 ?[ao]? ?via|segunda via|boleto|boletos|pix|fatura|faturas|copia e cola)\b/
const cancelWords = /\b(cancelar|cancela|cancelamento|cancelo)\b/
const statusWords = /\b(status|assinatura|situacao|plano|meu plano)\b/

/**
 * The intent of a message, forgiving accents and case: '2ª via', '2a via', 'segunda via', 'boleto', 'pix', 'fatura'
 * → the open invoice; 'status', 'assinatura' → the subscription; 'cancelar' → how to cancel (never cancels);
 * anything else → the menu. Cancelling wins over the rest ('cancelar assinatura' asks how to cancel).
 */
export function parseWhatsAppIntent(text: string): WhatsAppIntent {
  const normalized = normalizeMessage(text)
  if (!normalized) return 'menu'
  if (cancelWords.test(normalized)) return 'cancel'
  if (invoiceWords.test(normalized)) return 'invoice'
  if (statusWords.test(normalized)) return 'status'
  return 'menu'
}
