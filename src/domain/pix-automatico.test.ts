import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  autoRenewalState,
  canMoveCobr,
  canMoveRec,
  cobrTxidFor,
  dayMonthBR,
  inSendWindow,
  isFinalCobr,
  nextRetryDate,
  paymentIdFromCobrTxid,
  rejectionInWords,
  retryDates,
  sendWindowOpensAt,
} from './pix-automatico'

const due = new Date('2026-05-10T12:00:00.000Z')

describe('send window', () => {
  it('is D-8 to D-3, both included, by calendar day', () => {
    expect(inSendWindow(new Date('2026-05-01T23:00:00Z'), due)).toBe(false) // D-9
    expect(inSendWindow(new Date('2026-05-02T00:00:00Z'), due)).toBe(true) // D-8
    expect(inSendWindow(new Date('2026-05-07T23:59:00Z'), due)).toBe(true) // D-3
    expect(inSendWindow(new Date('2026-05-08T00:00:00Z'), due)).toBe(false) // D-2
    expect(sendWindowOpensAt(due).toISOString()).toBe('2026-05-02T00:00:00.000Z')
  })

  it('always leaves at least 2 and at most 10 days before the due date (both readings of the BCB rule)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2025-06-16'), max: new Date('2035-01-01'), noInvalidDate: true }),
        fc.integer({ min: -20, max: 20 }),
        (d, offset) => {
          const now = new Date(d.getTime() - offset * 86_400_000)
          if (!inSendWindow(now, d)) return
          const days = Math.round(
            (Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) -
              Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())) /
              86_400_000,
          )
          expect(days).toBeGreaterThanOrEqual(2)
          expect(days).toBeLessThanOrEqual(10)
        },
      ),
    )
  })
})

describe('retries', () => {
  it('are D+1, D+3 and D+7, asked one after the other on distinct dates', () => {
    expect(retryDates(due)).toEqual(['2026-05-11', '2026-05-13', '2026-05-17'])
    expect(nextRetryDate(due, new Date('2026-05-10T09:00:00Z'), [])).toBe('2026-05-11')
    expect(nextRetryDate(due, new Date('2026-05-11T09:00:00Z'), ['2026-05-11'])).toBe('2026-05-13')
    expect(nextRetryDate(due, new Date('2026-05-13T09:00:00Z'), ['2026-05-11', '2026-05-13'])).toBe('2026-05-17')
    expect(nextRetryDate(due, new Date('2026-05-17T09:00:00Z'), ['2026-05-11', '2026-05-13', '2026-05-17'])).toBeNull()
  })

  it('never more than 3, always distinct, after the due date and within 7 days', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('2025-06-16'), max: new Date('2035-01-01'), noInvalidDate: true }), (d) => {
        const asked: string[] = []
        let today = d
        for (let i = 0; i < 10; i++) {
          const next = nextRetryDate(d, today, asked)
          if (!next) break
          asked.push(next)
          today = new Date(`${next}T10:00:00Z`)
        }
        expect(asked.length).toBe(3)
        expect(new Set(asked).size).toBe(3)
        const dueDay = d.toISOString().slice(0, 10)
        for (const a of asked) {
          expect(a > dueDay).toBe(true)
          expect((Date.parse(a) - Date.parse(dueDay)) / 86_400_000).toBeLessThanOrEqual(7)
        }
      }),
    )
  })
})

describe('status machines', () => {
  it('rec: CRIADA → APROVADA → CANCELADA; final states never move', () => {
    expect(canMoveRec('CRIADA', 'APROVADA')).toBe(true)
    expect(canMoveRec('APROVADA', 'CANCELADA')).toBe(true)
    expect(canMoveRec('APROVADA', 'CRIADA')).toBe(false)
    expect(canMoveRec('CANCELADA', 'APROVADA')).toBe(false)
    expect(canMoveRec('APROVADA', 'REJEITADA')).toBe(false)
  })

  it('cobr: CRIADA → ATIVA → CONCLUIDA | REJEITADA | EXPIRADA | CANCELADA', () => {
    expect(canMoveCobr('CRIADA', 'ATIVA')).toBe(true)
    expect(canMoveCobr('ATIVA', 'CONCLUIDA')).toBe(true)
    expect(canMoveCobr('CONCLUIDA', 'REJEITADA')).toBe(false)
    expect(canMoveCobr('CRIADA', 'EXPIRADA')).toBe(false)
    expect(isFinalCobr('EXPIRADA')).toBe(true)
    expect(isFinalCobr('ATIVA')).toBe(false)
  })

  it('the customer sees who cancelled', () => {
    expect(autoRenewalState('CRIADA', null)).toBe('aguardando_autorizacao')
    expect(autoRenewalState('APROVADA', null)).toBe('ativa')
    expect(autoRenewalState('CANCELADA', 'USUARIO_PAGADOR')).toBe('cancelada_pelo_banco')
    expect(autoRenewalState('CANCELADA', 'USUARIO_RECEBEDOR')).toBe('desativada')
  })
})

describe('txid and words', () => {
  it('the cobr txid is derived from the invoice, 34 characters, and reversible', () => {
    const id = '0f6fa1b2-1234-4abc-9def-0123456789ab'
    const txid = cobrTxidFor(id)
    expect(txid).toBe('PA0f6fa1b212344abc9def0123456789ab')
    expect(txid).toHaveLength(34)
    expect(paymentIdFromCobrTxid(txid)).toBe(id)
    expect(paymentIdFromCobrTxid('0f6fa1b212344abc9def0123456789ab')).toBeNull()
  })

  it('rejection codes are shown in Portuguese words', () => {
    expect(rejectionInWords('NIEC')).toBe('pagamento não efetuado (saldo ou limite) (NIEC)')
    expect(rejectionInWords('ZZZZ')).toBe('código ZZZZ')
    expect(rejectionInWords(null)).toBe('motivo não informado')
    expect(dayMonthBR(new Date('2026-05-03T12:00:00Z'))).toBe('03/05')
  })
})
