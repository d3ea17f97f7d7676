import { describe, expect, it } from 'vitest'
import { codeDigits, isCompleteCode, isWhatsAppNumber, numberDigits } from './whatsapp-verification-form'

describe('WhatsApp verification form', () => {
  it('keeps only the digits of a number typed with punctuation', () => {
    expect(numberDigits('+55 (85) 99999-0000')).toBe('5585999990000')
  })

  it('takes 10 to 15 digits as a number, with country and area code', () => {
    expect(isWhatsAppNumber('5585999990000')).toBe(true)
    expect(isWhatsAppNumber('8599999000')).toBe(true)
    expect(isWhatsAppNumber('859999900')).toBe(false)
    expect(isWhatsAppNumber('5585999990000123')).toBe(false)
    expect(isWhatsAppNumber('')).toBe(false)
  })

  it('keeps the first 6 digits of a pasted code, and offers Verificar only with all 6', () => {
    expect(codeDigits('123 456 789')).toBe('123456')
    expect(codeDigits('12-34')).toBe('1234')
    expect(isCompleteCode('1234')).toBe(false)
    expect(isCompleteCode('123456')).toBe(true)
  })
})
