// PIX Automático (Banco Central, since June 2025): one authorisation (a recurrence, `rec`) and one recurring charge
// (`cobr`) per cycle, debited by the payer's bank. The rules here are pure: the send window, the retry dates, the
// status machines of the PSP's objects and the words shown for rejection codes.
import { pixTxidFor } from './pix-txid'

const dayMs = 86_400_000

/** The recurring charge is sent from this many days before the due date… */
export const cobrSendOpensDays = 8
/** …up to this many days before it: inside both readings of the BCB window (10 to 2 days, calendar or business). */
export const cobrSendClosesDays = 3
/** Retries after a failed due date, in calendar days after it (distinct dates within 7 days: PERMITE_3R_7D). */
export const retryOffsetsDays = [1, 3, 7] as const

/** The day (UTC) of an instant, as the PSP's dates are written: 'YYYY-MM-DD'. */
export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10)
}

function dayStart(date: Date): number {
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())
}

/** Whole calendar days from `from` to `to` (UTC dates, the time of day ignored). */
export function daysBetween(from: Date, to: Date): number {
  return Math.round((dayStart(to) - dayStart(from)) / dayMs)
}

/** Whether today is inside the send window of a charge due on `due`: D-8 … D-3 (both included). */
export function inSendWindow(now: Date, due: Date): boolean {
  const daysLeft = daysBetween(now, due)
  return daysLeft <= cobrSendOpensDays && daysLeft >= cobrSendClosesDays
}

/** The first instant of the window, for queries: the start of day D-8. */
export function sendWindowOpensAt(due: Date): Date {
  return new Date(dayStart(due) - cobrSendOpensDays * dayMs)
}

/** The retry dates of a charge due on `due`: D+1, D+3, D+7 ('YYYY-MM-DD'). */
export function retryDates(due: Date): string[] {
  return retryOffsetsDays.map((days) => isoDay(new Date(dayStart(due) + days * dayMs)))
}

/**
 * The next retry to ask for after a failed attempt, seen on `today`: the first retry date after today not asked for
 * yet, or null when none is left (then the cycle falls back to a normal PIX invoice).
 */
export function nextRetryDate(due: Date, today: Date, alreadyAsked: readonly string[]): string | null {
  const todayIso = isoDay(today)
  return retryDates(due).find((d) => d > todayIso && !alreadyAsked.includes(d)) ?? null
}

// ---- status machines (research §5.7) ----

export const recStatuses = ['CRIADA', 'APROVADA', 'REJEITADA', 'CANCELADA', 'EXPIRADA'] as const
export type RecStatus = (typeof recStatuses)[number]

const recMoves: Record<RecStatus, readonly RecStatus[]> = {
  CRIADA: ['APROVADA', 'REJEITADA', 'CANCELADA', 'EXPIRADA'],
  APROVADA: ['CANCELADA', 'EXPIRADA'],
  REJEITADA: [],
  CANCELADA: [],
  EXPIRADA: [],
}

export function isRecStatus(value: unknown): value is RecStatus {
  return typeof value === 'string' && (recStatuses as readonly string[]).includes(value)
}

/** Whether a recurrence may go from `from` to `to` (the same status is no move: idempotent re-reads). */
export function canMoveRec(from: RecStatus, to: RecStatus): boolean {
  return recMoves[from].includes(to)
}

export function isFinalRec(status: RecStatus): boolean {
  return recMoves[status].length === 0
}

export const cobrStatuses = ['CRIADA', 'ATIVA', 'CONCLUIDA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'] as const
export type CobrStatus = (typeof cobrStatuses)[number]

const cobrMoves: Record<CobrStatus, readonly CobrStatus[]> = {
  CRIADA: ['ATIVA', 'CONCLUIDA', 'REJEITADA', 'CANCELADA'],
  ATIVA: ['CONCLUIDA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'],
  CONCLUIDA: [],
  REJEITADA: [],
  EXPIRADA: [],
  CANCELADA: [],
}

export function isCobrStatus(value: unknown): value is CobrStatus {
  return typeof value === 'string' && (cobrStatuses as readonly string[]).includes(value)
}

export function canMoveCobr(from: CobrStatus, to: CobrStatus): boolean {
  return cobrMoves[from].includes(to)
}

export function isFinalCobr(status: CobrStatus): boolean {
  return cobrMoves[status].length === 0
}

/** What the customer reads about the automatic renewal. */
export type AutoRenewalState = 'aguardando_autorizacao' | 'ativa' | 'cancelada_pelo_banco' | 'desativada' | 'recusada'

export const autoRenewalStateLabel: Record<AutoRenewalState, string> = {
  aguardando_autorizacao: 'aguardando autorização',
  ativa: 'ativa',
  cancelada_pelo_banco: 'cancelada pelo banco',
  desativada: 'desativada',
  recusada: 'recusada',
}

/**
 * The customer's view of a recurrence: CRIADA waits for the authorisation; APROVADA is on; a cancellation asked by
 * the payer or the payer's PSP is "cancelada pelo banco"; our own cancellation (turned off, plan change) is off.
 */
export function autoRenewalState(status: RecStatus, cancelledBy: string | null): AutoRenewalState {
  if (status === 'CRIADA') return 'aguardando_autorizacao'
  if (status === 'APROVADA') return 'ativa'
  if (status === 'REJEITADA') return 'recusada'
  if (status === 'CANCELADA' && (cancelledBy === 'USUARIO_PAGADOR' || cancelledBy === 'PSP_PAGADOR'))
    return 'cancelada_pelo_banco'
  return 'desativada'
}

// ---- rejection codes (research §5.6, meanings as PSPs document them) ----

const rejectionWords: Record<string, string> = {
  AB10: 'erro no banco do pagador',
  AC05: 'conta do pagador encerrada',
  AC06: 'conta do pagador bloqueada',
  AG12: 'pagador e recebedor na mesma instituição (não permitido)',
  AM02: 'valor acima do limite definido pelo pagador',
  AM09: 'valor diferente do autorizado na recorrência',
  DENC: 'CPF/CNPJ do pagador diferente do autorizado',
  DS27: 'autorização não encontrada no banco do pagador',
  DTED: 'data de vencimento inválida',
  DTNT: 'instrução enviada fora do prazo',
  FBRD: 'suspeita de fraude',
  IRNT: 'recebedor inválido',
  MIDI: 'identificador da recorrência inválido',
  MSUC: 'cobrança duplicada no ciclo',
  NIEC: 'pagamento não efetuado (saldo ou limite)',
  NIPA: 'pagador não autorizou a recorrência',
  NITX: 'txid inválido',
  QUNT: 'ciclo já pago',
  RC09: 'conta do recebedor inválida',
  UDEI: 'recusada pelo pagador',
  AP13: 'autorização recusada pelo pagador',
  AP14: 'autorização recusada pelo banco do pagador',
}

/** A rejection code in words for the admin ('NIEC' → 'pagamento não efetuado (saldo ou limite)'). */
export function rejectionInWords(code: string | null | undefined): string {
  if (!code) return 'motivo não informado'
  const words = rejectionWords[code]
  return words ? `${words} (${code})` : `código ${code}`
}

/** The recurring charge's txid: 'PA' + the renewal invoice's derived txid (34 characters, never a cob's txid). */
export function cobrTxidFor(paymentId: string): string {
  return `PA${pixTxidFor(paymentId)}`
}

/** The renewal invoice a cobr txid came from, or null. */
export function paymentIdFromCobrTxid(txid: string): string | null {
  const match = /^PA([0-9a-f]{32})$/i.exec(txid)
  if (!match?.[1]) return null
  const h = match[1]
  return [h.slice(0, 8), h.slice(8, 12), h.slice(12, 16), h.slice(16, 20), h.slice(20)].join('-')
}

/** 'dd/MM' of an instant (UTC), as the notice says when the debit happens. */
export function dayMonthBR(date: Date): string {
  return `${String(date.getUTCDate()).padStart(2, '0')}/${String(date.getUTCMonth() + 1).padStart(2, '0')}`
}
