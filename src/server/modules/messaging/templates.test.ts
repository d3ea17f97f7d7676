import { describe, expect, it } from 'vitest'
import { confirmEmail, resetPassword, verificationCodeWhatsApp } from './templates'

const url = 'http://localhost:3000/api/auth/verify-email?token=abc.def&callbackURL=%2Flogin'

describe('message templates', () => {
  it('puts the verification code in the WhatsApp text as a standalone word', () => {
    const { text } = verificationCodeWhatsApp('012345')
    expect(text).toBe('Seu código de verificação é 012345. Ele expira em 10 minutos. Não compartilhe este código.')
    expect(text.match(/\b\d{6}\b/g)).toEqual(['012345'])
  })

  it('refuses a code that is not 6 digits', () => {
    expect(() => verificationCodeWhatsApp('12345')).toThrow()
  })

  it('builds the confirmation e-mail with the link on its own line', () => {
    const message = confirmEmail({ name: 'Maria', url })
    expect(message.subject).toBe('Confirme seu e-mail')
    expect(message.text.split('\n')).toContain(url)
    expect(message.text).toContain('Olá, Maria!')
    expect(message.html).toContain(
      'href="http://localhost:3000/api/auth/verify-email?token=abc.def&amp;callbackURL=%2Flogin"',
    )
  })

  it('builds the password reset e-mail with the link on its own line', () => {
    const message = resetPassword({ name: 'João', url: 'https://app.example.com.br/reset-password?token=xyz' })
    expect(message.subject).toBe('Redefinição de senha')
    expect(message.text.split('\n')).toContain('https://app.example.com.br/reset-password?token=xyz')
    expect(message.html).toContain('Olá, João!')
  })

  it('escapes the name in HTML and keeps it on one line in text', () => {
    const message = confirmEmail({ name: '<img src=x onerror="alert(1)">\nClique aqui', url })
    expect(message.html).not.toContain('<img')
    expect(message.html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt; Clique aqui')
    expect(message.text.split('\n')[0]).toBe('Olá, <img src=x onerror="alert(1)"> Clique aqui!')
  })

  it('greets without a name when the name is blank', () => {
    expect(resetPassword({ name: '  ', url }).text.startsWith('Olá!\n')).toBe(true)
  })

  it('refuses links that are not http(s)', () => {
    expect(() => confirmEmail({ name: 'Maria', url: 'javascript:alert(1)' })).toThrow()
  })
})
