// Shapes of the Banco Central API Pix (openapi 2.9.0) as far as the app uses them. Responses are parsed leniently
// (unknown fields and new enum values are kept), because the specification lets PSPs add both.
import { z } from 'zod'
import { centsToDecimalString } from '../../../domain/money'

const valorPattern = /^\d{1,10}\.\d{2}$/

/** Integer centavos in, the API Pix amount string out: 4990 -> '49.90'. Throws a RangeError unless 1 ≤ cents. */
export function pixValor(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents <= 0) {
    throw new RangeError(`PIX: the amount must be a positive whole number of centavos, got ${cents}`)
  }
  const value = centsToDecimalString(cents)
  if (!valorPattern.test(value)) throw new RangeError(`PIX: the amount ${value} has more than 10 integer digits`)
  return value
}

/** The API Pix amount string in, integer centavos out ('49.90' -> 4990), without going through floats. */
export function centsFromPixValor(valor: string): number {
  if (!valorPattern.test(valor)) throw new RangeError(`PIX: '${valor}' is not an API Pix amount`)
  const [reais = '0', centavos = '00'] = valor.split('.')
  return Number(reais) * 100 + Number(centavos)
}

const valor = z.string().regex(valorPattern)

/** The spec's own example has `devolucoes` as an object: accept one object as a list of one. */
const listOf = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (v) => (v === null || v === undefined ? undefined : Array.isArray(v) ? v : [v]),
    z.array(item).optional(),
  )

export const devolucaoSchema = z.looseObject({
  id: z.string(),
  rtrId: z.string().optional(),
  valor,
  natureza: z.string().optional(),
  descricao: z.string().optional(),
  horario: z.looseObject({ solicitacao: z.string().optional(), liquidacao: z.string().optional() }).optional(),
  status: z.string(),
  motivo: z.string().optional(),
})
export type Devolucao = z.infer<typeof devolucaoSchema>

export const pixSchema = z.looseObject({
  endToEndId: z.string(),
  txid: z.string().optional(),
  valor,
  chave: z.string().optional(),
  horario: z.string(),
  infoPagador: z.string().optional(),
  devolucoes: listOf(devolucaoSchema),
})
/** A PIX received, as `GET /pix`, `GET /cob` (its `pix[]`) and the webhook report it. */
export type Pix = z.infer<typeof pixSchema>

const devedorSchema = z.looseObject({
  cpf: z.string().optional(),
  cnpj: z.string().optional(),
  nome: z.string().optional(),
})

const locSchema = z.looseObject({
  id: z.number().optional(),
  location: z.string(),
  tipoCob: z.string().optional(),
  criacao: z.string().optional(),
})

/** Known charge statuses; a PSP may add others, so the field itself stays a string. */
export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP'

export const cobSchema = z.looseObject({
  txid: z.string(),
  revisao: z.number().int().optional(),
  status: z.string(),
  calendario: z.looseObject({
    criacao: z.string(),
    expiracao: z.number().int().optional(),
    dataDeVencimento: z.string().optional(),
    validadeAposVencimento: z.number().int().optional(),
  }),
  devedor: devedorSchema.optional(),
  valor: z.looseObject({ original: valor, modalidadeAlteracao: z.number().int().optional(), final: valor.optional() }),
  chave: z.string(),
  solicitacaoPagador: z.string().optional(),
  loc: locSchema.optional(),
  location: z.string().optional(),
  pixCopiaECola: z.string().optional(),
  pix: listOf(pixSchema),
})
/** An immediate (`cob`) or due-date (`cobv`) charge as the PSP returns it. */
export type Cob = z.infer<typeof cobSchema>

export const pixPageSchema = z.looseObject({
  parametros: z.looseObject({
    inicio: z.string(),
    fim: z.string(),
    paginacao: z.looseObject({
      paginaAtual: z.number().int(),
      itensPorPagina: z.number().int(),
      quantidadeDePaginas: z.number().int(),
      quantidadeTotalDeItens: z.number().int(),
    }),
  }),
  pix: z.array(pixSchema),
})
export type PixPage = z.infer<typeof pixPageSchema>

export const webhookSchema = z.looseObject({
  webhookUrl: z.string(),
  chave: z.string().optional(),
  criacao: z.string().optional(),
})
export type Webhook = z.infer<typeof webhookSchema>

export const tokenSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.coerce.number().positive().optional(),
  scope: z.string().optional(),
})

/** RFC 7807 body of an API Pix error; Efí answers `{ nome, mensagem }` instead on many errors. */
export const problemSchema = z.looseObject({
  type: z.string().optional(),
  title: z.string().optional(),
  status: z.number().optional(),
  detail: z.string().optional(),
  correlationId: z.string().optional(),
  violacoes: z
    .array(
      z.looseObject({
        razao: z.string().optional(),
        propriedade: z.string().optional(),
        valor: z.unknown().optional(),
      }),
    )
    .optional(),
  nome: z.string().optional(),
  mensagem: z.string().optional(),
})

export type Devedor = { nome: string } & ({ cpf: string; cnpj?: never } | { cnpj: string; cpf?: never })

/** Body of `PUT /cob/{txid}` (`CobSolicitada`). */
export type CobSolicitada = {
  calendario?: { expiracao: number }
  devedor?: Devedor
  valor: { original: string; modalidadeAlteracao?: 0 | 1 }
  chave: string
  solicitacaoPagador?: string
  infoAdicionais?: Array<{ nome: string; valor: string }>
}

/** Body of `PUT /cobv/{txid}` (`CobVSolicitada`, without fines, interest or discounts). */
export type CobVSolicitada = {
  calendario: { dataDeVencimento: string; validadeAposVencimento?: number }
  devedor: Devedor
  valor: { original: string }
  chave: string
  solicitacaoPagador?: string
  infoAdicionais?: Array<{ nome: string; valor: string }>
}

export type ChargeInput = {
  amountCents: number
  /** The receiver's DICT key (from the admin's PIX settings). */
  key: string
  /** The payer, when we know a name and a CPF (11 digits) or CNPJ (14 characters). */
  debtor?: { name: string; document: string }
  /** Shown to the payer in their bank app (≤ 140). */
  payerRequest?: string
}

/** The `devedor` block from a name and a CPF/CNPJ, or undefined when the document is neither. */
export function devedorFor(debtor: { name: string; document: string }): Devedor | undefined {
  const document = debtor.document.replace(/[.\-/\s]/g, '').toUpperCase()
  const nome = debtor.name.trim().slice(0, 200)
  if (!nome) return undefined
  if (/^\d{11}$/.test(document)) return { nome, cpf: document }
  if (/^[0-9A-Z]{12}\d{2}$/.test(document)) return { nome, cnpj: document }
  return undefined
}

/** The body of an immediate charge that expires `expiresInSeconds` after the PSP creates it. */
export function cobBody(input: ChargeInput & { expiresInSeconds: number }): CobSolicitada {
  if (!Number.isSafeInteger(input.expiresInSeconds) || input.expiresInSeconds <= 0) {
    throw new RangeError(`PIX: expiracao must be a positive number of seconds, got ${input.expiresInSeconds}`)
  }
  const devedor = input.debtor ? devedorFor(input.debtor) : undefined
  return {
    calendario: { expiracao: input.expiresInSeconds },
    ...(devedor ? { devedor } : {}),
    valor: { original: pixValor(input.amountCents), modalidadeAlteracao: 0 },
    chave: input.key,
    ...(input.payerRequest ? { solicitacaoPagador: input.payerRequest.slice(0, 140) } : {}),
  }
}

/** The body of a due-date charge (`dueDate` as YYYY-MM-DD); cobv requires the payer's name and document. */
export function cobvBody(
  input: ChargeInput & { debtor: { name: string; document: string }; dueDate: string; daysAfterDue?: number },
): CobVSolicitada {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(input.dueDate)) throw new RangeError(`PIX: '${input.dueDate}' is not YYYY-MM-DD`)
  const devedor = devedorFor(input.debtor)
  if (!devedor) throw new RangeError('PIX: a due-date charge needs the payer name and a CPF or CNPJ')
  return {
    calendario: {
      dataDeVencimento: input.dueDate,
      ...(input.daysAfterDue === undefined ? {} : { validadeAposVencimento: input.daysAfterDue }),
    },
    devedor,
    valor: { original: pixValor(input.amountCents) },
    chave: input.key,
    ...(input.payerRequest ? { solicitacaoPagador: input.payerRequest.slice(0, 140) } : {}),
  }
}

/**
 * When an immediate charge stops being payable (`criacao + expiracao`, 24 h by default): the PSP keeps it ATIVA
 * past this instant, so the app computes it. Null for a due-date charge (its due date and validity rule instead).
 */
export function cobExpiresAt(cob: Cob): Date | null {
  if (cob.calendario.dataDeVencimento !== undefined) return null
  const created = Date.parse(cob.calendario.criacao)
  if (Number.isNaN(created)) return null
  return new Date(created + (cob.calendario.expiracao ?? 86_400) * 1000)
}
