import type { Transporter } from 'nodemailer'
import { appendOutbox, type MessagingLog } from './outbox'

export interface MailMessage {
  to: string
  subject: string
  text: string
  html?: string | undefined
}

export interface MailSender {
  send(msg: MailMessage): Promise<void>
}

export interface MailSenderOptions {
  smtpUrl?: string | undefined
  from: string
  outboxPath: string
  production: boolean
  log: MessagingLog
}

/** SMTP through nodemailer when SMTP_URL is set; the dev outbox otherwise, which production refuses. */
export function createMailSender(opts: MailSenderOptions): MailSender {
  if (opts.smtpUrl) {
    // nodemailer waits up to 2 min to connect and 10 min on a silent socket: a hung SMTP server would hold the
    // request (or the delivery pass) that long. Ours fail in seconds and the outbound message is retried later.
    // nodemailer is loaded with the first e-mail, not with the server.
    let transport: Promise<Transporter> | null = null
    const smtpUrl = opts.smtpUrl
    return {
      async send(msg) {
        transport ??= import('nodemailer').then(({ createTransport }) =>
          createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 }),
        )
        const info = await (await transport).sendMail({
          from: opts.from,
          to: msg.to,
          subject: msg.subject,
          text: msg.text,
          ...(msg.html === undefined ? {} : { html: msg.html }),
        })
        // The body carries sign-in links: log only the id.
        opts.log.info({ channel: 'email', messageId: info.messageId }, 'e-mail accepted by SMTP server')
      },
    }
  }
  if (opts.production)
    throw new Error(
      'Provedor de e-mail não configurado: defina SMTP_URL (a caixa de saída de desenvolvimento não é usada em produção)',
    )
  return {
    async send(msg) {
      await appendOutbox(
        opts.outboxPath,
        { channel: 'email', to: msg.to, subject: msg.subject, text: msg.text },
        opts.log,
      )
    },
  }
}
