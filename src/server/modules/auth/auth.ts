import { betterAuth } from 'better-auth'
import { drizzleAdapter } from 'better-auth/adapters/drizzle'
import { twoFactor } from 'better-auth/plugins/two-factor'
import type { Config } from '../../config'
import type { Db } from '../../db/client'
import { accounts, profiles, sessions, twoFactors, verifications } from '../../db/schema/auth'
import type { AccountEmail } from '../lifecycle/notifications.service'
import { confirmEmail, resetPassword } from '../messaging/templates'
import { hashPassword, verifyPassword } from './password-hash'

export const sessionRules = {
  expiresInS: 7 * 24 * 60 * 60, // a week without activity ends the session
  absoluteLifetimeMs: 30 * 24 * 60 * 60_000, // and 30 days after sign-in it ends, however active (session.ts)
  reauthenticationValidMs: 5 * 60_000, // step-up: role and PIX changes need the password again within this
  updateAgeS: 24 * 60 * 60, // an active session is extended at most once a day
  emailVerificationExpiresInS: 24 * 60 * 60,
  resetPasswordExpiresInS: 60 * 60,
}

const hostCookies = Object.fromEntries(
  ['session_token', 'session_data', 'account_data', 'dont_remember', 'two_factor', 'trust_device'].map((name) => [
    name,
    { name: `__Host-billing.${name}` },
  ]),
)

/**
 * better-auth owns passwords (scrypt), sessions and e-mail tokens. Its HTTP handler is not mounted:
 * our own routes (auth.routes.ts) validate, rate-limit and translate, then call `auth.api`.
 */
export function createAuth(deps: { db: Db; config: Config; sendAccountEmail: (email: AccountEmail) => Promise<void> }) {
  const { config, sendAccountEmail } = deps
  return betterAuth({
    appName: 'Atendimento Multicanal',
    baseURL: config.appUrl,
    basePath: '/api/auth',
    secret: config.authSecret,
    trustedOrigins: config.trustedOrigins,
    telemetry: { enabled: false },
    logger: { disabled: config.NODE_ENV === 'test' },
    database: drizzleAdapter(deps.db, {
      provider: 'pg',
      schema: { profiles, sessions, accounts, verifications, twoFactor: twoFactors },
    }),
    user: {
      modelName: 'profiles',
      additionalFields: {
        companyName: { type: 'string', required: false, defaultValue: '', input: true },
        whatsappNumber: { type: 'string', required: false, defaultValue: '', input: true },
        // Never accepted from a request: only admins (users module) and the shell change a role.
        roleId: { type: 'number', required: false, defaultValue: 2, input: false },
      },
    },
    session: { modelName: 'sessions', expiresIn: sessionRules.expiresInS, updateAge: sessionRules.updateAgeS },
    account: { modelName: 'accounts' },
    verification: { modelName: 'verifications' },
    rateLimit: { enabled: false }, // ours live in PostgreSQL (rate-limit.ts), per IP and per account
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      autoSignIn: false,
      minPasswordLength: 8,
      maxPasswordLength: 128,
      // better-auth's own scrypt and format, with a bound on how many run at once (password-hash.ts).
      password: { hash: hashPassword, verify: verifyPassword },
      revokeSessionsOnPasswordReset: true,
      resetPasswordTokenExpiresIn: sessionRules.resetPasswordExpiresInS,
      sendResetPassword: async ({ user, token }) => {
        const url = `${config.appUrl}/reset-password?token=${encodeURIComponent(token)}`
        await sendAccountEmail({
          kind: 'password_reset',
          userId: user.id,
          to: user.email,
          message: resetPassword({ name: user.name, url }),
        })
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      sendOnSignIn: true,
      autoSignInAfterVerification: false,
      expiresIn: sessionRules.emailVerificationExpiresInS,
      sendVerificationEmail: async ({ user, token }) => {
        const url = `${config.appUrl}/api/auth/verify-email?token=${encodeURIComponent(token)}`
        await sendAccountEmail({
          kind: 'email_confirmation',
          userId: user.id,
          to: user.email,
          message: confirmEmail({ name: user.name, url }),
        })
      },
    },
    plugins: [
      // TOTP only (no e-mail/SMS codes), 10 single-use recovery codes stored encrypted. Our routes call its
      // auth.api methods (auth.routes.ts, two-factor.routes.ts); a sign-in that needs a code leaves a short-lived
      // signed 'two_factor' cookie, and no session, until the code is given.
      twoFactor({ issuer: 'Atendimento Multicanal', twoFactorCookieMaxAge: 10 * 60 }),
    ],
    advanced: {
      // On https every cookie is `__Host-` prefixed (Secure, Path=/, no Domain): a sibling subdomain cannot plant
      // one. better-auth would prefix `__Secure-` itself, so the names are given whole and its own prefixing is off.
      useSecureCookies: false,
      cookiePrefix: 'billing',
      cookies: config.secureCookies ? hostCookies : {},
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax', secure: config.secureCookies, path: '/' },
    },
  })
}

export type Auth = ReturnType<typeof createAuth>
