import type { Config } from './config'
import type { Database, Db } from './db/client'
import type { Auth } from './modules/auth/auth'
import type { CardGateway } from './modules/billing/card-gateway'
import type { MailSender } from './modules/messaging/email'
import type { WhatsAppSender } from './modules/messaging/whatsapp'
import type { ApiPixClient } from './modules/pix/api-pix-client'

/** Everything a route or job needs, built once by buildApp (tests swap providers and the clock). */
export type AppContext = {
  config: Config
  database: Database
  db: Db
  auth: Auth
  mail: MailSender
  whatsapp: WhatsAppSender
  card: CardGateway
  /** The PSP's API Pix with PIX_PROVIDER=api-pix; null (or absent) with the manual static code. */
  pix?: ApiPixClient | null
  /** The one clock: every time-dependent rule reads it, so tests can move time. */
  now: () => Date
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext
  }
}
