// PIX Automático calls of the API Pix (openapi 2.9.0: locrec, rec, cobr, retentativa, webhookrec/webhookcobr),
// over the same mTLS client and token as the cob calls (ApiPixClient.call). Answers are checked loosely: the fields
// the app reads are typed, the rest passes through (PSPs add their own).
import { z } from 'zod'
import { ApiPixError, type ApiPixClient } from '../pix/api-pix-client'

/** The extra scopes PIX_AUTOMATICO=true asks for in the token call. */
export const pixAutomaticoScope =
  'rec.write rec.read cobr.write cobr.read payloadlocationrec.write payloadlocationrec.read ' +
  'webhookrec.write webhookrec.read webhookcobr.write webhookcobr.read'

const atualizacaoSchema = z
  .object({ status: z.string().optional(), nome: z.string().optional(), data: z.string() })
  .transform((a) => ({ status: a.status ?? a.nome ?? '', data: a.data }))

const encerramentoSchema = z
  .object({
    rejeicao: z.object({ codigo: z.string().optional(), descricao: z.string().optional() }).optional(),
    cancelamento: z
      .object({ solicitante: z.string().optional(), codigo: z.string().optional(), descricao: z.string().optional() })
      .optional(),
  })
  .passthrough()

export const recSchema = z
  .object({
    idRec: z.string(),
    status: z.string(),
    politicaRetentativa: z.string().optional(),
    vinculo: z.object({ contrato: z.string().optional() }).passthrough().optional(),
    valor: z.object({ valorRec: z.string().optional() }).passthrough().optional(),
    calendario: z.object({ dataInicial: z.string().optional() }).passthrough().optional(),
    atualizacao: z.array(atualizacaoSchema).default([]),
    encerramento: encerramentoSchema.optional(),
    loc: z.object({ id: z.number().int(), location: z.string() }).passthrough().optional(),
    dadosQR: z.object({ jornada: z.string().optional(), pixCopiaECola: z.string() }).passthrough().optional(),
  })
  .passthrough()
export type Rec = z.infer<typeof recSchema>

const tentativaSchema = z
  .object({
    dataLiquidacao: z.string(),
    tipo: z.string().optional(),
    endToEndId: z.string().optional(),
    status: z.string(),
    rejeicao: z.object({ codigo: z.string().optional(), descricao: z.string().optional() }).optional(),
  })
  .passthrough()

export const cobrSchema = z
  .object({
    idRec: z.string(),
    txid: z.string(),
    status: z.string(),
    calendario: z.object({ dataDeVencimento: z.string() }).passthrough(),
    valor: z.object({ original: z.string() }).passthrough(),
    atualizacao: z.array(atualizacaoSchema).default([]),
    tentativas: z.array(tentativaSchema).default([]),
    encerramento: encerramentoSchema.optional(),
    pix: z
      .array(z.object({ endToEndId: z.string(), txid: z.string().optional(), valor: z.string() }).passthrough())
      .default([]),
  })
  .passthrough()
export type Cobr = z.infer<typeof cobrSchema>

const locrecSchema = z.object({ id: z.number().int(), location: z.string() }).passthrough()
const listParams = z.object({ paginaAtual: z.number().optional(), quantidadeDePaginas: z.number().optional() })
const recListSchema = z.object({
  parametros: z.object({ paginacao: listParams.passthrough().optional() }).passthrough().optional(),
  recs: z.array(recSchema).default([]),
})
const cobrListSchema = z.object({
  parametros: z.object({ paginacao: listParams.passthrough().optional() }).passthrough().optional(),
  cobrs: z.array(cobrSchema).default([]),
})

export type RecRequest = {
  contrato: string
  objeto: string
  devedor: { cpf: string; nome: string } | { cnpj: string; nome: string }
  dataInicial: string
  valorRec: string
  politicaRetentativa: 'NAO_PERMITE' | 'PERMITE_3R_7D'
  loc?: number
  journeyTxid?: string
}

export type CobrRequest = {
  idRec: string
  dataDeVencimento: string
  valor: string
  infoAdicional: string
  conta: { conta: string; agencia: string; tipoConta: 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO' }
}

const seg = encodeURIComponent

export function postLocrec(client: ApiPixClient) {
  return client.call('POST', '/locrec', locrecSchema, {})
}

export function postRec(client: ApiPixClient, input: RecRequest): Promise<Rec> {
  return client.call('POST', '/rec', recSchema, {
    vinculo: { contrato: input.contrato, devedor: input.devedor, objeto: input.objeto.slice(0, 35) },
    calendario: { dataInicial: input.dataInicial, periodicidade: 'MENSAL' },
    valor: { valorRec: input.valorRec },
    politicaRetentativa: input.politicaRetentativa,
    ...(input.loc === undefined ? {} : { loc: input.loc }),
    ...(input.journeyTxid ? { ativacao: { dadosJornada: { txid: input.journeyTxid } } } : {}),
  })
}

/** `GET /rec/{idRec}[?txid]`: with the Journey 3 txid, `dadosQR` carries the composite code. */
export function getRec(client: ApiPixClient, idRec: string, txid?: string): Promise<Rec> {
  return client.call('GET', `/rec/${seg(idRec)}${txid ? `?txid=${seg(txid)}` : ''}`, recSchema)
}

export function cancelRec(client: ApiPixClient, idRec: string): Promise<Rec> {
  return client.call('PATCH', `/rec/${seg(idRec)}`, recSchema, { status: 'CANCELADA' })
}

export async function listRecs(client: ApiPixClient, inicio: Date, fim: Date): Promise<Rec[]> {
  const query = new URLSearchParams({ inicio: inicio.toISOString(), fim: fim.toISOString() })
  return (await client.call('GET', `/rec?${query}`, recListSchema)).recs
}

export function putCobr(client: ApiPixClient, txid: string, input: CobrRequest): Promise<Cobr> {
  return client.call('PUT', `/cobr/${seg(txid)}`, cobrSchema, {
    idRec: input.idRec,
    calendario: { dataDeVencimento: input.dataDeVencimento },
    valor: { original: input.valor },
    ajusteDiaUtil: true,
    recebedor: input.conta,
    infoAdicional: input.infoAdicional.slice(0, 140),
  })
}

export function getCobr(client: ApiPixClient, txid: string): Promise<Cobr> {
  return client.call('GET', `/cobr/${seg(txid)}`, cobrSchema)
}

export function cancelCobr(client: ApiPixClient, txid: string): Promise<Cobr> {
  return client.call('PATCH', `/cobr/${seg(txid)}`, cobrSchema, { status: 'CANCELADA' })
}

export function retryCobr(client: ApiPixClient, txid: string, date: string): Promise<Cobr> {
  return client.call('POST', `/cobr/${seg(txid)}/retentativa/${seg(date)}`, cobrSchema)
}

export async function listCobrs(client: ApiPixClient, inicio: Date, fim: Date): Promise<Cobr[]> {
  const query = new URLSearchParams({ inicio: inicio.toISOString(), fim: fim.toISOString() })
  return (await client.call('GET', `/cobr?${query}`, cobrListSchema)).cobrs
}

export async function putRecWebhooks(client: ApiPixClient, baseUrl: string): Promise<void> {
  await client.call('PUT', '/webhookrec', null, { webhookUrl: baseUrl })
  await client.call('PUT', '/webhookcobr', null, { webhookUrl: baseUrl })
}

/** True when the PSP says the object does not exist (404) or refused the request as invalid (400). */
export function isRefusal(error: unknown): error is ApiPixError {
  return error instanceof ApiPixError && (error.status === 400 || error.status === 404)
}
