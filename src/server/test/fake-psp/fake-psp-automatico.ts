// PIX Automático in the fake PSP (tests only): locrec, rec (Journey 3 with the composite code), cobr with its
// attempts and retries, the rec/cobr webhooks, and test controls (approve or refuse an authorisation, settle or
// reject an attempt, the payer revokes or cancels a scheduled payment). Plugged into fake-psp.ts, which owns the
// transport (mTLS, tokens, scopes, problems) and hands the PIX Automático paths here.
import { randomBytes, randomInt } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { buildDynamicPixBrCode, crc16ccitt } from '../../../domain/pix'

type Json = Record<string, unknown>

export type AutomaticoHost = {
  now: () => Date
  apiPort: () => number
  beneficiaryName: string
  beneficiaryCity: string
  /** The immediate charge of a txid (Journey 3), as the core keeps it. */
  cob(txid: string): { status: string; location: string; original: string } | undefined
  requireScope(request: IncomingMessage, scope: string): void
  /** An error the core answers as RFC 7807 with the specification's type. */
  problem(status: number, type: string, title: string, detail?: string): Error
  postCallback(url: string, body: string): Promise<number>
  track<T>(promise: Promise<T>): Promise<T>
  retries: number
  retryDelayMs: number
}

export type PaDelivery = {
  url: string
  kind: 'rec' | 'cobr'
  body: Json
  status: number | null
  attempts: number
  outcome: 'delivered' | 'failed' | 'dropped' | 'no-webhook'
}

type Atualizacao = { status: string; data: string }

type RecRecord = {
  idRec: string
  status: string
  contrato: string
  devedor: Json
  objeto?: string
  dataInicial: string
  dataFinal?: string
  periodicidade: string
  valorRec?: string
  valorMinimoRecebedor?: string
  politicaRetentativa: 'NAO_PERMITE' | 'PERMITE_3R_7D'
  loc?: { id: number; location: string; criacao: string; idRec: string }
  jornadaTxid?: string
  tipoJornada: string
  atualizacao: Atualizacao[]
  encerramento?: Json
  pagador?: Json
  criacao: Date
}

type Tentativa = {
  dataLiquidacao: string
  tipo: 'AGND' | 'NTAG'
  endToEndId: string
  status: string
  atualizacao: Atualizacao[]
  rejeicao?: { codigo: string; descricao: string }
}

type CobrRecord = {
  txid: string
  idRec: string
  dataDeVencimento: string
  criacao: Date
  original: string
  status: string
  politicaRetentativa: string
  infoAdicional?: string
  recebedor: Json
  atualizacao: Atualizacao[]
  tentativas: Tentativa[]
  encerramento?: Json
  pix: Json[]
  requestBody: string
}

export type CallbackChoice = 'deliver' | 'drop'

/** Codes that reject the whole charge, not only the attempt (spec L7118). */
const wholeCobrCodes = new Set(['AC05', 'AM09', 'DENC', 'DS27', 'DTED', 'MIDI', 'MSUC', 'NITX', 'RC09'])
const ispb = '12345678'
const alnum = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const txidPattern = /^[a-zA-Z0-9]{26,35}$/
const valorPattern = /^\d{1,10}\.\d{2}$/

function randomAlnum(length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += alnum[randomInt(alnum.length)]
  return out
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10)
}

function daysFrom(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000)
}

function tlv(id: string, value: string): string {
  return `${id}${String(value.length).padStart(2, '0')}${value}`
}

export function createAutomatico(host: AutomaticoHost) {
  const recs = new Map<string, RecRecord>()
  const cobrs = new Map<string, CobrRecord>()
  const locrecs = new Map<number, { id: number; location: string; criacao: string; idRec?: string }>()
  const hooks: { rec?: string; cobr?: string } = {}
  const deliveries: PaDelivery[] = []
  let locCounter = 0

  const bad = (type: string, detail: string) => host.problem(400, type, 'Requisição inválida.', detail)
  const notFound = (what: string) => host.problem(404, 'NaoEncontrado', `${what} não encontrada.`)

  function touch(list: Atualizacao[], status: string) {
    list.push({ status, data: host.now().toISOString() })
  }

  function parseBody(raw: string): Json {
    try {
      const value: unknown = JSON.parse(raw)
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Json
    } catch {}
    throw bad('RequisicaoInvalida', 'O corpo não é um objeto JSON.')
  }

  // ---- rendering ----

  function compositeCode(rec: RecRecord): string | undefined {
    if (!rec.loc) return undefined
    const recTemplate = tlv('80', tlv('00', 'br.gov.bcb.pix') + tlv('25', rec.loc.location))
    if (rec.jornadaTxid) {
      const cob = host.cob(rec.jornadaTxid)
      if (!cob) return undefined
      const cobCode = buildDynamicPixBrCode({
        location: cob.location,
        beneficiaryName: host.beneficiaryName,
        beneficiaryCity: host.beneficiaryCity,
        amountCents: Math.round(Number(cob.original) * 100),
      })
      // 000201 010212 26LL… : the recurrence's template 80 goes right after the charge's template 26.
      const end = 16 + Number(cobCode.slice(14, 16))
      const body = `${cobCode.slice(0, end)}${recTemplate}${cobCode.slice(end, -8)}6304`
      return body + crc16ccitt(body)
    }
    const body = [
      tlv('00', '01'),
      tlv('26', tlv('00', 'br.gov.bcb.pix')),
      recTemplate,
      tlv('52', '0000'),
      tlv('53', '986'),
      tlv('58', 'BR'),
      tlv('59', host.beneficiaryName.slice(0, 25)),
      tlv('60', host.beneficiaryCity.slice(0, 15)),
      tlv('62', tlv('05', '***')),
      '6304',
    ].join('')
    return body + crc16ccitt(body)
  }

  function renderRec(rec: RecRecord, withQr = false): Json {
    const qr = withQr ? compositeCode(rec) : undefined
    return {
      idRec: rec.idRec,
      vinculo: { contrato: rec.contrato, devedor: rec.devedor, ...(rec.objeto ? { objeto: rec.objeto } : {}) },
      calendario: {
        dataInicial: rec.dataInicial,
        ...(rec.dataFinal ? { dataFinal: rec.dataFinal } : {}),
        periodicidade: rec.periodicidade,
      },
      valor: rec.valorRec ? { valorRec: rec.valorRec } : { valorMinimoRecebedor: rec.valorMinimoRecebedor },
      recebedor: { cnpj: '12345678000195', nome: host.beneficiaryName },
      politicaRetentativa: rec.politicaRetentativa,
      ...(rec.loc ? { loc: rec.loc } : {}),
      status: rec.status,
      atualizacao: rec.atualizacao,
      ativacao: {
        tipoJornada: rec.tipoJornada,
        ...(rec.jornadaTxid && rec.status === 'CRIADA' ? { dadosJornada: { txid: rec.jornadaTxid } } : {}),
      },
      ...(rec.pagador ? { pagador: rec.pagador } : {}),
      ...(rec.encerramento ? { encerramento: rec.encerramento } : {}),
      ...(qr ? { dadosQR: { jornada: rec.jornadaTxid ? 'JORNADA_3' : 'JORNADA_2', pixCopiaECola: qr } } : {}),
    }
  }

  function renderCobr(cobr: CobrRecord): Json {
    return {
      idRec: cobr.idRec,
      txid: cobr.txid,
      calendario: { criacao: day(cobr.criacao), dataDeVencimento: cobr.dataDeVencimento },
      valor: { original: cobr.original },
      status: cobr.status,
      politicaRetentativa: cobr.politicaRetentativa,
      ajusteDiaUtil: true,
      recebedor: cobr.recebedor,
      ...(cobr.infoAdicional ? { infoAdicional: cobr.infoAdicional } : {}),
      atualizacao: cobr.atualizacao,
      tentativas: cobr.tentativas,
      ...(cobr.encerramento ? { encerramento: cobr.encerramento } : {}),
      ...(cobr.pix.length ? { pix: cobr.pix } : {}),
    }
  }

  // ---- callbacks ----

  async function deliver(kind: 'rec' | 'cobr', items: Json[], choice: CallbackChoice): Promise<PaDelivery> {
    const base = hooks[kind]
    const body = kind === 'rec' ? { recs: items } : { cobsr: items }
    const delivery: PaDelivery = {
      url: base ? `${base}/${kind}` : '',
      kind,
      body,
      status: null,
      attempts: 0,
      outcome: base ? (choice === 'drop' ? 'dropped' : 'failed') : 'no-webhook',
    }
    deliveries.push(delivery)
    if (!base || choice === 'drop') return delivery
    const text = JSON.stringify(body)
    for (let attempt = 0; attempt <= host.retries; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, host.retryDelayMs))
      delivery.attempts += 1
      try {
        delivery.status = await host.postCallback(delivery.url, text)
      } catch {
        delivery.status = null
      }
      if (delivery.status !== null && delivery.status >= 200 && delivery.status < 300) {
        delivery.outcome = 'delivered'
        return delivery
      }
    }
    return delivery
  }

  const notifyRec = (rec: RecRecord, choice: CallbackChoice = 'deliver') =>
    host.track(
      deliver(
        'rec',
        [
          {
            idRec: rec.idRec,
            status: rec.status,
            atualizacao: rec.atualizacao,
            ...(rec.encerramento ? { encerramento: rec.encerramento } : {}),
          },
        ],
        choice,
      ),
    )
  const notifyCobr = (cobr: CobrRecord, choice: CallbackChoice = 'deliver') =>
    host.track(
      deliver(
        'cobr',
        [
          {
            idRec: cobr.idRec,
            txid: cobr.txid,
            status: cobr.status,
            atualizacao: cobr.atualizacao,
            tentativas: cobr.tentativas,
          },
        ],
        choice,
      ),
    )

  // ---- API ----

  function postLocrec(): Json {
    locCounter += 1
    const loc = {
      id: locCounter,
      location: `127.0.0.1:${host.apiPort()}/qr/v2/rec/${randomBytes(12).toString('hex')}`,
      criacao: host.now().toISOString(),
    }
    locrecs.set(loc.id, loc)
    return loc
  }

  function postRec(raw: string): Json {
    const type = 'RecOperacaoInvalida'
    const body = parseBody(raw)
    const vinculo = (body.vinculo ?? {}) as Json
    const devedor = (vinculo.devedor ?? {}) as Json
    const calendario = (body.calendario ?? {}) as Json
    const valor = (body.valor ?? {}) as Json
    if (typeof vinculo.contrato !== 'string' || !vinculo.contrato || vinculo.contrato.length > 35)
      throw bad(type, 'vinculo.contrato é obrigatório (até 35 caracteres).')
    const cpf = devedor.cpf
    const cnpj = devedor.cnpj
    if ((cpf === undefined) === (cnpj === undefined)) throw bad(type, 'vinculo.devedor exige cpf ou cnpj.')
    if (cpf !== undefined && !(typeof cpf === 'string' && /^\d{11}$/.test(cpf))) throw bad(type, 'cpf inválido.')
    if (cnpj !== undefined && !(typeof cnpj === 'string' && /^[0-9A-Z]{12}\d{2}$/.test(cnpj)))
      throw bad(type, 'cnpj inválido.')
    if (typeof devedor.nome !== 'string' || !devedor.nome || devedor.nome.length > 140)
      throw bad(type, 'vinculo.devedor.nome é obrigatório.')
    if (vinculo.objeto !== undefined && !(typeof vinculo.objeto === 'string' && vinculo.objeto.length <= 35))
      throw bad(type, 'vinculo.objeto tem até 35 caracteres.')
    const dataInicial = calendario.dataInicial
    if (typeof dataInicial !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(dataInicial))
      throw bad(type, 'calendario.dataInicial é obrigatória.')
    if (dataInicial < day(host.now())) throw bad(type, 'calendario.dataInicial anterior à criação.')
    const periodicidade = calendario.periodicidade
    if (!['SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL'].includes(String(periodicidade)))
      throw bad(type, 'calendario.periodicidade inválida.')
    if ((valor.valorRec === undefined) === (valor.valorMinimoRecebedor === undefined))
      throw bad(type, 'Informe valorRec ou valorMinimoRecebedor, nunca os dois.')
    const amount = (valor.valorRec ?? valor.valorMinimoRecebedor) as unknown
    if (typeof amount !== 'string' || !valorPattern.test(amount)) throw bad(type, 'valor inválido.')
    const politica = body.politicaRetentativa
    if (politica !== 'NAO_PERMITE' && politica !== 'PERMITE_3R_7D')
      throw bad(type, 'politicaRetentativa é obrigatória.')
    let loc: RecRecord['loc']
    if (body.loc !== undefined) {
      const found = locrecs.get(Number(body.loc))
      if (!found || found.idRec) throw bad(type, 'loc inexistente ou já usada.')
      loc = { ...found, idRec: '' }
    }
    const ativacao = (body.ativacao ?? {}) as Json
    const jornadaTxid = ((ativacao.dadosJornada ?? {}) as Json).txid
    if (jornadaTxid !== undefined) {
      if (typeof jornadaTxid !== 'string' || !host.cob(jornadaTxid)) throw bad(type, 'dadosJornada.txid inexistente.')
      if (!loc) throw bad(type, 'A jornada 3 exige loc.')
    }
    const now = host.now()
    const idRec = `R${politica === 'PERMITE_3R_7D' ? 'R' : 'N'}${ispb}${day(now).replace(/-/g, '')}${randomAlnum(11)}`
    if (loc) {
      loc.idRec = idRec
      const stored = locrecs.get(loc.id)
      if (stored) stored.idRec = idRec
    }
    const rec: RecRecord = {
      idRec,
      status: 'CRIADA',
      contrato: vinculo.contrato,
      devedor: { ...(cpf ? { cpf } : { cnpj }), nome: devedor.nome },
      ...(typeof vinculo.objeto === 'string' ? { objeto: vinculo.objeto } : {}),
      dataInicial,
      ...(typeof calendario.dataFinal === 'string' ? { dataFinal: calendario.dataFinal } : {}),
      periodicidade: String(periodicidade),
      ...(valor.valorRec ? { valorRec: String(valor.valorRec) } : { valorMinimoRecebedor: String(amount) }),
      politicaRetentativa: politica,
      ...(loc ? { loc } : {}),
      ...(typeof jornadaTxid === 'string' ? { jornadaTxid } : {}),
      tipoJornada: typeof jornadaTxid === 'string' ? 'JORNADA_3' : loc ? 'JORNADA_2' : 'AGUARDANDO_DEFINICAO',
      atualizacao: [],
      criacao: now,
    }
    touch(rec.atualizacao, 'CRIADA')
    recs.set(idRec, rec)
    return renderRec(rec)
  }

  function findRec(idRec: string): RecRecord {
    const rec = recs.get(idRec)
    if (!rec) throw notFound('Recorrência')
    // Expired lazily on read, as PSPs do (#629).
    if (rec.dataFinal && rec.dataFinal < day(host.now()) && (rec.status === 'CRIADA' || rec.status === 'APROVADA')) {
      rec.status = 'EXPIRADA'
      touch(rec.atualizacao, 'EXPIRADA')
    }
    return rec
  }

  function cancelRec(rec: RecRecord, solicitante: string, codigo: string, descricao: string) {
    rec.status = 'CANCELADA'
    rec.encerramento = { cancelamento: { solicitante, codigo, descricao } }
    touch(rec.atualizacao, 'CANCELADA')
    for (const cobr of cobrs.values()) {
      if (cobr.idRec !== rec.idRec || (cobr.status !== 'CRIADA' && cobr.status !== 'ATIVA')) continue
      closeCobr(cobr, 'CANCELADA', { cancelamento: { solicitante, codigo: 'ACCT', descricao } })
    }
  }

  function patchRec(idRec: string, raw: string): Json {
    const rec = findRec(idRec)
    const body = parseBody(raw)
    if (body.status !== 'CANCELADA') throw bad('RecOperacaoInvalida', 'Só é possível alterar status para CANCELADA.')
    if (rec.status !== 'CRIADA' && rec.status !== 'APROVADA')
      throw bad('RecOperacaoInvalida', `A recorrência está ${rec.status}.`)
    cancelRec(rec, 'USUARIO_RECEBEDOR', 'SLCR', 'Cancelada a pedido do recebedor')
    void notifyRec(rec)
    return renderRec(rec)
  }

  function listOf<T>(query: URLSearchParams, items: T[], at: (item: T) => string, key: string): Json {
    const inicio = Date.parse(query.get('inicio') ?? '')
    const fim = Date.parse(query.get('fim') ?? '')
    if (Number.isNaN(inicio) || Number.isNaN(fim)) throw bad('RequisicaoInvalida', 'inicio e fim são obrigatórios.')
    const matching = items.filter((item) => {
      const time = Date.parse(at(item))
      return time >= inicio && time <= fim
    })
    return {
      parametros: {
        inicio: new Date(inicio).toISOString(),
        fim: new Date(fim).toISOString(),
        paginacao: {
          paginaAtual: 0,
          itensPorPagina: 1000,
          quantidadeDePaginas: 1,
          quantidadeTotalDeItens: matching.length,
        },
      },
      [key]: matching,
    }
  }

  /** The last change of a rec or cobr (listed by it, so the reconciliation sees recent changes). */
  const lastChange = (list: Atualizacao[], fallback: Date) => list.at(-1)?.data ?? fallback.toISOString()

  function putCobr(txid: string, raw: string): { status: number; body: Json } {
    const type = 'CobROperacaoInvalida'
    if (!txidPattern.test(txid)) throw bad(type, 'O txid deve ter de 26 a 35 letras e dígitos.')
    if (host.cob(txid)) throw bad(type, 'O txid informado já foi utilizado.')
    const existing = cobrs.get(txid)
    if (existing) {
      if (existing.requestBody === raw) return { status: 200, body: renderCobr(existing) }
      throw bad(type, 'O txid informado já foi utilizado.')
    }
    const body = parseBody(raw)
    const rec = typeof body.idRec === 'string' ? recs.get(body.idRec) : undefined
    if (!rec) throw bad(type, 'idRec inexistente.')
    if (rec.status !== 'APROVADA') throw bad(type, `A recorrência está ${rec.status}.`)
    const due = ((body.calendario ?? {}) as Json).dataDeVencimento
    if (typeof due !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(due))
      throw bad(type, 'calendario.dataDeVencimento é obrigatória.')
    const lead = daysFrom(day(host.now()), due)
    if (lead < 2 || lead > 10) throw bad(type, 'A cobrança deve ser enviada entre 10 e 2 dias antes do vencimento.')
    const original = ((body.valor ?? {}) as Json).original
    if (typeof original !== 'string' || !valorPattern.test(original)) throw bad(type, 'valor.original inválido.')
    if (rec.valorRec && original !== rec.valorRec) throw bad(type, 'valor.original difere do valor da recorrência.')
    const recebedor = (body.recebedor ?? {}) as Json
    if (
      typeof recebedor.conta !== 'string' ||
      !['CORRENTE', 'POUPANCA', 'PAGAMENTO'].includes(String(recebedor.tipoConta))
    )
      throw bad(type, 'recebedor.conta e recebedor.tipoConta são obrigatórios.')
    const cycle = due.slice(0, 7)
    const sameCycle = [...cobrs.values()].find(
      (c) =>
        c.idRec === rec.idRec &&
        c.dataDeVencimento.slice(0, 7) === cycle &&
        !['REJEITADA', 'CANCELADA'].includes(c.status),
    )
    if (sameCycle) throw bad(type, 'Já existe uma cobrança para esta recorrência neste mesmo ciclo.')
    const cobr: CobrRecord = {
      txid,
      idRec: rec.idRec,
      dataDeVencimento: due,
      criacao: host.now(),
      original,
      status: 'CRIADA',
      politicaRetentativa: rec.politicaRetentativa,
      ...(typeof body.infoAdicional === 'string' ? { infoAdicional: body.infoAdicional.slice(0, 140) } : {}),
      recebedor,
      atualizacao: [],
      tentativas: [],
      pix: [],
      requestBody: raw,
    }
    touch(cobr.atualizacao, 'CRIADA')
    cobrs.set(txid, cobr)
    // The payer's PSP schedules the debit at once (within ~2 h in reality): ATIVA with its first attempt.
    cobr.status = 'ATIVA'
    touch(cobr.atualizacao, 'ATIVA')
    cobr.tentativas.push(newAttempt(due, 'AGND'))
    const answer = renderCobr({ ...cobr, status: 'CRIADA', atualizacao: cobr.atualizacao.slice(0, 1), tentativas: [] })
    void notifyCobr(cobr)
    return { status: 201, body: answer }
  }

  function newAttempt(date: string, tipo: 'AGND' | 'NTAG'): Tentativa {
    const attempt: Tentativa = {
      dataLiquidacao: date,
      tipo,
      endToEndId: `E${ispb}${date.replace(/-/g, '')}0000${randomAlnum(11)}`,
      status: 'SOLICITADA',
      atualizacao: [],
    }
    touch(attempt.atualizacao, 'SOLICITADA')
    attempt.status = 'AGENDADA'
    touch(attempt.atualizacao, 'AGENDADA')
    return attempt
  }

  function findCobr(txid: string): CobrRecord {
    const cobr = cobrs.get(txid)
    if (!cobr) throw notFound('Cobrança recorrente')
    return cobr
  }

  function closeCobr(cobr: CobrRecord, status: string, encerramento?: Json) {
    cobr.status = status
    if (encerramento) cobr.encerramento = encerramento
    touch(cobr.atualizacao, status)
    for (const attempt of cobr.tentativas) {
      if (attempt.status === 'AGENDADA' || attempt.status === 'SOLICITADA') {
        attempt.status = status === 'CANCELADA' ? 'CANCELADA' : 'EXPIRADA'
        touch(attempt.atualizacao, attempt.status)
      }
    }
  }

  function patchCobr(txid: string, raw: string): Json {
    const cobr = findCobr(txid)
    const body = parseBody(raw)
    if (body.status !== 'CANCELADA') throw bad('CobROperacaoInvalida', 'Só é possível alterar status para CANCELADA.')
    if (cobr.status !== 'CRIADA' && cobr.status !== 'ATIVA')
      throw bad('CobROperacaoInvalida', `A cobrança está ${cobr.status}.`)
    const firstAttempt = cobr.tentativas[0]?.dataLiquidacao ?? cobr.dataDeVencimento
    if (day(host.now()) >= firstAttempt)
      throw bad('CobROperacaoInvalida', 'O cancelamento não é permitido a partir da data da primeira tentativa.')
    closeCobr(cobr, 'CANCELADA', {
      cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR', descricao: 'Cancelada pelo recebedor' },
    })
    void notifyCobr(cobr)
    return renderCobr(cobr)
  }

  function retry(txid: string, date: string): Json {
    const type = 'CobROperacaoInvalida'
    const cobr = findCobr(txid)
    if (cobr.politicaRetentativa !== 'PERMITE_3R_7D')
      throw bad(type, 'A política configurada na recorrência não permite retentativa.')
    if (cobr.status !== 'ATIVA') throw bad(type, `A cobrança está ${cobr.status}.`)
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || date <= day(host.now())) throw bad(type, 'A data deve ser futura.')
    if (daysFrom(cobr.dataDeVencimento, date) > 7) throw bad(type, 'A data deve estar em até 7 dias do vencimento.')
    if (cobr.tentativas.some((a) => a.status === 'AGENDADA' || a.status === 'SOLICITADA'))
      throw bad(type, 'Há uma tentativa em andamento.')
    if (cobr.tentativas.some((a) => a.dataLiquidacao === date)) throw bad(type, 'Já existe tentativa nesta data.')
    if (cobr.tentativas.filter((a) => a.tipo === 'NTAG').length >= 3) throw bad(type, 'Limite de 3 retentativas.')
    cobr.tentativas.push(newAttempt(date, 'NTAG'))
    void notifyCobr(cobr)
    return renderCobr(cobr)
  }

  /** Handles the PIX Automático paths; false when the path is not one of them. */
  function handle(
    request: IncomingMessage,
    method: string,
    parts: string[],
    query: URLSearchParams,
    raw: string,
  ): { status: number; body?: Json } | null {
    const [, resource, id, sub, subId] = parts
    if (resource === 'locrec' && parts.length === 2 && method === 'POST') {
      host.requireScope(request, 'payloadlocationrec.write')
      return { status: 201, body: postLocrec() }
    }
    if (resource === 'rec' && parts.length === 2) {
      if (method === 'POST') {
        host.requireScope(request, 'rec.write')
        return { status: 201, body: postRec(raw) }
      }
      if (method === 'GET') {
        host.requireScope(request, 'rec.read')
        const all = [...recs.values()].map((r) => findRec(r.idRec))
        const listed = listOf(query, all, (r) => lastChange(r.atualizacao, r.criacao), 'recs')
        return { status: 200, body: { ...listed, recs: (listed.recs as RecRecord[]).map((r) => renderRec(r)) } }
      }
    }
    if (resource === 'rec' && id && parts.length === 3) {
      if (method === 'GET') {
        host.requireScope(request, 'rec.read')
        return { status: 200, body: renderRec(findRec(id), true) }
      }
      if (method === 'PATCH') {
        host.requireScope(request, 'rec.write')
        return { status: 200, body: patchRec(id, raw) }
      }
    }
    if (resource === 'cobr' && parts.length === 2 && method === 'GET') {
      host.requireScope(request, 'cobr.read')
      const listed = listOf(query, [...cobrs.values()], (c) => lastChange(c.atualizacao, c.criacao), 'cobrs')
      return { status: 200, body: { ...listed, cobrs: (listed.cobrs as CobrRecord[]).map(renderCobr) } }
    }
    if (resource === 'cobr' && id && parts.length === 3) {
      if (method === 'PUT') {
        host.requireScope(request, 'cobr.write')
        return putCobr(id, raw)
      }
      if (method === 'GET') {
        host.requireScope(request, 'cobr.read')
        return { status: 200, body: renderCobr(findCobr(id)) }
      }
      if (method === 'PATCH') {
        host.requireScope(request, 'cobr.write')
        return { status: 200, body: patchCobr(id, raw) }
      }
    }
    if (resource === 'cobr' && id && sub === 'retentativa' && subId && parts.length === 5 && method === 'POST') {
      host.requireScope(request, 'cobr.write')
      return { status: 201, body: retry(id, subId) }
    }
    if ((resource === 'webhookrec' || resource === 'webhookcobr') && parts.length === 2) {
      const kind = resource === 'webhookrec' ? 'rec' : 'cobr'
      if (method === 'PUT') {
        host.requireScope(request, `${resource}.write`)
        const url = parseBody(raw).webhookUrl
        if (typeof url !== 'string' || !/^https?:\/\//.test(url))
          throw bad('WebhookOperacaoInvalida', 'webhookUrl inválida.')
        hooks[kind] = url
        return { status: 204 }
      }
      if (method === 'GET') {
        host.requireScope(request, `${resource}.read`)
        if (!hooks[kind]) throw notFound('Webhook')
        return { status: 200, body: { webhookUrl: hooks[kind] } }
      }
      if (method === 'DELETE') {
        host.requireScope(request, `${resource}.write`)
        delete hooks[kind]
        return { status: 204 }
      }
    }
    return null
  }

  // ---- controls (test backdoor) ----

  const controls = {
    /** The payer approves the authorisation in the bank app (Journeys 1, 2; Journey 3 approves by paying). */
    async approveRec(input: { idRec: string; payerCpf?: string; callback?: CallbackChoice }) {
      const rec = findRec(input.idRec)
      if (rec.status !== 'CRIADA') throw new Error(`fake PSP: the recurrence ${rec.idRec} is ${rec.status}`)
      approve(rec, input.payerCpf)
      await notifyRec(rec, input.callback)
      return renderRec(rec)
    },
    async rejectRec(input: { idRec: string; code?: string; callback?: CallbackChoice }) {
      const rec = findRec(input.idRec)
      if (rec.status !== 'CRIADA') throw new Error(`fake PSP: the recurrence ${rec.idRec} is ${rec.status}`)
      rec.status = 'REJEITADA'
      rec.encerramento = { rejeicao: { codigo: input.code ?? 'AP13', descricao: 'Recusada pelo pagador' } }
      touch(rec.atualizacao, 'REJEITADA')
      await notifyRec(rec, input.callback)
      return renderRec(rec)
    },
    /** The payer revokes the authorisation in the bank app. */
    async revokeRec(input: { idRec: string; callback?: CallbackChoice }) {
      const rec = findRec(input.idRec)
      if (rec.status !== 'APROVADA' && rec.status !== 'CRIADA')
        throw new Error(`fake PSP: the recurrence ${rec.idRec} is ${rec.status}`)
      cancelRec(rec, 'USUARIO_PAGADOR', 'ACCL', 'Cancelada pelo pagador')
      await notifyRec(rec, input.callback)
      return renderRec(rec)
    },
    /** The scheduled attempt settles: the charge is CONCLUIDA with its PIX. */
    async settleCobr(input: { txid: string; callback?: CallbackChoice }) {
      const cobr = findCobr(input.txid)
      const attempt = cobr.tentativas.find((a) => a.status === 'AGENDADA')
      if (cobr.status !== 'ATIVA' || !attempt)
        throw new Error(`fake PSP: the charge ${cobr.txid} has no scheduled attempt (${cobr.status})`)
      attempt.status = 'PAGA'
      touch(attempt.atualizacao, 'PAGA')
      cobr.pix.push({
        endToEndId: attempt.endToEndId,
        txid: cobr.txid,
        valor: cobr.original,
        horario: host.now().toISOString(),
      })
      cobr.status = 'CONCLUIDA'
      touch(cobr.atualizacao, 'CONCLUIDA')
      await notifyCobr(cobr, input.callback)
      return renderCobr(cobr)
    },
    /**
     * The scheduled attempt fails with a code (default NIEC). Codes that reject the whole charge make it
     * REJEITADA; otherwise it stays ATIVA for a retry, or EXPIRADA when no retry is allowed or left.
     */
    async failCobr(input: { txid: string; code?: string; callback?: CallbackChoice }) {
      const cobr = findCobr(input.txid)
      const attempt = cobr.tentativas.find((a) => a.status === 'AGENDADA')
      if (cobr.status !== 'ATIVA' || !attempt)
        throw new Error(`fake PSP: the charge ${cobr.txid} has no scheduled attempt (${cobr.status})`)
      const codigo = input.code ?? 'NIEC'
      attempt.status = 'REJEITADA'
      attempt.rejeicao = { codigo, descricao: 'Tentativa recusada' }
      touch(attempt.atualizacao, 'REJEITADA')
      const retriesUsed = cobr.tentativas.filter((a) => a.tipo === 'NTAG').length
      if (wholeCobrCodes.has(codigo)) {
        cobr.status = 'REJEITADA'
        cobr.encerramento = { rejeicao: { codigo, descricao: 'Cobrança recusada' } }
        touch(cobr.atualizacao, 'REJEITADA')
      } else if (cobr.politicaRetentativa !== 'PERMITE_3R_7D' || retriesUsed >= 3) {
        cobr.status = 'EXPIRADA'
        touch(cobr.atualizacao, 'EXPIRADA')
      }
      await notifyCobr(cobr, input.callback)
      return renderCobr(cobr)
    },
    /** The payer cancels one scheduled payment (until the day before). */
    async payerCancelCobr(input: { txid: string; callback?: CallbackChoice }) {
      const cobr = findCobr(input.txid)
      closeCobr(cobr, 'CANCELADA', {
        cancelamento: { solicitante: 'USUARIO_PAGADOR', codigo: 'CCLD', descricao: 'Cancelada pelo pagador' },
      })
      await notifyCobr(cobr, input.callback)
      return renderCobr(cobr)
    },
  }

  function approve(rec: RecRecord, payerCpf?: string) {
    rec.status = 'APROVADA'
    rec.pagador = {
      ispbParticipante: '87654321',
      codMun: '2304400',
      ...(rec.devedor.cnpj ? { cnpj: rec.devedor.cnpj } : { cpf: payerCpf ?? rec.devedor.cpf }),
    }
    touch(rec.atualizacao, 'APROVADA')
  }

  /** Journey 3: paying the composite code's immediate charge approves the recurrence linked to it. */
  async function onCobPaid(txid: string): Promise<void> {
    for (const rec of recs.values()) {
      if (rec.jornadaTxid !== txid || rec.status !== 'CRIADA') continue
      approve(rec)
      await notifyRec(rec)
    }
  }

  return {
    handle,
    controls,
    onCobPaid,
    deliveries,
    rec: (idRec: string) => (recs.has(idRec) ? renderRec(findRec(idRec), true) : undefined),
    recs: () => [...recs.values()].map((r) => renderRec(r)),
    cobr: (txid: string) => {
      const found = cobrs.get(txid)
      return found ? renderCobr(found) : undefined
    },
    cobrs: () => [...cobrs.values()].map(renderCobr),
    webhooks: () => ({ ...hooks }),
  }
}

export type FakeAutomatico = ReturnType<typeof createAutomatico>
