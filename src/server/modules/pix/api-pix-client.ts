// A client of the Banco Central's API Pix (cob, cobv, pix, devolução, webhook), the same across PSPs.
// Every call, the OAuth token call included, goes over mutual TLS with the client certificate the PSP issued:
// the PSP binds the token to that certificate (RFC 8705), so one client holds one agent and one token.
import { Agent, request as httpsRequest } from 'node:https'
import type { z } from 'zod'
import {
  type Cob,
  type CobSolicitada,
  type CobVSolicitada,
  cobSchema,
  type Devolucao,
  devolucaoSchema,
  type Pix,
  type PixPage,
  pixPageSchema,
  pixSchema,
  pixValor,
  problemSchema,
  tokenSchema,
  type Webhook,
  webhookSchema,
} from './api-pix-types'

export type PixPspStyle = 'bcb' | 'efi'

export type ApiPixCredentials = {
  /** PEM client certificate (its chain may follow). */
  cert: string
  /** PEM private key of the client certificate. */
  key: string
  /** PEM CA to trust for the PSP's server certificate, instead of the system's. */
  ca?: string
}

export type ApiPixClientOptions = {
  /** The API base including its version, e.g. 'https://pix.psp.example/v2'. */
  apiUrl: string
  oauthUrl: string
  clientId: string
  clientSecret: string
  credentials: ApiPixCredentials
  style?: PixPspStyle
  /** Scopes asked for in the token call (BCB style only; Efí grants the application's scopes). */
  scope?: string
  /** Per call, connection included. */
  timeoutMs?: number
  /** For the token's expiry; tests pass their clock. */
  now?: () => Date
}

/** What the app needs for goal (a) of the research: charges, due-date charges, PIX received, refunds, webhook. */
export const defaultApiPixScope =
  'cob.write cob.read cobv.write cobv.read pix.write pix.read webhook.write webhook.read'

export type ApiPixErrorKind =
  /** The PSP answered with an error (problem+json, Efí's `{nome, mensagem}` or anything else non-2xx). */
  | 'problem'
  /** The token call was refused, or the API still answered 401 with a fresh token. */
  | 'unauthorized'
  /** No answer: connection refused or reset, TLS handshake failed (e.g. client certificate refused), DNS. */
  | 'network'
  | 'timeout'
  /** A 2xx answer whose body is not what the specification says. */
  | 'invalid_response'

export type ApiPixViolacao = { razao?: string; propriedade?: string; valor?: unknown }

/** Any failure of a call to the PSP, with the PSP's problem details when it sent some. */
export class ApiPixError extends Error {
  override name = 'ApiPixError'
  readonly kind: ApiPixErrorKind
  /** HTTP status, or null when no answer came. */
  readonly status: number | null
  /** The problem type's last segment ('CobNaoEncontrado', 'PixDevolucaoInvalida') or Efí's `nome`. */
  readonly problemType: string | null
  readonly title: string | null
  readonly detail: string | null
  readonly correlationId: string | null
  readonly violacoes: ApiPixViolacao[]
  /** The node error code of a network failure ('ECONNREFUSED', 'ERR_SSL_…'), for a precise start-up message. */
  readonly code: string | null

  constructor(
    message: string,
    init: {
      kind: ApiPixErrorKind
      status?: number | null
      problemType?: string | null
      title?: string | null
      detail?: string | null
      correlationId?: string | null
      violacoes?: ApiPixViolacao[]
      code?: string | null
      cause?: unknown
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause })
    this.kind = init.kind
    this.status = init.status ?? null
    this.problemType = init.problemType ?? null
    this.title = init.title ?? null
    this.detail = init.detail ?? null
    this.correlationId = init.correlationId ?? null
    this.violacoes = init.violacoes ?? []
    this.code = init.code ?? null
  }

  /** True when the PSP could not be reached or failed on its side: the caller may fall back or retry later. */
  get unreachable(): boolean {
    return this.kind === 'network' || this.kind === 'timeout' || (this.status !== null && this.status >= 500)
  }
}

type RawResponse = { status: number; contentType: string; text: string }

export type ListPixParams = {
  inicio: Date | string
  fim: Date | string
  paginaAtual?: number
  itensPorPagina?: number
  txid?: string
  txIdPresente?: boolean
  devolucaoPresente?: boolean
}

export class ApiPixClient {
  private readonly agent: Agent
  private readonly apiUrl: string
  private readonly style: PixPspStyle
  private readonly timeoutMs: number
  private readonly now: () => Date
  private token: { value: string; refreshAt: number } | null = null
  private pendingToken: Promise<string> | null = null

  constructor(private readonly options: ApiPixClientOptions) {
    const { cert, key, ca } = options.credentials
    this.agent = new Agent({
      cert,
      key,
      ...(ca ? { ca } : {}),
      minVersion: 'TLSv1.2',
      keepAlive: true,
      maxSockets: 8,
    })
    this.apiUrl = options.apiUrl.replace(/\/+$/, '')
    this.style = options.style ?? 'bcb'
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.now = options.now ?? (() => new Date())
  }

  /** Closes the kept-alive connections (tests, shutdown). */
  close(): void {
    this.agent.destroy()
  }

  /** A valid access token: the cached one until shortly before it expires, else a new one (one call at a time). */
  async accessToken(options: { fresh?: boolean } = {}): Promise<string> {
    if (options.fresh) this.token = null
    if (this.token && this.now().getTime() < this.token.refreshAt) return this.token.value
    this.pendingToken ??= this.fetchToken().finally(() => {
      this.pendingToken = null
    })
    return this.pendingToken
  }

  private async fetchToken(): Promise<string> {
    const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString('base64')
    // Efí takes a JSON body and grants the application's scopes; the others take the OAuth form body.
    const efi = this.style === 'efi'
    const body = efi
      ? JSON.stringify({ grant_type: 'client_credentials' })
      : new URLSearchParams({
          grant_type: 'client_credentials',
          scope: this.options.scope ?? defaultApiPixScope,
        }).toString()
    const response = await this.send('POST', this.options.oauthUrl, body, {
      authorization: `Basic ${basic}`,
      'content-type': efi ? 'application/json' : 'application/x-www-form-urlencoded',
    })
    if (response.status < 200 || response.status > 299) {
      const reason = oauthError(response.text)
      throw new ApiPixError(`PIX: token recusado pelo PSP (HTTP ${response.status}${reason ? ` ${reason}` : ''})`, {
        kind:
          response.status === 400 || response.status === 401 || response.status === 403 ? 'unauthorized' : 'problem',
        status: response.status,
        problemType: reason,
      })
    }
    const parsed = tokenSchema.safeParse(parseJson(response.text))
    if (!parsed.success) {
      throw new ApiPixError('PIX: resposta do token sem access_token', {
        kind: 'invalid_response',
        status: response.status,
      })
    }
    // Renew a minute early (a quarter of the lifetime for short-lived tokens), so a call never carries a token
    // that expires on its way.
    const lifetimeMs = (parsed.data.expires_in ?? 300) * 1000
    const refreshAt = this.now().getTime() + lifetimeMs - Math.min(60_000, lifetimeMs / 4)
    this.token = { value: parsed.data.access_token, refreshAt }
    return parsed.data.access_token
  }

  /** `PUT /cob/{txid}`: creates the immediate charge (the same txid twice never makes two charges). */
  putCob(txid: string, body: CobSolicitada): Promise<Cob> {
    return this.call('PUT', `/cob/${segment(txid)}`, cobSchema, body)
  }

  /** `GET /cob/{txid}`: the charge with its status and the PIX that paid it (`pix[]`). */
  getCob(txid: string): Promise<Cob> {
    return this.call('GET', `/cob/${segment(txid)}`, cobSchema)
  }

  /** `PUT /cobv/{txid}`: creates a due-date charge. */
  putCobv(txid: string, body: CobVSolicitada): Promise<Cob> {
    return this.call('PUT', `/cobv/${segment(txid)}`, cobSchema, body)
  }

  getCobv(txid: string): Promise<Cob> {
    return this.call('GET', `/cobv/${segment(txid)}`, cobSchema)
  }

  /**
   * Creates the charge, or returns the one a previous attempt already created: PSPs differ on a second PUT of the
   * same txid (some return it, some refuse), and a timeout leaves us not knowing whether the first one arrived.
   * In both cases the charge is read back and accepted only when its amount and key are the ones asked for.
   */
  async ensureCob(txid: string, body: CobSolicitada, options: { budgetMs?: number } = {}): Promise<Cob> {
    if (!options.budgetMs) return this.ensureCobUnbounded(txid, body)
    // A customer is waiting: the token, the PUT and the read-back together get `budgetMs`, after which the caller
    // falls back (the calls themselves end at their own timeout; a charge they still create is the one this txid
    // finds next time, never a second one).
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ApiPixError(`PIX: cobrança sem resposta em ${options.budgetMs} ms`, {
              kind: 'timeout',
              code: 'ETIMEDOUT',
            }),
          ),
        options.budgetMs,
      )
    })
    try {
      return await Promise.race([this.ensureCobUnbounded(txid, body), deadline])
    } finally {
      clearTimeout(timer)
    }
  }

  private async ensureCobUnbounded(txid: string, body: CobSolicitada): Promise<Cob> {
    try {
      return await this.putCob(txid, body)
    } catch (error) {
      if (!(error instanceof ApiPixError) || error.kind === 'unauthorized' || error.kind === 'invalid_response') {
        throw error
      }
      let existing: Cob
      try {
        existing = await this.getCob(txid)
      } catch {
        throw error
      }
      if (existing.valor.original === body.valor.original && existing.chave === body.chave) return existing
      throw error
    }
  }

  /** `GET /pix?inicio&fim…`: one page of the PIX received in the window (by the time the PSP processed them). */
  listPix(params: ListPixParams): Promise<PixPage> {
    const query = new URLSearchParams({ inicio: rfc3339(params.inicio), fim: rfc3339(params.fim) })
    if (params.txid !== undefined) query.set('txid', params.txid)
    if (params.txIdPresente !== undefined) query.set('txIdPresente', String(params.txIdPresente))
    if (params.devolucaoPresente !== undefined) query.set('devolucaoPresente', String(params.devolucaoPresente))
    if (params.paginaAtual !== undefined) query.set('paginacao.paginaAtual', String(params.paginaAtual))
    if (params.itensPorPagina !== undefined) query.set('paginacao.itensPorPagina', String(params.itensPorPagina))
    return this.call('GET', `/pix?${query}`, pixPageSchema)
  }

  /** Every PIX of the window, page after page (at most `maxPages`, a guard against a PSP that never ends). */
  async listAllPix(params: Omit<ListPixParams, 'paginaAtual'>, maxPages = 1000): Promise<Pix[]> {
    const all: Pix[] = []
    for (let page = 0; page < maxPages; page++) {
      const result = await this.listPix({ ...params, paginaAtual: page })
      all.push(...result.pix)
      if (page + 1 >= result.parametros.paginacao.quantidadeDePaginas || result.pix.length === 0) return all
    }
    throw new ApiPixError(`PIX: mais de ${maxPages} páginas em GET /pix`, { kind: 'invalid_response' })
  }

  /** `GET /pix/{e2eid}`. */
  getPix(endToEndId: string): Promise<Pix> {
    return this.call('GET', `/pix/${segment(endToEndId)}`, pixSchema)
  }

  /**
   * `PUT /pix/{e2eid}/devolucao/{id}`: refunds `valorCents` of a PIX received. `id` is ours (1-35 letters and
   * digits, unique per PIX), so it is the idempotency key of the refund.
   */
  putDevolucao(
    endToEndId: string,
    id: string,
    valorCents: number,
    options: { natureza?: 'ORIGINAL' | 'RETIRADA'; descricao?: string } = {},
  ): Promise<Devolucao> {
    if (!/^[a-zA-Z0-9]{1,35}$/.test(id)) throw new RangeError(`PIX: refund id '${id}' must be 1-35 letters or digits`)
    const body = {
      valor: pixValor(valorCents),
      ...(options.natureza ? { natureza: options.natureza } : {}),
      ...(options.descricao ? { descricao: options.descricao.slice(0, 140) } : {}),
    }
    return this.call('PUT', `/pix/${segment(endToEndId)}/devolucao/${segment(id)}`, devolucaoSchema, body)
  }

  getDevolucao(endToEndId: string, id: string): Promise<Devolucao> {
    return this.call('GET', `/pix/${segment(endToEndId)}/devolucao/${segment(id)}`, devolucaoSchema)
  }

  /**
   * `PUT /webhook/{chave}`: the PSP will POST `{webhookUrl}/pix` for each PIX with a txid credited to the key.
   * Efí style: `skipMtlsChecking` (default true) sends `x-skip-mtls-checking`, so Efí registers a URL whose server
   * does not check its client certificate (a proxy in front of the app usually cannot); the app never trusts a
   * callback's body anyway, it re-reads the charge.
   */
  async putWebhook(chave: string, webhookUrl: string, options: { skipMtlsChecking?: boolean } = {}): Promise<void> {
    const headers: Record<string, string> =
      this.style === 'efi' ? { 'x-skip-mtls-checking': String(options.skipMtlsChecking ?? true) } : {}
    await this.call('PUT', `/webhook/${segment(chave)}`, null, { webhookUrl }, headers)
  }

  /** `GET /webhook/{chave}`, or null when no webhook is registered for the key. */
  async getWebhook(chave: string): Promise<Webhook | null> {
    try {
      return await this.call('GET', `/webhook/${segment(chave)}`, webhookSchema)
    } catch (error) {
      if (error instanceof ApiPixError && error.status === 404) return null
      throw error
    }
  }

  async deleteWebhook(chave: string): Promise<void> {
    await this.call('DELETE', `/webhook/${segment(chave)}`, null)
  }

  /** One API call (token, mTLS, problem mapping, schema check); also used by pix-automatico/rec-client.ts. */
  async call<T>(
    method: string,
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<T>
  async call(
    method: string,
    path: string,
    schema: null,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<undefined>
  async call<T>(
    method: string,
    path: string,
    schema: z.ZodType<T> | null,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T | undefined> {
    const url = `${this.apiUrl}${path}`
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const attempt = async (fresh: boolean) => {
      const token = await this.accessToken({ fresh })
      return this.send(method, url, payload, {
        ...headers,
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      })
    }
    // A 401 means the token expired or was revoked early: one retry with a new token, then it is an error.
    let response = await attempt(false)
    if (response.status === 401) response = await attempt(true)
    if (response.status < 200 || response.status > 299) throw problemError(method, path, response)
    if (schema === null) return undefined
    const parsed = schema.safeParse(parseJson(response.text))
    if (!parsed.success) {
      throw new ApiPixError(`PIX: resposta inesperada de ${method} ${stripQuery(path)}`, {
        kind: 'invalid_response',
        status: response.status,
        cause: parsed.error,
      })
    }
    return parsed.data
  }

  private send(
    method: string,
    url: string,
    body: string | undefined,
    headers: Record<string, string>,
  ): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      let settled = false
      const fail = (error: ApiPixError) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        reject(error)
      }
      const request = httpsRequest(
        url,
        {
          method,
          agent: this.agent,
          headers: { ...headers, ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }) },
        },
        (response) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('error', (error) => fail(networkError(method, url, error)))
          response.on('end', () => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            resolve({
              status: response.statusCode ?? 0,
              contentType: String(response.headers['content-type'] ?? ''),
              text: Buffer.concat(chunks).toString('utf8'),
            })
          })
        },
      )
      const timer = setTimeout(() => {
        fail(
          new ApiPixError(`PIX: ${method} ${hostOf(url)} sem resposta em ${this.timeoutMs} ms`, {
            kind: 'timeout',
            code: 'ETIMEDOUT',
          }),
        )
        request.destroy()
      }, this.timeoutMs)
      request.on('error', (error) => fail(networkError(method, url, error)))
      request.end(body)
    })
  }
}

function segment(value: string): string {
  return encodeURIComponent(value)
}

function rfc3339(value: Date | string): string {
  return typeof value === 'string' ? value : value.toISOString()
}

function stripQuery(path: string): string {
  return path.split('?')[0] ?? path
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined
  } catch {
    return undefined
  }
}

/** The `error` of an OAuth error body ('invalid_client'), or null. */
function oauthError(text: string): string | null {
  const body = parseJson(text)
  if (body && typeof body === 'object' && 'error' in body && typeof body.error === 'string') return body.error
  const problem = problemSchema.safeParse(body)
  if (problem.success) return problem.data.nome ?? lastSegment(problem.data.type) ?? null
  return null
}

function lastSegment(type: string | undefined): string | undefined {
  if (!type) return undefined
  return type.split('/').filter(Boolean).at(-1)
}

function problemError(method: string, path: string, response: RawResponse): ApiPixError {
  const parsed = problemSchema.safeParse(parseJson(response.text))
  const problem = parsed.success ? parsed.data : {}
  const problemType = problem.nome ?? lastSegment(problem.type) ?? null
  const detail = problem.detail ?? problem.mensagem ?? null
  const where = `${method} ${stripQuery(path)}`
  return new ApiPixError(
    `PIX: ${where} falhou com HTTP ${response.status}${problemType ? ` ${problemType}` : ''}${detail ? `: ${detail}` : ''}`,
    {
      kind: response.status === 401 ? 'unauthorized' : 'problem',
      status: response.status,
      problemType,
      title: problem.title ?? null,
      detail,
      correlationId: problem.correlationId ?? null,
      violacoes: problem.violacoes ?? [],
    },
  )
}

function networkError(method: string, url: string, error: Error): ApiPixError {
  const code = 'code' in error && typeof error.code === 'string' ? error.code : null
  return new ApiPixError(`PIX: ${method} ${hostOf(url)} falhou: ${code ?? error.message}`, {
    kind: 'network',
    code,
    cause: error,
  })
}
