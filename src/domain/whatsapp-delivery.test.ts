import { describe, expect, it } from 'vitest'
import { deliveryFailureReason, genericDeliveryFailure } from './whatsapp-delivery'

describe('deliveryFailureReason', () => {
  it.each([
    [131026, 'confira se o número está correto'],
    [131047, 'nas últimas 24 horas'],
    [131051, 'tipo de mensagem'],
    [131030, 'lista de destinatários permitidos'],
  ])('%i → a reason in Portuguese', (code, words) => {
    expect(deliveryFailureReason(code)).toContain(words)
  })
  it.each([[131000], [0], [null], [undefined]])('%j → the generic text', (code) => {
    expect(deliveryFailureReason(code)).toBe(genericDeliveryFailure)
  })
})
