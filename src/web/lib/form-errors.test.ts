import { describe, expect, it } from 'vitest'
import { ApiError } from './api'
import { applyServerErrors, serverFieldErrors } from './form-errors'

const map = {
  fields: { plan_id: 'planId', current_period_end: 'end' },
  codes: { plan_exists: 'id', email_taken: 'email' },
} as const

describe('serverFieldErrors', () => {
  it('puts a listed code on its field with the server text', () => {
    const error = new ApiError(409, 'plan_exists', 'Já existe um plano com este ID.')
    expect(serverFieldErrors(error, map)).toEqual([{ field: 'id', message: 'Já existe um plano com este ID.' }])
  })

  it('maps validation issues by the first segment of their path, with or without a leading slash', () => {
    const error = new ApiError(400, 'validation_failed', 'Dados inválidos.', [
      { path: '/plan_id', message: 'Plano inexistente.' },
      { path: 'current_period_end.0', message: 'Data inválida.' },
      { path: 'unknown_field', message: 'ignorado' },
    ])
    expect(serverFieldErrors(error, map)).toEqual([
      { field: 'planId', message: 'Plano inexistente.' },
      { field: 'end', message: 'Data inválida.' },
    ])
  })

  it('yields nothing for other codes and for errors that are not from the API', () => {
    expect(serverFieldErrors(new ApiError(500, 'unknown', 'Ocorreu um erro desconhecido'), map)).toEqual([])
    expect(serverFieldErrors(new Error('boom'), map)).toEqual([])
  })
})

describe('applyServerErrors', () => {
  it('sets each field and focuses only the first one when asked', () => {
    const calls: unknown[] = []
    const error = new ApiError(400, 'email_taken', 'E-mail já cadastrado.', [{ path: 'plan_id', message: 'x' }])
    const applied = applyServerErrors(error, (...args) => calls.push(args), map, { focus: true })
    expect(applied).toBe(true)
    expect(calls).toEqual([
      ['email', { message: 'E-mail já cadastrado.' }, { shouldFocus: true }],
      ['planId', { message: 'x' }, { shouldFocus: false }],
    ])
  })

  it('reports false when nothing matched', () => {
    expect(applyServerErrors(new ApiError(0, 'network_error', 'sem rede'), () => {}, map)).toBe(false)
  })
})
