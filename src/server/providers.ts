// The outside providers of a process (e-mail, WhatsApp, the card gateway, the PSP's API Pix), built from the
// configuration: the API's (app.ts) and the billing jobs' (worker.ts, which needs no HTTP server) are the same.
import type pino from 'pino'
import type { Config } from './config'
import type { AppContext } from './context'
import type { Database } from './db/client'
import { createMailSender } from './modules/messaging/email'
import { createWhatsAppSender } from './modules/messaging/whatsapp'
import { apiPixClientFromConfig } from './modules/pix/api-pix-check'
import { createSimulatorGateway } from './modules/stripe/card-simulator.service'
import { createStripeGateway } from './modules/stripe/stripe-gateway'

export type Providers = Pick<AppContext, 'mail' | 'whatsapp' | 'card' | 'pix'>

/** The providers, each replaced by `given`'s when set (tests pass fakes of the ones they drive). */
export function createProviders(options: {
  config: Config
  database: Database
  log: Pick<pino.BaseLogger, 'info' | 'warn' | 'error'>
  now: () => Date
  given?: Partial<Pick<Providers, 'mail' | 'whatsapp' | 'card'>>
}): Providers {
  const { config, database, log, now, given = {} } = options
  const production = config.NODE_ENV === 'production'
  const info = { info: (obj: object, msg: string) => log.info(obj, msg) }
  return {
    mail:
      given.mail ??
      createMailSender({
        smtpUrl: config.SMTP_URL,
        from: config.MAIL_FROM,
        outboxPath: config.outboxPath,
        production,
        log: info,
      }),
    whatsapp:
      given.whatsapp ??
      createWhatsAppSender({
        token: config.WHATSAPP_TOKEN,
        phoneNumberId: config.WHATSAPP_PHONE_NUMBER_ID,
        apiUrl: config.WHATSAPP_API_URL,
        authTemplate: config.WHATSAPP_AUTH_TEMPLATE,
        templateLanguage: config.WHATSAPP_TEMPLATE_LANG,
        outboxPath: config.outboxPath,
        production,
        log: info,
      }),
    card:
      given.card ??
      (config.STRIPE_SECRET_KEY
        ? createStripeGateway(config, log)
        : createSimulatorGateway({ config, db: database.db, now, log })),
    pix: apiPixClientFromConfig(config),
  }
}
