// The built app as the web benches run it: production mode on a fresh PGlite, an admin to sign in for /dashboard,
// and providers pointed at loopback ports nobody listens on (production wants them set; nothing is sent).
import { startServer } from '../e2e/support/server'

export const benchAdmin = { email: 'admin.bench@example.com', password: 'admin-senha-bench-123' }

export const benchWebEnv = {
  NODE_ENV: 'production',
  AUTH_SECRET: 'bench-secret-0123456789abcdef0123456789abcdef',
  STRIPE_SECRET_KEY: 'sk_test_bench',
  STRIPE_WEBHOOK_SECRET: 'whsec_bench',
  SMTP_URL: 'smtp://127.0.0.1:1',
  ADMIN_EMAIL: benchAdmin.email,
  ADMIN_PASSWORD: benchAdmin.password,
  ADMIN_MFA: 'optional',
  WHATSAPP_TOKEN: 'bench',
  WHATSAPP_PHONE_NUMBER_ID: '1',
  WHATSAPP_API_URL: 'http://127.0.0.1:1',
}

/** Starts it; a loaded machine sometimes needs more than startServer's 120 s for a fresh PGlite: one more try. */
export function startBenchWebServer() {
  return startServer(benchWebEnv).catch(() => startServer(benchWebEnv))
}
