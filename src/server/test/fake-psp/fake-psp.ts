// A local fake PSP speaking the Banco Central's API Pix (openapi 2.9.0) over mutual TLS on loopback, with test
// controls on a separate plain-HTTP port. Tests only: the real client (modules/pix/api-pix-client.ts) talks to it.
//
// API (HTTPS, client certificate from the test CA required, token bound to that certificate):
//   POST /oauth/token                      client credentials (Basic or form body), JSON or form
//   PUT|GET /v2/cob/{txid}, PUT|GET /v2/cobv/{txid}
//   GET /v2/pix?inicio&fim[&txid][&txIdPresente][&devolucaoPresente][&paginacao.paginaAtual][&…itensPorPagina]
//   GET /v2/pix/{e2eid}, PUT|GET /v2/pix/{e2eid}/devolucao/{id}
//   PUT|GET|DELETE /v2/webhook/{chave}
// Errors are RFC 7807 with the specification's `type` URIs. Callbacks are POSTed to `{webhookUrl}/pix` as
// `{ "pix": [ … ] }`, over mTLS with the PSP's own client certificate when the URL is https.
import { randomBytes, randomInt } from 'node:crypto'
import {
  createServer as createHttpServer,
  type IncomingMessage,
  request as httpRequest,
  type ServerResponse,
} from 'node:http'
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https'
import type { AddressInfo } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { centsToDecimalString } from '../../../domain/money'
import { buildDynamicPixBrCode } from '../../../domain/pix'
import { createAutomatico, type FakeAutomatico } from './fake-psp-automatico'
import { createTestCertificates, type TestCertificates } from './test-certificates'

type Json = Record<string, unknown>

export type FakePspOptions = {
  /** The receiver's DICT key: charges and webhooks for another key are refused. */
  merchantKey?: string
  clientId?: string
  clientSecret?: string
  beneficiaryName?: string
  beneficiaryCity?: string
  /** Lifetime of issued tokens, in seconds. */
  tokenLifetimeSeconds?: number
  /** 'return' (default): a second PUT of an ATIVA txid with the same body returns it; 'reject' refuses it. */
  duplicateTxid?: 'return' | 'reject'
  /** Callback retries after a non-2xx answer or no answer, and the pause between them. */
  callbackRetries?: number
  callbackRetryDelayMs?: number
  /** Adds Efí's `gnExtras` to PIX objects (payer name and document). */
  style?: 'bcb' | 'efi'
  now?: () => Date
}

type Devedor = { cpf?: string; cnpj?: string; nome?: string }

type CobRecord = {
  kind: 'cob' | 'cobv'
  txid: string
  revisao: number
  criacao: Date
  expiracao?: number
  dataDeVencimento?: string
  validadeAposVencimento?: number
  status: string
  devedor?: Devedor
  original: string
  modalidadeAlteracao: number
  chave: string
  solicitacaoPagador?: string
  infoAdicionais?: unknown
  loc: { id: number; location: string; tipoCob: string; criacao: string }
  pixCopiaECola: string
  pix: string[]
  /** The request body as sent, to tell a retry from a change. */
  requestBody: string
}

type DevolucaoRecord = {
  id: string
  rtrId: string
  valor: string
  natureza: string
  descricao?: string
  solicitacao: string
  liquidacao?: string
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO'
  motivo?: string
}

type PixRecord = {
  endToEndId: string
  txid?: string
  valor: string
  chave: string
  horario: string
  infoPagador?: string
  payer?: { nome: string; cpf: string }
  devolucoes: DevolucaoRecord[]
}

export type FakePspCall = { method: string; path: string; status: number; at: string; contentType?: string }

export type CallbackTransport = 'mtls' | 'no-cert' | 'foreign-cert'

export type FakePspDelivery = {
  url: string
  body: { pix: Json[] }
  transport: CallbackTransport
  forged: boolean
  /** HTTP status of the last attempt, or null when none answered. */
  status: number | null
  error?: string
  attempts: number
  /** 'dropped' when the test asked the PSP to lose it, 'no-webhook' when the key has none. */
  outcome: 'delivered' | 'failed' | 'dropped' | 'no-webhook'
}

export type CallbackMode = 'deliver' | 'drop' | 'hold'

export type PayInput = {
  txid: string
  /** Defaults to the charge's amount; required for a txid without a charge (a static code). */
  valorCents?: number
  payerName?: string
  payerCpf?: string
  infoPagador?: string
  /** 'deliver' (default) sends the callback, 'drop' loses it, 'hold' keeps it for `deliverHeld`. */
  callback?: CallbackMode
  /** Sends the callback this many milliseconds later. */
  delayMs?: number
  /** Pays even an expired or removed charge. */
  force?: boolean
}

export type FailNextInput = {
  method?: string
  /** Matched against the path with its query, e.g. '^/v2/cob/'. */
  path: string
  times?: number
  /**
   * 'problem' (default) answers `status` with a problem; 'hang' never answers; 'reset' drops the connection;
   * 'lose-answer' does the work and then drops the connection instead of answering (a create that "timed out");
   * 'slow' does the work and answers normally after `delayMs`.
   */
  mode?: 'problem' | 'hang' | 'reset' | 'lose-answer' | 'slow'
  /** With 'slow': how long the answer waits. */
  delayMs?: number
  status?: number
  problemType?: string
  /** Answers this JSON instead of a problem (e.g. Efí's `{ nome, mensagem }`). */
  body?: Json
}

export type FakePspControls = {
  pay(input: PayInput): Promise<Json>
  /** Sends every held PIX in one batched callback. */
  deliverHeld(): Promise<FakePspDelivery | null>
  /** Sends these existing PIX (again) in one callback: duplicates and batches. */
  resend(input: { endToEndIds: string[]; transport?: CallbackTransport }): Promise<FakePspDelivery | null>
  /** Sends a callback for PIX the PSP never received (by default without a client certificate). */
  forge(input: {
    items: Array<{ txid: string; valorCents: number; endToEndId?: string }>
    transport?: CallbackTransport
    chave?: string
  }): Promise<FakePspDelivery | null>
  /** Makes the charge expired (creation moved back); its status stays ATIVA, as at real PSPs. */
  expire(input: { txid: string }): void
  /** The PSP removes the charge (REMOVIDA_PELO_PSP). */
  remove(input: { txid: string }): void
  finishRefund(input: {
    endToEndId: string
    id: string
    outcome: 'DEVOLVIDO' | 'NAO_REALIZADO'
    motivo?: string
  }): Promise<Json>
  /** Every issued token stops working: the next API call gets 401. */
  revokeTokens(): void
  failNext(input: FailNextInput): void
  /** Forgets the failures failNext armed and not yet used. */
  clearFailures(): void
}

export type FakePsp = {
  apiUrl: string
  oauthUrl: string
  controlUrl: string
  merchantKey: string
  clientId: string
  clientSecret: string
  certificates: TestCertificates
  /** PEM files of the app's client certificate, its key and the CA that signed the PSP's server certificate. */
  clientCertPaths: { cert: string; key: string; ca: string }
  /** The PIX_* variables that point the app at this fake. */
  env(): Record<string, string>
  calls: FakePspCall[]
  deliveries: FakePspDelivery[]
  /** How many tokens were issued. */
  tokensIssued(): number
  /** The webhook registered for a key, with the `x-skip-mtls-checking` header it was registered with. */
  webhook(chave: string): { webhookUrl: string; criacao: string; skipMtlsChecking?: string } | undefined
  /** A copy of a charge as `GET /cob` would show it, or undefined. */
  charge(txid: string): Json | undefined
  controls: FakePspControls
  /** PIX Automático (rec, cobr, their webhooks and controls): fake-psp-automatico.ts. */
  automatico: FakeAutomatico
  /** Resolves when no callback is pending (delayed or retrying). */
  idle(): Promise<void>
  stop(): Promise<void>
}

const errorBase = 'https://pix.bcb.gov.br/api/v2/error/'
const ispb = '12345678'
const txidPattern = /^[a-zA-Z0-9]{26,35}$/
const valorPattern = /^\d{1,10}\.\d{2}$/
const alnum = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

function randomAlnum(length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += alnum[randomInt(alnum.length)]
  return out
}

/** 'E' + ISPB + yyyyMMddHHmm + 11 letters and digits: 32 characters. */
function endToEndIdAt(prefix: 'E' | 'D', date: Date): string {
  const stamp = date.toISOString().replace(/\D/g, '').slice(0, 12)
  return `${prefix}${ispb}${stamp}${randomAlnum(11)}`
}

function cents(valor: string): number {
  const [reais = '0', centavos = '00'] = valor.split('.')
  return Number(reais) * 100 + Number(centavos)
}

class ProblemResponse extends Error {
  constructor(
    readonly status: number,
    readonly problemType: string,
    readonly title: string,
    readonly detail?: string,
    readonly violacoes?: Array<{ razao: string; propriedade: string; valor?: unknown }>,
  ) {
    super(title)
  }
}

const invalid = (type: string, title: string, razao: string, propriedade: string, valor?: unknown) =>
  new ProblemResponse(400, type, title, razao, [{ razao, propriedade, ...(valor === undefined ? {} : { valor }) }])

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
}

function sendJson(response: ServerResponse, status: number, body?: unknown, contentType = 'application/json') {
  if (body === undefined) {
    response.writeHead(status)
    response.end()
    return
  }
  response.writeHead(status, { 'content-type': contentType })
  response.end(JSON.stringify(body))
}

function sendProblem(response: ServerResponse, problem: ProblemResponse) {
  sendJson(
    response,
    problem.status,
    {
      type: `${errorBase}${problem.problemType}`,
      title: problem.title,
      status: problem.status,
      ...(problem.detail ? { detail: problem.detail } : {}),
      correlationId: randomBytes(8).toString('hex'),
      ...(problem.violacoes ? { violacoes: problem.violacoes } : {}),
    },
    'application/problem+json',
  )
}

function parseJsonObject(text: string): Json {
  try {
    const value: unknown = JSON.parse(text)
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Json
  } catch {}
  throw new ProblemResponse(400, 'RequisicaoInvalida', 'Requisição inválida.', 'O corpo não é um objeto JSON.')
}

const asObject = (value: unknown): Json | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined

export async function startFakePsp(options: FakePspOptions = {}): Promise<FakePsp> {
  const now = options.now ?? (() => new Date())
  const merchantKey = options.merchantKey ?? 'cobrancas@assinaturas.example.com'
  const clientId = options.clientId ?? 'fake-client-id'
  const clientSecret = options.clientSecret ?? 'fake-client-secret'
  const beneficiaryName = options.beneficiaryName ?? 'Atendimento Multicanal'
  const beneficiaryCity = options.beneficiaryCity ?? 'Fortaleza'
  const tokenLifetime = options.tokenLifetimeSeconds ?? 3600
  const duplicateTxid = options.duplicateTxid ?? 'return'
  const retries = options.callbackRetries ?? 2
  const retryDelayMs = options.callbackRetryDelayMs ?? 50
  const style = options.style ?? 'bcb'

  const certificates = createTestCertificates()
  const tokens = new Map<string, { fingerprint: string; expiresAt: number; scopes: Set<string> }>()
  let tokenCount = 0
  const cobs = new Map<string, CobRecord>()
  const pixByE2e = new Map<string, PixRecord>()
  const webhooks = new Map<string, { webhookUrl: string; criacao: string; skipMtlsChecking?: string }>()
  const calls: FakePspCall[] = []
  const deliveries: FakePspDelivery[] = []
  const failures: Array<Required<Pick<FailNextInput, 'path' | 'times' | 'mode'>> & FailNextInput> = []
  const held: string[] = []
  const pending = new Set<Promise<unknown>>()
  let locCounter = 0
  let apiPort = 0

  const allScopes = [
    'cob.write',
    'cob.read',
    'cobv.write',
    'cobv.read',
    'pix.write',
    'pix.read',
    'webhook.write',
    'webhook.read',
    'rec.write',
    'rec.read',
    'cobr.write',
    'cobr.read',
    'payloadlocationrec.write',
    'payloadlocationrec.read',
    'webhookrec.write',
    'webhookrec.read',
    'webhookcobr.write',
    'webhookcobr.read',
  ]

  const automatico = createAutomatico({
    now,
    apiPort: () => apiPort,
    beneficiaryName,
    beneficiaryCity,
    cob: (txid) => {
      const cob = cobs.get(txid)
      return cob ? { status: cob.status, location: cob.loc.location, original: cob.original } : undefined
    },
    requireScope: (request, scope) => requireScope(request, scope),
    problem: (status, type, title, detail) => new ProblemResponse(status, type, title, detail),
    postCallback: (url, body) => postCallback(url, body, 'mtls'),
    track: (promise) => track(promise),
    retries,
    retryDelayMs,
  })

  // ---- rendering ----

  function renderPix(record: PixRecord): Json {
    return {
      endToEndId: record.endToEndId,
      ...(record.txid ? { txid: record.txid } : {}),
      valor: record.valor,
      chave: record.chave,
      horario: record.horario,
      ...(record.infoPagador ? { infoPagador: record.infoPagador } : {}),
      ...(record.devolucoes.length
        ? {
            devolucoes: record.devolucoes.map((d) => ({
              id: d.id,
              rtrId: d.rtrId,
              valor: d.valor,
              natureza: d.natureza,
              ...(d.descricao ? { descricao: d.descricao } : {}),
              horario: { solicitacao: d.solicitacao, ...(d.liquidacao ? { liquidacao: d.liquidacao } : {}) },
              status: d.status,
              ...(d.motivo ? { motivo: d.motivo } : {}),
            })),
          }
        : {}),
      // Not in the BCB schema: PSPs report the payer as an extension (Efí in `gnExtras`, others in `pagador`).
      ...(record.payer
        ? style === 'efi'
          ? { gnExtras: { pagador: { nome: record.payer.nome, cpf: record.payer.cpf, codigoBanco: '00000000' } } }
          : { pagador: { nome: record.payer.nome, cpf: record.payer.cpf } }
        : {}),
    }
  }

  function renderCob(cob: CobRecord): Json {
    const calendario: Json =
      cob.kind === 'cob'
        ? { criacao: cob.criacao.toISOString(), expiracao: cob.expiracao }
        : {
            criacao: cob.criacao.toISOString(),
            dataDeVencimento: cob.dataDeVencimento,
            validadeAposVencimento: cob.validadeAposVencimento,
          }
    const paid = cob.pix.map((e2e) => pixByE2e.get(e2e)).filter((p): p is PixRecord => p !== undefined)
    return {
      calendario,
      txid: cob.txid,
      revisao: cob.revisao,
      loc: cob.loc,
      location: cob.loc.location,
      status: cob.status,
      ...(cob.devedor ? { devedor: cob.devedor } : {}),
      ...(cob.kind === 'cobv'
        ? {
            recebedor: {
              cnpj: '12345678000195',
              nome: beneficiaryName,
              logradouro: 'Rua Exemplo, 100',
              cidade: beneficiaryCity,
              uf: 'CE',
              cep: '61880000',
            },
          }
        : {}),
      valor:
        cob.kind === 'cob'
          ? { original: cob.original, modalidadeAlteracao: cob.modalidadeAlteracao }
          : { original: cob.original },
      chave: cob.chave,
      ...(cob.solicitacaoPagador ? { solicitacaoPagador: cob.solicitacaoPagador } : {}),
      ...(cob.infoAdicionais ? { infoAdicionais: cob.infoAdicionais } : {}),
      pixCopiaECola: cob.pixCopiaECola,
      ...(paid.length ? { pix: paid.map(renderPix) } : {}),
    }
  }

  // ---- API handlers ----

  function validateDevedor(value: unknown, required: boolean, type: string): Devedor | undefined {
    if (value === undefined) {
      if (required) throw invalid(type, 'Cobrança inválida.', 'O campo devedor é obrigatório.', 'cobv.devedor')
      return undefined
    }
    const devedor = asObject(value)
    if (!devedor) throw invalid(type, 'Cobrança inválida.', 'devedor não é um objeto.', 'cob.devedor')
    const { cpf, cnpj, nome } = devedor
    if (cpf !== undefined && cnpj !== undefined)
      throw invalid(type, 'Cobrança inválida.', 'cpf e cnpj não podem estar juntos.', 'cob.devedor')
    if (cpf !== undefined && !(typeof cpf === 'string' && /^\d{11}$/.test(cpf)))
      throw invalid(type, 'Cobrança inválida.', 'cpf inválido.', 'cob.devedor.cpf', cpf)
    if (cnpj !== undefined && !(typeof cnpj === 'string' && /^[0-9A-Z]{12}\d{2}$/.test(cnpj)))
      throw invalid(type, 'Cobrança inválida.', 'cnpj inválido.', 'cob.devedor.cnpj', cnpj)
    if (nome !== undefined && !(typeof nome === 'string' && nome.length <= 200))
      throw invalid(type, 'Cobrança inválida.', 'nome inválido.', 'cob.devedor.nome')
    if ((nome === undefined) !== (cpf === undefined && cnpj === undefined))
      throw invalid(type, 'Cobrança inválida.', 'nome exige cpf ou cnpj, e vice-versa.', 'cob.devedor')
    return {
      ...(typeof cpf === 'string' ? { cpf } : {}),
      ...(typeof cnpj === 'string' ? { cnpj } : {}),
      ...(typeof nome === 'string' ? { nome } : {}),
    }
  }

  function putCharge(kind: 'cob' | 'cobv', txid: string, raw: string): { status: number; body: Json } {
    const type = kind === 'cob' ? 'CobOperacaoInvalida' : 'CobVOperacaoInvalida'
    if (!txidPattern.test(txid))
      throw invalid(type, 'Cobrança inválida.', 'O txid deve ter de 26 a 35 letras e dígitos.', `${kind}.txid`, txid)
    const body = parseJsonObject(raw)
    const valor = asObject(body.valor)
    const original = valor?.original
    if (typeof original !== 'string' || !valorPattern.test(original) || cents(original) <= 0)
      throw invalid(type, 'Cobrança inválida.', 'valor.original inválido.', `${kind}.valor.original`, original)
    if (body.chave !== merchantKey)
      throw invalid(type, 'Cobrança inválida.', 'A chave não pertence ao usuário recebedor.', `${kind}.chave`)
    const calendario = asObject(body.calendario) ?? {}
    let expiracao: number | undefined
    let dataDeVencimento: string | undefined
    let validadeAposVencimento: number | undefined
    if (kind === 'cob') {
      expiracao = calendario.expiracao === undefined ? 86_400 : Number(calendario.expiracao)
      if (!Number.isInteger(expiracao) || expiracao <= 0)
        throw invalid(type, 'Cobrança inválida.', 'expiracao inválida.', 'cob.calendario.expiracao')
    } else {
      const due = calendario.dataDeVencimento
      if (typeof due !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(due))
        throw invalid(type, 'Cobrança inválida.', 'dataDeVencimento inválida.', 'cobv.calendario.dataDeVencimento')
      if (due < now().toISOString().slice(0, 10))
        throw invalid(type, 'Cobrança inválida.', 'dataDeVencimento no passado.', 'cobv.calendario.dataDeVencimento')
      dataDeVencimento = due
      validadeAposVencimento =
        calendario.validadeAposVencimento === undefined ? 30 : Number(calendario.validadeAposVencimento)
    }
    const devedor = validateDevedor(body.devedor, kind === 'cobv', type)
    const solicitacaoPagador = typeof body.solicitacaoPagador === 'string' ? body.solicitacaoPagador : undefined
    if (solicitacaoPagador && solicitacaoPagador.length > 140)
      throw invalid(type, 'Cobrança inválida.', 'solicitacaoPagador maior que 140.', `${kind}.solicitacaoPagador`)

    const existing = cobs.get(txid)
    if (existing) {
      if (existing.kind !== kind || existing.status !== 'ATIVA' || duplicateTxid === 'reject')
        throw invalid(type, 'Cobrança inválida.', 'O txid informado já foi utilizado.', `${kind}.txid`, txid)
      if (existing.requestBody === raw) return { status: 200, body: renderCob(existing) }
      // PUT on an ATIVA charge is "criação e atualização": a changed body is a new revision.
      Object.assign(existing, {
        revisao: existing.revisao + 1,
        original,
        expiracao,
        dataDeVencimento,
        validadeAposVencimento,
        devedor,
        solicitacaoPagador,
        requestBody: raw,
        pixCopiaECola: brCode(existing.loc.location, original),
      })
      return { status: 200, body: renderCob(existing) }
    }
    locCounter += 1
    const criacao = now()
    const location = `127.0.0.1:${apiPort}/qr/v2/${kind === 'cobv' ? 'cobv/' : ''}${randomBytes(16).toString('hex')}`
    const cob: CobRecord = {
      kind,
      txid,
      revisao: 0,
      criacao,
      ...(expiracao === undefined ? {} : { expiracao }),
      ...(dataDeVencimento === undefined ? {} : { dataDeVencimento, validadeAposVencimento }),
      status: 'ATIVA',
      ...(devedor ? { devedor } : {}),
      original,
      modalidadeAlteracao: Number(valor?.modalidadeAlteracao ?? 0),
      chave: merchantKey,
      ...(solicitacaoPagador ? { solicitacaoPagador } : {}),
      ...(body.infoAdicionais ? { infoAdicionais: body.infoAdicionais } : {}),
      loc: { id: locCounter, location, tipoCob: kind, criacao: criacao.toISOString() },
      pixCopiaECola: brCode(location, original),
      pix: [],
      requestBody: raw,
    }
    cobs.set(txid, cob)
    return { status: 201, body: renderCob(cob) }
  }

  function brCode(location: string, original: string): string {
    return buildDynamicPixBrCode({ location, beneficiaryName, beneficiaryCity, amountCents: cents(original) })
  }

  function getCharge(kind: 'cob' | 'cobv', txid: string): Json {
    const cob = cobs.get(txid)
    if (!cob || cob.kind !== kind)
      throw new ProblemResponse(404, 'NaoEncontrado', 'Cobrança não encontrada.', `Nenhuma ${kind} com o txid ${txid}.`)
    return renderCob(cob)
  }

  function listPix(query: URLSearchParams): Json {
    const inicio = Date.parse(query.get('inicio') ?? '')
    const fim = Date.parse(query.get('fim') ?? '')
    if (Number.isNaN(inicio))
      throw invalid('RequisicaoInvalida', 'Requisição inválida.', 'inicio é obrigatório (RFC 3339).', 'inicio')
    if (Number.isNaN(fim))
      throw invalid('RequisicaoInvalida', 'Requisição inválida.', 'fim é obrigatório (RFC 3339).', 'fim')
    const page = Number(query.get('paginacao.paginaAtual') ?? 0)
    const perPage = Number(query.get('paginacao.itensPorPagina') ?? 100)
    if (!Number.isInteger(page) || page < 0)
      throw invalid('RequisicaoInvalida', 'Requisição inválida.', 'paginaAtual inválida.', 'paginacao.paginaAtual')
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 1000)
      throw invalid(
        'RequisicaoInvalida',
        'Requisição inválida.',
        'itensPorPagina inválido.',
        'paginacao.itensPorPagina',
      )
    const txid = query.get('txid')
    const txIdPresente = query.get('txIdPresente')
    const devolucaoPresente = query.get('devolucaoPresente')
    const matching = [...pixByE2e.values()]
      .filter((p) => {
        const at = Date.parse(p.horario)
        if (at < inicio || at > fim) return false
        if (txid !== null && p.txid !== txid) return false
        if (txIdPresente !== null && (p.txid !== undefined) !== (txIdPresente === 'true')) return false
        if (devolucaoPresente !== null && p.devolucoes.length > 0 !== (devolucaoPresente === 'true')) return false
        return true
      })
      .sort((a, b) => a.horario.localeCompare(b.horario) || a.endToEndId.localeCompare(b.endToEndId))
    const pages = Math.ceil(matching.length / perPage)
    return {
      parametros: {
        inicio: new Date(inicio).toISOString(),
        fim: new Date(fim).toISOString(),
        paginacao: {
          paginaAtual: page,
          itensPorPagina: perPage,
          quantidadeDePaginas: pages,
          quantidadeTotalDeItens: matching.length,
        },
      },
      pix: matching.slice(page * perPage, (page + 1) * perPage).map(renderPix),
    }
  }

  function findPix(e2eid: string): PixRecord {
    const pix = pixByE2e.get(e2eid)
    if (!pix) throw new ProblemResponse(404, 'NaoEncontrado', 'Pix não encontrado.', `Nenhum Pix ${e2eid}.`)
    return pix
  }

  function renderDevolucao(d: DevolucaoRecord): Json {
    const pix = { devolucoes: [d], endToEndId: '', valor: '0.00', chave: '', horario: '' }
    return (renderPix(pix).devolucoes as Json[])[0] ?? {}
  }

  function putDevolucao(e2eid: string, id: string, raw: string): Json {
    const type = 'PixDevolucaoInvalida'
    if (!/^[a-zA-Z0-9]{1,35}$/.test(id))
      throw invalid(type, 'Devolução inválida.', 'O id deve ter de 1 a 35 letras e dígitos.', 'id', id)
    const pix = findPix(e2eid)
    const body = parseJsonObject(raw)
    if (pix.devolucoes.some((d) => d.id === id))
      throw invalid(type, 'Devolução inválida.', 'Já existe uma devolução com este id.', 'id', id)
    const valor = body.valor
    if (typeof valor !== 'string' || !valorPattern.test(valor) || cents(valor) <= 0)
      throw invalid(type, 'Devolução inválida.', 'valor inválido.', 'valor', valor)
    const natureza = body.natureza ?? 'ORIGINAL'
    if (natureza !== 'ORIGINAL')
      throw invalid(type, 'Devolução inválida.', 'Este Pix não tem valor de retirada.', 'natureza', natureza)
    const refunded = pix.devolucoes
      .filter((d) => d.status !== 'NAO_REALIZADO')
      .reduce((sum, d) => sum + cents(d.valor), 0)
    if (refunded + cents(valor) > cents(pix.valor))
      throw invalid(type, 'Devolução inválida.', 'A soma das devoluções excede o valor do Pix.', 'valor', valor)
    const at = now()
    if (at.getTime() - Date.parse(pix.horario) > 90 * 86_400_000)
      throw invalid(type, 'Devolução inválida.', 'O prazo de 90 dias para devolução terminou.', 'endToEndId')
    const descricao = typeof body.descricao === 'string' ? body.descricao.slice(0, 140) : undefined
    const record: DevolucaoRecord = {
      id,
      rtrId: endToEndIdAt('D', at),
      valor,
      natureza: 'ORIGINAL',
      ...(descricao ? { descricao } : {}),
      solicitacao: at.toISOString(),
      status: 'EM_PROCESSAMENTO',
    }
    pix.devolucoes.push(record)
    return renderDevolucao(record)
  }

  function putWebhook(chave: string, raw: string, request: IncomingMessage): void {
    const type = 'WebhookOperacaoInvalida'
    if (chave !== merchantKey)
      throw invalid(type, 'Webhook inválido.', 'A chave não pertence ao usuário recebedor.', 'chave', chave)
    const body = parseJsonObject(raw)
    const url = body.webhookUrl
    let parsed: URL | undefined
    try {
      parsed = typeof url === 'string' ? new URL(url) : undefined
    } catch {}
    if (!parsed || !/^https?:$/.test(parsed.protocol) || typeof url !== 'string')
      throw invalid(type, 'Webhook inválido.', 'webhookUrl não é uma URL válida.', 'webhookUrl', url)
    const skip = request.headers['x-skip-mtls-checking']
    webhooks.set(chave, {
      webhookUrl: url,
      criacao: now().toISOString(),
      ...(typeof skip === 'string' ? { skipMtlsChecking: skip } : {}),
    })
  }

  function getWebhook(chave: string): Json {
    const hook = webhooks.get(chave)
    if (!hook)
      throw new ProblemResponse(404, 'NaoEncontrado', 'Webhook não encontrado.', `Nenhum webhook para ${chave}.`)
    return { webhookUrl: hook.webhookUrl, chave, criacao: hook.criacao }
  }

  // ---- auth ----

  function peerFingerprint(request: IncomingMessage): string {
    return (request.socket as TLSSocket).getPeerCertificate().fingerprint256 ?? ''
  }

  function issueToken(request: IncomingMessage, raw: string): { status: number; body: Json } {
    const contentType = String(request.headers['content-type'] ?? '')
    let form: Record<string, string> = {}
    if (contentType.includes('application/json')) {
      try {
        const json = asObject(JSON.parse(raw)) ?? {}
        form = Object.fromEntries(Object.entries(json).map(([k, v]) => [k, String(v)]))
      } catch {}
    } else form = Object.fromEntries(new URLSearchParams(raw))
    let id = form.client_id
    let secret = form.client_secret
    const auth = request.headers.authorization
    if (auth?.startsWith('Basic ')) {
      const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8')
      const colon = decoded.indexOf(':')
      id = decoded.slice(0, colon)
      secret = decoded.slice(colon + 1)
    }
    if (form.grant_type !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type' } }
    if (id !== clientId || secret !== clientSecret) return { status: 401, body: { error: 'invalid_client' } }
    const asked = form.scope ? form.scope.split(/\s+/).filter(Boolean) : allScopes
    const unknown = asked.find((s) => !allScopes.includes(s))
    if (unknown) return { status: 400, body: { error: 'invalid_scope', error_description: unknown } }
    const value = randomBytes(24).toString('base64url')
    tokens.set(value, {
      fingerprint: peerFingerprint(request),
      expiresAt: now().getTime() + tokenLifetime * 1000,
      scopes: new Set(asked),
    })
    tokenCount += 1
    return {
      status: 200,
      body: { access_token: value, token_type: 'Bearer', expires_in: tokenLifetime, scope: asked.join(' ') },
    }
  }

  function requireScope(request: IncomingMessage, scope: string) {
    const auth = request.headers.authorization ?? ''
    const token = auth.startsWith('Bearer ') ? tokens.get(auth.slice(7)) : undefined
    // RFC 8705: the token only works on a connection presenting the certificate it was issued to.
    if (!token || token.expiresAt <= now().getTime() || token.fingerprint !== peerFingerprint(request))
      throw new ProblemResponse(
        401,
        'AcessoNegado',
        'Não autorizado.',
        'Token ausente, expirado ou de outro certificado.',
      )
    if (!token.scopes.has(scope))
      throw new ProblemResponse(403, 'AcessoNegado', 'Acesso negado.', `O escopo ${scope} não foi concedido.`)
  }

  async function handleApi(request: IncomingMessage, response: ServerResponse) {
    const method = request.method ?? 'GET'
    const raw = await readBody(request)
    const url = new URL(request.url ?? '/', 'https://127.0.0.1')
    const full = `${url.pathname}${url.search}`
    const contentType = request.headers['content-type']
    const record = (status: number) =>
      calls.push({ method, path: full, status, at: now().toISOString(), ...(contentType ? { contentType } : {}) })

    const failure = failures.find((f) => (!f.method || f.method === method) && new RegExp(f.path).test(full))
    let loseAnswer = false
    let slow = false
    if (failure) {
      failure.times -= 1
      if (failure.times <= 0) failures.splice(failures.indexOf(failure), 1)
      loseAnswer = failure.mode === 'lose-answer'
      slow = failure.mode === 'slow'
      if (slow) await new Promise((resolve) => setTimeout(resolve, failure.delayMs ?? 3000))
    }
    if (failure && !loseAnswer && !slow) {
      if (failure.mode === 'hang') return record(0)
      if (failure.mode === 'reset') {
        record(0)
        request.socket.destroy()
        return
      }
      const status = failure.status ?? 503
      record(status)
      if (failure.body) return sendJson(response, status, failure.body)
      return sendProblem(
        response,
        new ProblemResponse(status, failure.problemType ?? 'ServicoIndisponivel', 'Falha simulada.'),
      )
    }

    if (loseAnswer) {
      const destroy = () => request.socket.destroy()
      response.writeHead = (() => response) as unknown as typeof response.writeHead
      response.end = (() => {
        destroy()
        return response
      }) as unknown as typeof response.end
    }
    try {
      if (method === 'POST' && url.pathname === '/oauth/token') {
        const result = issueToken(request, raw)
        record(result.status)
        return sendJson(response, result.status, result.body)
      }
      const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent)
      if (parts[0] !== 'v2') throw new ProblemResponse(404, 'NaoEncontrado', 'Recurso não encontrado.')
      const [, resource, id, sub, subId] = parts
      let status = 200
      let body: Json | undefined
      if ((resource === 'cob' || resource === 'cobv') && id && parts.length === 3) {
        if (method === 'PUT') {
          requireScope(request, `${resource}.write`)
          ;({ status, body } = putCharge(resource, id, raw))
        } else if (method === 'GET') {
          requireScope(request, `${resource}.read`)
          body = getCharge(resource, id)
        } else throw new ProblemResponse(405, 'RequisicaoInvalida', 'Método não permitido.')
      } else if (resource === 'pix' && parts.length === 2 && method === 'GET') {
        requireScope(request, 'pix.read')
        body = listPix(url.searchParams)
      } else if (resource === 'pix' && id && parts.length === 3 && method === 'GET') {
        requireScope(request, 'pix.read')
        body = renderPix(findPix(id))
      } else if (resource === 'pix' && id && sub === 'devolucao' && subId && parts.length === 5) {
        if (method === 'PUT') {
          requireScope(request, 'pix.write')
          body = putDevolucao(id, subId, raw)
          status = 201
        } else if (method === 'GET') {
          requireScope(request, 'pix.read')
          const found = findPix(id).devolucoes.find((d) => d.id === subId)
          if (!found) throw new ProblemResponse(404, 'NaoEncontrado', 'Devolução não encontrada.')
          body = renderDevolucao(found)
        } else throw new ProblemResponse(405, 'RequisicaoInvalida', 'Método não permitido.')
      } else if (resource === 'webhook' && id && parts.length === 3) {
        if (method === 'PUT') {
          requireScope(request, 'webhook.write')
          putWebhook(id, raw, request)
        } else if (method === 'GET') {
          requireScope(request, 'webhook.read')
          body = getWebhook(id)
        } else if (method === 'DELETE') {
          requireScope(request, 'webhook.write')
          getWebhook(id)
          webhooks.delete(id)
          status = 204
        } else throw new ProblemResponse(405, 'RequisicaoInvalida', 'Método não permitido.')
      } else {
        const handled = automatico.handle(request, method, parts, url.searchParams, raw)
        if (!handled) throw new ProblemResponse(404, 'NaoEncontrado', 'Recurso não encontrado.')
        ;({ status, body } = handled)
      }
      record(status)
      return sendJson(response, status, body)
    } catch (error) {
      if (!(error instanceof ProblemResponse)) throw error
      record(error.status)
      return sendProblem(response, error)
    }
  }

  // ---- callbacks ----

  function postCallback(url: string, body: string, transport: CallbackTransport): Promise<number> {
    return new Promise((resolve, reject) => {
      const target = new URL(url)
      const tls =
        transport === 'mtls'
          ? { cert: certificates.pspClient.cert, key: certificates.pspClient.key }
          : transport === 'foreign-cert'
            ? { cert: certificates.foreignClient.cert, key: certificates.foreignClient.key }
            : {}
      const options = {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: 5000,
      }
      const request =
        target.protocol === 'https:'
          ? httpsRequest(target, { ...options, ...tls, ca: certificates.ca })
          : httpRequest(target, options)
      request.on('response', (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
      })
      request.on('timeout', () => request.destroy(new Error('timeout')))
      request.on('error', reject)
      request.end(body)
    })
  }

  async function deliver(
    items: Json[],
    chave: string,
    transport: CallbackTransport,
    forged: boolean,
  ): Promise<FakePspDelivery> {
    const hook = webhooks.get(chave)
    const body = { pix: items }
    const delivery: FakePspDelivery = {
      url: hook ? `${hook.webhookUrl}/pix` : '',
      body,
      transport,
      forged,
      status: null,
      attempts: 0,
      outcome: 'no-webhook',
    }
    deliveries.push(delivery)
    if (!hook) return delivery
    const text = JSON.stringify(body)
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, retryDelayMs))
      delivery.attempts += 1
      try {
        delivery.status = await postCallback(delivery.url, text, transport)
        delete delivery.error
      } catch (error) {
        delivery.status = null
        delivery.error = error instanceof Error ? error.message : String(error)
      }
      if (delivery.status !== null && delivery.status >= 200 && delivery.status < 300) {
        delivery.outcome = 'delivered'
        return delivery
      }
    }
    delivery.outcome = 'failed'
    return delivery
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    pending.add(promise)
    void promise.finally(() => pending.delete(promise)).catch(() => {})
    return promise
  }

  function notify(records: PixRecord[], mode: CallbackMode, delayMs = 0): Promise<FakePspDelivery | null> {
    if (records.length === 0) return Promise.resolve(null)
    if (mode === 'hold') {
      held.push(...records.map((r) => r.endToEndId))
      return Promise.resolve(null)
    }
    const chave = records[0]?.chave ?? merchantKey
    if (mode === 'drop') {
      const dropped: FakePspDelivery = {
        url: webhooks.get(chave)?.webhookUrl ?? '',
        body: { pix: records.map(renderPix) },
        transport: 'mtls',
        forged: false,
        status: null,
        attempts: 0,
        outcome: 'dropped',
      }
      deliveries.push(dropped)
      return Promise.resolve(dropped)
    }
    const run = async () => {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
      return deliver(records.map(renderPix), chave, 'mtls', false)
    }
    return track(run())
  }

  // ---- controls ----

  const controls: FakePspControls = {
    async pay(input) {
      const cob = cobs.get(input.txid)
      const at = now()
      if (cob && !input.force) {
        if (cob.status !== 'ATIVA') throw new Error(`fake PSP: the charge ${input.txid} is ${cob.status}`)
        const expired =
          cob.kind === 'cob'
            ? at.getTime() > cob.criacao.getTime() + (cob.expiracao ?? 86_400) * 1000
            : at.toISOString().slice(0, 10) > addDays(cob.dataDeVencimento ?? '', cob.validadeAposVencimento ?? 30)
        if (expired) throw new Error(`fake PSP: the charge ${input.txid} is expired`)
      }
      if (!cob && input.valorCents === undefined)
        throw new Error(`fake PSP: no charge ${input.txid}; give valorCents to pay a static code`)
      const valor = input.valorCents === undefined ? (cob?.original ?? '0.00') : centsToDecimalString(input.valorCents)
      const record: PixRecord = {
        endToEndId: endToEndIdAt('E', at),
        txid: input.txid,
        valor,
        chave: cob?.chave ?? merchantKey,
        horario: at.toISOString(),
        ...(input.infoPagador ? { infoPagador: input.infoPagador } : {}),
        ...(input.payerName ? { payer: { nome: input.payerName, cpf: input.payerCpf ?? '12345678909' } } : {}),
        devolucoes: [],
      }
      pixByE2e.set(record.endToEndId, record)
      if (cob) {
        cob.pix.push(record.endToEndId)
        cob.status = 'CONCLUIDA'
      }
      const delivery = notify([record], input.callback ?? 'deliver', input.delayMs)
      if (!input.delayMs) await delivery
      if (cob) await automatico.onCobPaid(cob.txid)
      return renderPix(record)
    },

    async deliverHeld() {
      const records = held.splice(0).map((e2e) => pixByE2e.get(e2e))
      return notify(
        records.filter((r): r is PixRecord => r !== undefined),
        'deliver',
      )
    },

    async resend(input) {
      const records = input.endToEndIds.map((e2e) => {
        const found = pixByE2e.get(e2e)
        if (!found) throw new Error(`fake PSP: no PIX ${e2e}`)
        return found
      })
      if (records.length === 0) return null
      return track(deliver(records.map(renderPix), records[0]?.chave ?? merchantKey, input.transport ?? 'mtls', false))
    },

    async forge(input) {
      const at = now()
      const items = input.items.map((item) => ({
        endToEndId: item.endToEndId ?? endToEndIdAt('E', at),
        txid: item.txid,
        valor: centsToDecimalString(item.valorCents),
        chave: input.chave ?? merchantKey,
        horario: at.toISOString(),
      }))
      return track(deliver(items, merchantKey, input.transport ?? 'no-cert', true))
    },

    expire(input) {
      const cob = cobs.get(input.txid)
      if (!cob) throw new Error(`fake PSP: no charge ${input.txid}`)
      if (cob.kind === 'cob') cob.criacao = new Date(now().getTime() - ((cob.expiracao ?? 86_400) + 1) * 1000)
      else {
        cob.dataDeVencimento = addDays(now().toISOString().slice(0, 10), -((cob.validadeAposVencimento ?? 30) + 1))
      }
    },

    remove(input) {
      const cob = cobs.get(input.txid)
      if (!cob) throw new Error(`fake PSP: no charge ${input.txid}`)
      cob.status = 'REMOVIDA_PELO_PSP'
    },

    async finishRefund(input) {
      const pix = pixByE2e.get(input.endToEndId)
      const refund = pix?.devolucoes.find((d) => d.id === input.id)
      if (!pix || !refund) throw new Error(`fake PSP: no refund ${input.id} of ${input.endToEndId}`)
      refund.status = input.outcome
      if (input.outcome === 'DEVOLVIDO') refund.liquidacao = now().toISOString()
      else refund.motivo = input.motivo ?? 'Saldo insuficiente.'
      // Refunds reaching a final state are notified too (API Pix 2.3.0).
      await notify([pix], 'deliver')
      return renderDevolucao(refund)
    },

    revokeTokens() {
      tokens.clear()
    },

    failNext(input) {
      failures.push({ ...input, times: input.times ?? 1, mode: input.mode ?? 'problem' })
    },

    clearFailures() {
      failures.length = 0
    },
  }

  // ---- servers ----

  const api = createHttpsServer(
    {
      key: certificates.server.key,
      cert: certificates.server.cert,
      ca: certificates.ca,
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
    },
    (request, response) => {
      handleApi(request, response).catch((error: unknown) => {
        sendJson(response, 500, { title: 'Erro interno', detail: String(error) }, 'application/problem+json')
      })
    },
  )

  const control = createHttpServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1')
      const name = url.pathname.replace(/^\/controls\//, '')
      try {
        if (request.method === 'GET' && url.pathname === '/calls') return sendJson(response, 200, calls)
        if (request.method === 'GET' && url.pathname === '/deliveries') return sendJson(response, 200, deliveries)
        if (request.method === 'GET' && url.pathname.startsWith('/charges/')) {
          const found = cobs.get(decodeURIComponent(url.pathname.slice('/charges/'.length)))
          return found ? sendJson(response, 200, renderCob(found)) : sendJson(response, 404, { error: 'not found' })
        }
        const pa = automatico.controls as Record<string, (input: unknown) => unknown>
        if (request.method !== 'POST' || !(name in controls || name in pa))
          return sendJson(response, 404, { error: 'unknown control' })
        const raw = await readBody(request)
        const input: unknown = raw ? JSON.parse(raw) : {}
        const fn = (pa[name] ?? controls[name as keyof FakePspControls]) as (input: unknown) => unknown
        const result = await fn(input)
        return sendJson(response, 200, result ?? null)
      } catch (error) {
        return sendJson(response, 400, { error: error instanceof Error ? error.message : String(error) })
      }
    })()
  })

  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve))
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve))
  apiPort = (api.address() as AddressInfo).port
  const controlPort = (control.address() as AddressInfo).port
  const apiUrl = `https://127.0.0.1:${apiPort}/v2`
  const oauthUrl = `https://127.0.0.1:${apiPort}/oauth/token`

  return {
    apiUrl,
    oauthUrl,
    controlUrl: `http://127.0.0.1:${controlPort}`,
    merchantKey,
    clientId,
    clientSecret,
    certificates,
    clientCertPaths: {
      cert: certificates.appClient.certPath,
      key: certificates.appClient.keyPath,
      ca: certificates.caPath,
    },
    env: () => ({
      PIX_PROVIDER: 'api-pix',
      PIX_API_URL: apiUrl,
      PIX_OAUTH_URL: oauthUrl,
      PIX_CLIENT_ID: clientId,
      PIX_CLIENT_SECRET: clientSecret,
      PIX_CERT: certificates.appClient.certPath,
      PIX_KEY: certificates.appClient.keyPath,
      PIX_CA: certificates.caPath,
      PIX_PSP_STYLE: style,
    }),
    calls,
    deliveries,
    tokensIssued: () => tokenCount,
    webhook: (chave) => webhooks.get(chave),
    charge: (txid) => {
      const found = cobs.get(txid)
      return found ? renderCob(found) : undefined
    },
    controls,
    automatico,
    idle: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending])
    },
    stop: async () => {
      await Promise.allSettled([...pending])
      api.closeAllConnections()
      control.closeAllConnections()
      await Promise.all([
        new Promise<void>((resolve) => api.close(() => resolve())),
        new Promise<void>((resolve) => control.close(() => resolve())),
      ])
      certificates.remove()
    },
  }
}

function addDays(isoDate: string, days: number): string {
  const date = new Date(`${isoDate}T00:00:00Z`)
  date.setUTCDate(date.getUTCDate() + days)
  return date.toISOString().slice(0, 10)
}
