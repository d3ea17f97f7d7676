// Building the API Pix client from the configuration, and the start-up check: with PIX_PROVIDER=api-pix the
// certificate files must be readable PEM that belong together and the PSP must grant a token, or the server
// refuses to start with one line naming what is wrong.
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { type Config, ConfigError } from '../../config'
import {
  ApiPixClient,
  type ApiPixClientOptions,
  type ApiPixCredentials,
  ApiPixError,
  defaultApiPixScope,
} from './api-pix-client'
import { pixAutomaticoScope } from '../pix-automatico/rec-client'

type PixConfig = Pick<
  Config,
  | 'PIX_PROVIDER'
  | 'PIX_API_URL'
  | 'PIX_OAUTH_URL'
  | 'PIX_CLIENT_ID'
  | 'PIX_CLIENT_SECRET'
  | 'PIX_CERT'
  | 'PIX_KEY'
  | 'PIX_CA'
  | 'PIX_PSP_STYLE'
> &
  Partial<Pick<Config, 'PIX_AUTOMATICO'>>

const refuse = (line: string) => new ConfigError(`Configuração inválida: ${line}`)

function readPem(variable: string, file: string): string {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : ''
    const reason =
      code === 'ENOENT'
        ? 'arquivo não encontrado'
        : code === 'EACCES'
          ? 'sem permissão de leitura'
          : code === 'EISDIR'
            ? 'é um diretório'
            : `não pôde ser lido (${code || 'erro'})`
    throw refuse(`${variable} ${reason}: ${file}`)
  }
  return text
}

function certificate(variable: string, file: string, now: Date): { pem: string; cert: X509Certificate } {
  const pem = readPem(variable, file)
  let cert: X509Certificate | undefined
  try {
    if (pem.includes('-----BEGIN CERTIFICATE-----')) cert = new X509Certificate(pem)
  } catch {}
  if (!cert) throw refuse(`${variable} não é um certificado PEM: ${file}`)
  if (Date.parse(cert.validTo) < now.getTime()) throw refuse(`${variable} expirou em ${cert.validTo}: ${file}`)
  return { pem, cert }
}

function privateKey(variable: string, file: string): { pem: string; key: KeyObject } {
  const pem = readPem(variable, file)
  if (!/-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/.test(pem)) {
    throw refuse(`${variable} não é uma chave privada PEM${pem.includes('ENCRYPTED') ? ' sem senha' : ''}: ${file}`)
  }
  try {
    return { pem, key: createPrivateKey(pem) }
  } catch {
    throw refuse(`${variable} não é uma chave privada PEM legível (protegida por senha?): ${file}`)
  }
}

/**
 * Reads and checks PIX_CERT, PIX_KEY and PIX_CA: readable, PEM, the certificate not expired and the key the
 * certificate's. Throws ConfigError with one line naming the variable and the file.
 */
export function loadApiPixCredentials(config: PixConfig, now = new Date()): ApiPixCredentials {
  if (!config.PIX_CERT) throw refuse('PIX_CERT é obrigatório quando PIX_PROVIDER=api-pix')
  if (!config.PIX_KEY) throw refuse('PIX_KEY é obrigatório quando PIX_PROVIDER=api-pix')
  const cert = certificate('PIX_CERT', config.PIX_CERT, now)
  const key = privateKey('PIX_KEY', config.PIX_KEY)
  if (!cert.cert.checkPrivateKey(key.key)) {
    throw refuse(`PIX_KEY não corresponde ao certificado de PIX_CERT: ${config.PIX_KEY}`)
  }
  const credentials: ApiPixCredentials = { cert: cert.pem, key: key.pem }
  if (config.PIX_CA) credentials.ca = certificate('PIX_CA', config.PIX_CA, now).pem
  return credentials
}

/** The API Pix client for this configuration, or null with PIX_PROVIDER=manual. */
export function apiPixClientFromConfig(
  config: PixConfig,
  options: Pick<ApiPixClientOptions, 'timeoutMs' | 'now'> = {},
): ApiPixClient | null {
  if (config.PIX_PROVIDER !== 'api-pix') return null
  const { PIX_API_URL, PIX_OAUTH_URL, PIX_CLIENT_ID, PIX_CLIENT_SECRET } = config
  if (!PIX_API_URL) throw refuse('PIX_API_URL é obrigatório quando PIX_PROVIDER=api-pix')
  if (!PIX_OAUTH_URL) throw refuse('PIX_OAUTH_URL é obrigatório quando PIX_PROVIDER=api-pix')
  if (!PIX_CLIENT_ID) throw refuse('PIX_CLIENT_ID é obrigatório quando PIX_PROVIDER=api-pix')
  if (!PIX_CLIENT_SECRET) throw refuse('PIX_CLIENT_SECRET é obrigatório quando PIX_PROVIDER=api-pix')
  return new ApiPixClient({
    apiUrl: PIX_API_URL,
    oauthUrl: PIX_OAUTH_URL,
    clientId: PIX_CLIENT_ID,
    clientSecret: PIX_CLIENT_SECRET,
    credentials: loadApiPixCredentials(config, options.now?.()),
    style: config.PIX_PSP_STYLE,
    ...(config.PIX_AUTOMATICO ? { scope: `${defaultApiPixScope} ${pixAutomaticoScope}` } : {}),
    ...options,
  })
}

const untrustedServer = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
])
const unreachable = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT'])

/** One line saying why the token call failed, naming the variable to look at. */
export function describeTokenFailure(error: unknown): string {
  if (!(error instanceof ApiPixError)) {
    return `PIX_OAUTH_URL: a chamada de token falhou (${error instanceof Error ? error.message : String(error)})`
  }
  const code = error.code ?? ''
  if (error.kind === 'unauthorized') {
    return `PIX_CLIENT_ID ou PIX_CLIENT_SECRET recusados pelo PSP (HTTP ${error.status}${error.problemType ? ` ${error.problemType}` : ''})`
  }
  if (error.kind === 'timeout') return `PIX_OAUTH_URL não respondeu a tempo (${code})`
  if (untrustedServer.has(code)) {
    return `PIX_OAUTH_URL: o certificado do servidor do PSP não é confiável (${code}); confira PIX_CA`
  }
  if (unreachable.has(code)) return `PIX_OAUTH_URL inacessível (${code})`
  if (error.kind === 'network') {
    return `PIX_CERT: o PSP recusou a conexão com o certificado de cliente (${code || error.message})`
  }
  return `PIX_OAUTH_URL: a chamada de token falhou (${error.message})`
}

/**
 * With PIX_PROVIDER=api-pix: the certificate files are readable PEM that belong together and the PSP grants a
 * token over mTLS. Throws ConfigError with one line naming what is wrong. Does nothing with PIX_PROVIDER=manual.
 */
export async function checkApiPix(
  config: PixConfig,
  options: Pick<ApiPixClientOptions, 'timeoutMs' | 'now'> = {},
): Promise<void> {
  const client = apiPixClientFromConfig(config, options)
  if (!client) return
  try {
    await client.accessToken()
  } catch (error) {
    throw refuse(describeTokenFailure(error))
  } finally {
    client.close()
  }
}
