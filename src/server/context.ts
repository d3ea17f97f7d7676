import type { Config } from './config'
import type { Database, Db } from './db/client'
import type { Auth } from './modules/auth/auth'
import type { CardGateway } from './modules/billing/card-gateway'
import type { MailSender } from './modules/messaging/email'
import type { WhatsAppSender } from './modules/messaging/whatsapp'

/** Everything a route or job needs, built once by buildApp (tests swap providers and the clock). */
export type AppContext = {
  config: Config
  database: Database
  db: Db
  auth: Auth
  mail: MailSender
  whatsapp: WhatsAppSender
  card: CardGateway
  /** The one clock: every time-dependent rule reads it, so tests can move time. */
  now: () => Date
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext
  }
}
