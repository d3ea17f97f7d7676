import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import type { Plan } from '../../../domain/contracts/plans'
import { plans } from '../../db/schema/plans'
import { auditLog } from '../../db/schema/platform'
import { get } from '../../test/users'
import { fileAdminApp, insertCustomer, insertPayment, insertSubscription, send } from './admin-fixtures'

const { t, admin } = fileAdminApp()

const starter = {
  id: 'plan_starter',
  name: 'Inicial',
  description: 'Para testar.',
  priceCents: 4_990,
  features: ['  1 atendente ', '', 'Suporte por e-mail'],
  boxQuantity: 1,
  agentQuantity: 1,
  popular: false,
  active: true,
}

describe('admin plans', () => {
  it('creates a plan, refuses its id twice, and shows it on /plans', async () => {
    const response = await send(t.app, 'POST', '/api/admin/plans', { cookie: admin.cookie, body: starter })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({ ...starter, currency: 'BRL', features: ['1 atendente', 'Suporte por e-mail'] })
    const twice = await send(t.app, 'POST', '/api/admin/plans', { cookie: admin.cookie, body: starter })
    expect(twice.statusCode).toBe(409)
    expect(twice.json()).toMatchObject({ code: 'plan_exists', detail: 'Já existe um plano com este ID.' })
    const publicPlans = (await get(t.app, '/api/plans')).json() as Plan[]
    expect(publicPlans.map((p) => p.id)).toEqual(['plan_starter', 'plan_basic', 'plan_pro', 'plan_business'])
    const [entry] = await t.database.db.select().from(auditLog).where(eq(auditLog.entityId, 'plan_starter'))
    expect(entry).toMatchObject({ action: 'plan.create', actorId: admin.id })
  })

  it('edits a plan but never its id; an inactive plan leaves /plans and stays in the admin list', async () => {
    const url = '/api/admin/plans/plan_starter'
    const renamed = await send(t.app, 'PUT', url, { cookie: admin.cookie, body: { ...starter, id: 'plan_other' } })
    expect(renamed.statusCode).toBe(400)
    expect(renamed.json().detail).toBe('O ID do plano não pode ser alterado.')

    const response = await send(t.app, 'PUT', url, {
      cookie: admin.cookie,
      body: { ...starter, name: 'Inicial Plus', priceCents: 5_990, active: false },
    })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({
      id: 'plan_starter',
      name: 'Inicial Plus',
      priceCents: 5_990,
      active: false,
    })
    expect(((await get(t.app, '/api/plans')).json() as Plan[]).map((p) => p.id)).not.toContain('plan_starter')
    const all = (await get(t.app, '/api/admin/plans', admin.cookie)).json() as Plan[]
    expect(all.map((p) => [p.id, p.active])).toEqual([
      ['plan_starter', false],
      ['plan_basic', true],
      ['plan_pro', true],
      ['plan_business', true],
    ])
    const audits = await t.database.db.select().from(auditLog).where(eq(auditLog.entityId, 'plan_starter'))
    expect(audits.find((a) => a.action === 'plan.update')).toMatchObject({
      before: { name: 'Inicial', priceCents: 4_990, active: true },
      after: { name: 'Inicial Plus', priceCents: 5_990, active: false },
    })
    const missing = await send(t.app, 'PUT', '/api/admin/plans/plan_nope', {
      cookie: admin.cookie,
      body: { ...starter, id: 'plan_nope' },
    })
    expect(missing.statusCode).toBe(404)
  })

  it('deletes an unused plan', async () => {
    const response = await send(t.app, 'DELETE', '/api/admin/plans/plan_starter', { cookie: admin.cookie })
    expect(response.statusCode, response.body).toBe(200)
    expect(await t.database.db.select().from(plans).where(eq(plans.id, 'plan_starter'))).toEqual([])
    const again = await send(t.app, 'DELETE', '/api/admin/plans/plan_starter', { cookie: admin.cookie })
    expect(again.statusCode).toBe(404)
  })

  it('refuses to delete a plan that subscriptions or upgrade invoices use', async () => {
    const customer = await insertCustomer(t.database.db)
    await insertSubscription(t.database.db, { userId: customer.id, planId: 'plan_pro' })
    const used = await send(t.app, 'DELETE', '/api/admin/plans/plan_pro', { cookie: admin.cookie })
    expect(used.statusCode).toBe(409)
    expect(used.json()).toMatchObject({
      code: 'plan_in_use',
      detail: 'Este plano possui assinaturas e não pode ser excluído. Desative-o para ocultá-lo da página de planos.',
    })

    const basic = await insertSubscription(t.database.db, { userId: customer.id, planId: 'plan_basic' })
    await insertPayment(t.database.db, { subscriptionId: basic.id, type: 'upgrade', targetPlanId: 'plan_business' })
    const target = await send(t.app, 'DELETE', '/api/admin/plans/plan_business', { cookie: admin.cookie })
    expect(target.statusCode).toBe(409)
    expect((await t.database.db.select().from(plans)).map((p) => p.id).sort()).toEqual([
      'plan_basic',
      'plan_business',
      'plan_pro',
    ])
  })
})
