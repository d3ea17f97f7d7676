import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import path from 'node:path'
import { z } from 'zod'

const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))

// A javascript: or ftp: address would end up in links and redirects.
const httpUrl = () => z.url({ protocol: /^https?$/, error: 'deve ser uma URL http(s) completa' })
// The PSP's API and token endpoint are only ever reached over TLS (mTLS, in fact).
const httpsUrl = () => z.url({ protocol: /^https$/, error: 'deve ser uma URL https completa' })

/** proxy-addr's names for address ranges, which Fastify's trustProxy accepts among the addresses. */
const proxyRangeNames = new Set(['loopback', 'linklocal', 'uniquelocal'])

function isProxyAddress(entry: string): boolean {
  if (proxyRangeNames.has(entry)) return true
  const [address = '', prefix, ...rest] = entry.split('/')
  const kind = isIP(address)
  if (!kind || rest.length > 0) return false
  if (prefix === undefined) return true
  if (!/^\d{1,3}$/.test(prefix)) return false
  return Number(prefix) <= (kind === 4 ? 32 : 128)
}

/**
 * TRUST_PROXY in Fastify's own forms, never "trust anything": `false` (or 0), the number of proxies in front of
 * the app (the client is that many hops back in X-Forwarded-For), or the proxies' addresses/CIDRs, comma-separated.
 */
export function parseTrustProxy(value: string, ctx: z.RefinementCtx): false | number | string {
  if (value === '' || value === 'false' || value === '0') return false
  if (value === 'true') {
    ctx.addIssue({
      code: 'custom',
      message:
        'não aceita true, que confiaria em qualquer X-Forwarded-For enviado pelo cliente; use o número de proxies à frente do app (ex.: 1) ou os endereços/CIDRs deles (ex.: 10.0.0.0/8)',
    })
    return z.NEVER
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value)
    if (hops <= 10) return hops
  } else {
    const entries = value.split(',').map((e) => e.trim())
    if (entries.every(isProxyAddress)) return entries.join(',')
  }
  ctx.addIssue({
    code: 'custom',
    message: 'deve ser false, o número de proxies (1 a 10) ou uma lista de endereços/CIDRs separados por vírgula',
  })
  return z.NEVER
}

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'deve começar com postgres:// ou postgresql://')
      .optional(),
  ),
  // PostgreSQL cancels a statement (or its wait for a lock) running longer than this; 0 = no limit.
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(15_000),
  // Transactions a billing pass runs at once on PostgreSQL (lifecycle/pass-runner.ts); more go faster where the
  // database has cores to spare, and take them from the customers' requests where it has not.
  BILLING_PASS_CONCURRENCY: z.coerce.number().int().min(1).max(8).default(2),
  DATA_DIR: z.string().min(1).default('./data'),
  APP_URL: optionalText.pipe(httpUrl().optional()),
  AUTH_SECRET: optionalText.pipe(z.string().min(32, 'deve ter pelo menos 32 caracteres').optional()),
  ADMIN_EMAIL: optionalText.pipe(z.email('deve ser um e-mail válido').optional()),
  ADMIN_PASSWORD: optionalText.pipe(z.string().min(8, 'deve ter pelo menos 8 caracteres').optional()),
  SMTP_URL: optionalText.pipe(
    z
      .string()
      .regex(/^smtps?:\/\//, 'deve começar com smtp:// ou smtps://')
      .optional(),
  ),
  MAIL_FROM: z.string().default('Atendimento Multicanal <nao-responda@localhost>'),
  WHATSAPP_TOKEN: optionalText,
  WHATSAPP_PHONE_NUMBER_ID: optionalText,
  WHATSAPP_API_URL: httpUrl().default('https://graph.facebook.com/v21.0'),
  WHATSAPP_APP_SECRET: optionalText,
  WHATSAPP_VERIFY_TOKEN: optionalText,
  WHATSAPP_AUTH_TEMPLATE: z
    .string()
    .regex(/^[a-z0-9_]{1,512}$/, 'deve ser o nome de um modelo aprovado (minúsculas, dígitos e _)')
    .default('codigo_verificacao'),
  WHATSAPP_TEMPLATE_LANG: z
    .string()
    .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'deve ser um código de idioma da Meta, como pt_BR')
    .default('pt_BR'),
  STRIPE_SECRET_KEY: optionalText,
  STRIPE_WEBHOOK_SECRET: optionalText,
  STRIPE_API_URL: optionalText.pipe(httpUrl().optional()),
  SUPPORT_WHATSAPP: z
    .string()
    .regex(/^\d{10,15}$/, 'deve ter de 10 a 15 dígitos')
    .default('5585999990000'),
  CHAT_PLATFORM_URL: httpUrl().default('https://chat.example.com.br'),
  COMPANY_LEGAL_NAME: z.string().min(1).default('Atendimento Multicanal Tecnologia Ltda'),
  COMPANY_CNPJ: z.string().min(1).default('00.000.000/0001-00'),
  COMPANY_ADDRESS: z.string().min(1).default('Rua Exemplo, 100, Centro, Itaitinga - CE, 61880-000, Brasil'),
  COMPANY_CREDIT: z.string().min(1).default('Equipe Atendimento Multicanal'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: z.string().trim().default('false').transform(parseTrustProxy),
  PLATFORM_WEBHOOK_URL: optionalText.pipe(httpUrl().optional()),
  PLATFORM_WEBHOOK_SECRET: optionalText.pipe(z.string().min(16, 'deve ter pelo menos 16 caracteres').optional()),
  RUN_JOBS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  // PIX through a PSP's API Pix (OAuth client credentials over mTLS); `manual` is the static code + admin.
  PIX_PROVIDER: optionalText.pipe(z.enum(['manual', 'api-pix']).default('manual')),
  PIX_API_URL: optionalText.pipe(httpsUrl().optional()),
  PIX_OAUTH_URL: optionalText.pipe(httpsUrl().optional()),
  PIX_CLIENT_ID: optionalText,
  PIX_CLIENT_SECRET: optionalText,
  PIX_CERT: optionalText,
  PIX_KEY: optionalText,
  PIX_CA: optionalText,
  PIX_PSP_STYLE: optionalText.pipe(z.enum(['bcb', 'efi']).default('bcb')),
  // PIX Automático (recurring debits authorised once in the bank app); needs PIX_PROVIDER=api-pix.
  PIX_AUTOMATICO: optionalText.pipe(z.enum(['true', 'false']).default('false')).transform((v) => v === 'true'),
  // The account that receives PIX Automático debits at the PSP (cobr.recebedor): 'agência:conta:tipo'.
  PIX_AUTOMATICO_ACCOUNT: optionalText.pipe(
    z
      .string()
      .regex(
        /^\d{1,4}:[0-9A-Za-z-]{1,20}:(CORRENTE|POUPANCA|PAGAMENTO)$/,
        'use agência:conta:CORRENTE|POUPANCA|PAGAMENTO',
      )
      .optional(),
  ),
  // Two-factor for admins: 'required' (the default in production) closes /api/admin to an admin without it.
  ADMIN_MFA: optionalText.pipe(z.enum(['required', 'optional']).optional()),
})

/** With PIX_PROVIDER=api-pix these must all be set (PIX_CA and PIX_PSP_STYLE are optional). */
const apiPixRequired = [
  'PIX_API_URL',
  'PIX_OAUTH_URL',
  'PIX_CLIENT_ID',
  'PIX_CLIENT_SECRET',
  'PIX_CERT',
  'PIX_KEY',
] as const

export type Env = z.infer<typeof envSchema>

export type Config = Env & {
  appUrl: string
  authSecret: string
  dataDir: string
  outboxPath: string
  secureCookies: boolean
  trustedOrigins: string[]
  /** ADMIN_MFA resolved: unless set, 'required' in production and 'optional' elsewhere. */
  adminMfa: 'required' | 'optional'
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** zod's generic messages in Portuguese (the messages written in the schema win over these). */
function portugueseIssue(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === 'number' ? 'deve ser um número' : 'tem um valor inválido'
    case 'too_big':
      return `deve ser no máximo ${String(issue.maximum)}`
    case 'too_small':
      return `deve ser no mínimo ${String(issue.minimum)}`
    case 'invalid_value':
      return `deve ser um destes: ${issue.values.map(String).join(', ')}`
    case 'invalid_format':
      return issue.format === 'url' ? 'deve ser uma URL http(s) completa' : 'tem um formato inválido'
    default:
      return undefined
  }
}

/** Parses the environment once. Throws ConfigError with one line naming the variable and the problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env, { error: portugueseIssue })
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const name = String(issue?.path[0] ?? 'ambiente')
    throw new ConfigError(`Configuração inválida: ${name} ${issue?.message ?? 'inválida'}`)
  }
  const e = parsed.data
  const production = e.NODE_ENV === 'production'
  if (production) {
    if (!e.AUTH_SECRET) throw new ConfigError('Configuração inválida: AUTH_SECRET é obrigatório em produção')
    if (!e.APP_URL) throw new ConfigError('Configuração inválida: APP_URL é obrigatório em produção')
    if (!e.STRIPE_SECRET_KEY || !e.STRIPE_WEBHOOK_SECRET)
      throw new ConfigError(
        'Configuração inválida: STRIPE_SECRET_KEY e STRIPE_WEBHOOK_SECRET são obrigatórios em produção',
      )
    if (!e.SMTP_URL) throw new ConfigError('Configuração inválida: SMTP_URL é obrigatório em produção')
  }
  if (Boolean(e.WHATSAPP_TOKEN) !== Boolean(e.WHATSAPP_PHONE_NUMBER_ID))
    throw new ConfigError('Configuração inválida: WHATSAPP_TOKEN e WHATSAPP_PHONE_NUMBER_ID devem ser definidos juntos')
  if (Boolean(e.STRIPE_SECRET_KEY) !== Boolean(e.STRIPE_WEBHOOK_SECRET))
    throw new ConfigError('Configuração inválida: STRIPE_SECRET_KEY e STRIPE_WEBHOOK_SECRET devem ser definidos juntos')
  if (Boolean(e.ADMIN_EMAIL) !== Boolean(e.ADMIN_PASSWORD))
    throw new ConfigError('Configuração inválida: ADMIN_EMAIL e ADMIN_PASSWORD devem ser definidos juntos')
  if (e.PLATFORM_WEBHOOK_URL && !e.PLATFORM_WEBHOOK_SECRET)
    throw new ConfigError(
      'Configuração inválida: PLATFORM_WEBHOOK_SECRET é obrigatório quando PLATFORM_WEBHOOK_URL é definido',
    )
  if (e.PIX_PROVIDER === 'api-pix') {
    const missing = apiPixRequired.find((name) => !e[name])
    if (missing) throw new ConfigError(`Configuração inválida: ${missing} é obrigatório quando PIX_PROVIDER=api-pix`)
  }
  if (e.PIX_AUTOMATICO && e.PIX_PROVIDER !== 'api-pix')
    throw new ConfigError('Configuração inválida: PIX_AUTOMATICO=true exige PIX_PROVIDER=api-pix')

  const dataDir = path.resolve(e.DATA_DIR)
  const appUrl = (e.APP_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, '')
  const origins = new Set([appUrl])
  if (!production) {
    origins.add(`http://127.0.0.1:${e.PORT}`)
    origins.add(`http://localhost:${e.PORT}`)
    origins.add('http://localhost:5173')
    origins.add('http://127.0.0.1:5173')
  }
  return {
    ...e,
    appUrl,
    dataDir,
    authSecret: e.AUTH_SECRET ?? generatedSecret(dataDir),
    outboxPath: path.join(dataDir, 'outbox.jsonl'),
    secureCookies: appUrl.startsWith('https://'),
    trustedOrigins: [...origins],
    adminMfa: e.ADMIN_MFA ?? (production ? 'required' : 'optional'),
  }
}

/**
 * Lines start-up prints before anything else. NODE_ENV unset means development, which a public deployment must
 * not run by accident: say so, once, on stderr.
 */
export function startupWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.NODE_ENV?.trim()) return []
  return [
    'Atenção: NODE_ENV não definido, rodando como development: a caixa de saída de desenvolvimento ' +
      '(DATA_DIR/outbox.jsonl) e o simulador de cartão estão ligados. Em produção, defina NODE_ENV=production.',
  ]
}

/** Outside production the session secret is generated once and kept in DATA_DIR, so restarts keep sessions. */
function generatedSecret(dataDir: string): string {
  const file = path.join(dataDir, 'auth-secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(32).toString('base64url')
  writeFileSync(file, secret, { mode: 0o600 })
  return secret
}
