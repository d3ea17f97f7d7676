// A real SMTP peer on one loopback port (smtp-server: nodemailer speaks the real protocol to it) that a test or a
// fault script switches between accepting mail, accepting connections and never greeting, and being gone.
import { createServer, type Server, type Socket } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { freePort } from './free-port'

export type SmtpMode = 'ok' | 'hang' | 'refuse'

/** `from` and `to` from the SMTP envelope (MAIL FROM, RCPT TO); `raw` is the message as sent (headers and body). */
export type ReceivedMail = { from: string | undefined; to: string[]; raw: string }

export type TestSmtp = {
  url: string
  /** Every message accepted so far, in order. */
  received: ReceivedMail[]
  /** Switches what the port does; a 'hang' connection still open is cut. */
  mode(next: SmtpMode): Promise<void>
  close(): Promise<void>
}

/** Starts in 'refuse' (nothing listens): call mode('ok') for a working server. */
export async function startSmtp(): Promise<TestSmtp> {
  const port = await freePort()
  const received: ReceivedMail[] = []
  let current: { close(done: () => void): void } | null = null
  const sockets = new Set<Socket>()
  const listen = (server: Server | SMTPServer) =>
    new Promise<void>((resolve, reject) => {
      const net = server instanceof SMTPServer ? server.server : server
      net.once('error', reject)
      server.listen(port, '127.0.0.1', () => resolve())
    })
  async function mode(next: SmtpMode) {
    if (current) {
      for (const socket of sockets) socket.destroy()
      sockets.clear()
      const closing = current
      await new Promise<void>((resolve) => closing.close(() => resolve()))
      current = null
    }
    if (next === 'ok') {
      const smtp = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        onData(stream, session, callback) {
          const chunks: Buffer[] = []
          stream.on('data', (chunk: Buffer) => chunks.push(chunk))
          stream.on('end', () => {
            const from = session.envelope.mailFrom
            received.push({
              from: from ? from.address : undefined,
              to: session.envelope.rcptTo.map((r) => r.address),
              raw: Buffer.concat(chunks).toString('utf8'),
            })
            callback()
          })
        },
      })
      await listen(smtp)
      current = smtp
    } else if (next === 'hang') {
      // Accepts the connection and never sends the 220 greeting.
      const silent = createServer((socket) => {
        sockets.add(socket)
        socket.on('error', () => {})
      })
      await listen(silent)
      current = silent
    }
  }
  return { url: `smtp://127.0.0.1:${port}`, received, mode, close: () => mode('refuse') }
}
