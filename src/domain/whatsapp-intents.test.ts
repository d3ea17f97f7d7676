import { describe, expect, it } from 'vitest'
import { normalizeMessage, parseWhatsAppIntent, type WhatsAppIntent } from './whatsapp-intents'

describe('parseWhatsAppIntent', () => {
  const table: [string, WhatsAppIntent][] = [
    ['2ª via', 'invoice'],
    ['2a via', 'invoice'],
    ['2ª Via', 'invoice'],
    ['2º via', 'invoice'],
    ['2° via', 'invoice'],
    ['2via', 'invoice'],
    ['Quero a 2ª via, por favor', 'invoice'],
    ['segunda via', 'invoice'],
    ['SEGUNDA VIA DA FATURA', 'invoice'],
    ['boleto', 'invoice'],
    ['Boleto?', 'invoice'],
    ['pix', 'invoice'],
    ['PIX!!', 'invoice'],
    ['fatura', 'invoice'],
    ['Fatúra', 'invoice'],
    ['código pix copia e cola', 'invoice'],
    ['status', 'status'],
    ['Status', 'status'],
    ['assinatura', 'status'],
    ['minha assinatura', 'status'],
    ['Situação', 'status'],
    ['cancelar', 'cancel'],
    ['CANCELAR', 'cancel'],
    ['quero cancelar a assinatura', 'cancel'],
    ['cancelamento', 'cancel'],
    ['oi', 'menu'],
    ['Olá, bom dia', 'menu'],
    ['', 'menu'],
    ['   ', 'menu'],
    ['😀', 'menu'],
    ['pixel', 'menu'],
    ['faturamento', 'menu'],
  ]
  it.each(table)('%j → %s', (text, intent) => {
    expect(parseWhatsAppIntent(text)).toBe(intent)
  })

  it('normalises accents, ordinals, case and punctuation', () => {
    expect(normalizeMessage('  2ª VIA, Situação!  ')).toBe('2a via situacao')
  })
})
