export interface WhatsAppMessage {
  text: string
}

export interface EmailMessage {
  subject: string
  text: string
  html: string
}

/** The code must stay a standalone 6-digit word: tests and people read it from the outbox with /\b\d{6}\b/. */
export function verificationCodeWhatsApp(code: string): WhatsAppMessage {
  if (!/^\d{6}$/.test(code)) throw new Error('O código de verificação deve ter 6 dígitos')
  return {
    text: `Seu código de verificação é ${code}. Ele expira em 10 minutos. Não compartilhe este código.`,
  }
}

export function confirmEmail(input: { name: string; url: string }): EmailMessage {
  return linkEmail({
    subject: 'Confirme seu e-mail',
    name: input.name,
    url: input.url,
    intro: 'Para confirmar seu e-mail e ativar sua conta, acesse o link abaixo:',
    button: 'Confirmar e-mail',
    outro: 'Se você não criou uma conta, ignore esta mensagem.',
  })
}

export function resetPassword(input: { name: string; url: string }): EmailMessage {
  return linkEmail({
    subject: 'Redefinição de senha',
    name: input.name,
    url: input.url,
    intro: 'Recebemos um pedido para redefinir a sua senha. Para criar uma nova senha, acesse o link abaixo:',
    button: 'Redefinir senha',
    outro: 'Se você não pediu a redefinição, ignore esta mensagem: sua senha continua a mesma.',
  })
}

export function accountLockedEmail(input: { name: string; url: string }): EmailMessage {
  return linkEmail({
    subject: 'Acesso à sua conta bloqueado temporariamente',
    name: input.name,
    url: input.url,
    intro:
      'Houve muitas tentativas de entrar na sua conta com senha errada na última hora. Por segurança, bloqueamos a entrada com senha por até uma hora. Se não foi você, recomendamos criar uma nova senha:',
    button: 'Redefinir senha',
    outro: 'Se foi você, aguarde e tente novamente mais tarde. Sua senha não foi alterada.',
  })
}

/** Escapes text for HTML element content and double- or single-quoted attributes. */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

function linkEmail(parts: {
  subject: string
  name: string
  url: string
  intro: string
  button: string
  outro: string
}): EmailMessage {
  // A javascript: or data: link would run in some mail clients; our links are always http(s).
  if (!/^https?:\/\/\S+$/i.test(parts.url)) throw new Error('O link do e-mail deve ser uma URL http(s)')
  // A name with line breaks could fake extra lines in the plain-text body.
  const name = parts.name.replace(/\s+/g, ' ').trim()
  const greeting = name ? `Olá, ${name}!` : 'Olá!'
  const text = [greeting, '', parts.intro, '', parts.url, '', parts.outro, ''].join('\n')
  const url = escapeHtml(parts.url)
  const html = [
    '<!doctype html>',
    '<html lang="pt-BR">',
    `<head><meta charset="utf-8"><title>${escapeHtml(parts.subject)}</title></head>`,
    '<body style="font-family: Arial, sans-serif; line-height: 1.5; color: #111827;">',
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(parts.intro)}</p>`,
    `<p><a href="${url}" style="display: inline-block; padding: 10px 16px; background: #16a34a; color: #ffffff; text-decoration: none; border-radius: 6px;">${escapeHtml(parts.button)}</a></p>`,
    `<p>Se o botão não funcionar, copie e cole este endereço no navegador:<br><a href="${url}">${url}</a></p>`,
    `<p>${escapeHtml(parts.outro)}</p>`,
    '</body>',
    '</html>',
  ].join('\n')
  return { subject: parts.subject, text, html }
}
