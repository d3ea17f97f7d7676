import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { payments } from '../../db/schema/billing'
import { parseCsv } from '../../test/csv'
import { createTestApp, type TestApp } from '../../test/test-app'
import { createUser, get, type TestUser } from '../../test/users'
import { seedPlans } from '../billing/test-fixtures'
import { insertCustomer, insertPayment, insertSubscription } from '../lifecycle/lifecycle-fixtures'
import { batchSize } from './exports'

let t: TestApp
let admin: TestUser
let customer: TestUser
const bulk = batchSize * 2 + 37

beforeAll(async () => {
  t = await createTestApp()
  const db = t.database.db
  await seedPlans(db)
  admin = await createUser(t, { admin: true, name: 'Admin' })
  customer = await createUser(t, { name: 'Cliente Curioso' })

  const formula = await insertCustomer(db, { name: '=HYPERLINK("http://x";"y")', company: 'Empresa; Ltda' })
  const sub = await insertSubscription(db, {
    userId: formula.id,
    planId: 'plan_business',
    currentPeriodStart: new Date('2026-03-01T15:00:00Z'),
    currentPeriodEnd: new Date('2026-04-01T15:00:00Z'),
  })
  await insertPayment(db, {
    subscriptionId: sub.id,
    amountCents: 123_456,
    amountReceivedCents: 123_456,
    status: 'paid',
    paidAt: new Date('2026-03-02T02:30:00Z'), // 01/03 23:30 in São Paulo
    dueDate: new Date('2026-03-01T15:00:00Z'),
    createdAt: new Date('2026-03-01T15:00:00Z'),
  })
  // More than two batches of one customer's invoices, all created at the same instant (the cursor's tie-breaker).
  const bulkCustomer = await insertCustomer(db, { name: 'Cliente Volume' })
  const bulkSub = await insertSubscription(db, {
    userId: bulkCustomer.id,
    planId: 'plan_basic',
    currentPeriodEnd: new Date('2026-02-01T15:00:00Z'),
  })
  const at = new Date('2026-01-15T12:00:00.123Z')
  await db.insert(payments).values(
    Array.from({ length: bulk }, (_, i) => ({
      id: randomUUID(),
      subscriptionId: bulkSub.id,
      amountCents: 9_900 + (i % 3),
      status: 'void' as const,
      paymentMethod: 'pix' as const,
      type: 'renewal' as const,
      dueDate: at,
      createdAt: at,
      updatedAt: at,
    })),
  )
})
afterAll(async () => {
  await t.close()
})

describe('CSV exports', () => {
  it('are for admins only', async () => {
    for (const list of ['payments', 'subscriptions', 'customers']) {
      expect((await get(t.app, `/api/admin/exports/${list}.csv`)).statusCode).toBe(401)
      expect((await get(t.app, `/api/admin/exports/${list}.csv`, customer.cookie)).statusCode).toBe(403)
    }
  })

  it('exports the filtered payments for Brazilian spreadsheets: BOM, ";", comma decimals, dd/MM/yyyy', async () => {
    const response = await get(t.app, '/api/admin/exports/payments.csv?status=paid', admin.cookie)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="pagamentos-\d{4}-\d{2}-\d{2}\.csv"$/,
    )
    expect(response.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]))
    const [header, ...rows] = parseCsv(response.body.replace(/^\uFEFF/, ''))
    expect(header).toEqual([
      'ID',
      'Cliente',
      'E-mail',
      'Plano',
      'Tipo',
      'Status',
      'Método',
      'Valor (R$)',
      'Valor recebido (R$)',
      'Vencimento',
      'Pago em',
      'Criado em',
      'Referência PIX',
      'E2E',
    ])
    expect(rows).toHaveLength(1)
    const [row] = rows
    expect(row?.slice(1, 12)).toEqual([
      `'=HYPERLINK("http://x";"y")`,
      row?.[2],
      'Empresarial',
      'Nova assinatura',
      'Pago',
      'PIX',
      '1234,56',
      '1234,56',
      '01/03/2026',
      '01/03/2026',
      '01/03/2026',
    ])
  })

  it('streams every row once across batches (same created_at: the id breaks the tie)', async () => {
    const response = await get(t.app, '/api/admin/exports/payments.csv?status=void&method=pix', admin.cookie)
    expect(response.statusCode).toBe(200)
    const [, ...rows] = parseCsv(response.body.replace(/^\uFEFF/, ''))
    expect(rows).toHaveLength(bulk)
    expect(new Set(rows.map((r) => r[0])).size).toBe(bulk)
    const cents = rows.reduce((sum, r) => sum + Number((r[7] ?? '').replace(',', '')), 0)
    const expected = Array.from({ length: bulk }, (_, i) => 9_900 + (i % 3)).reduce((a, b) => a + b, 0)
    expect(cents).toBe(expected)
    expect(rows.every((r) => r[1] === 'Cliente Volume' && r[4] === 'Renovação' && r[5] === 'Cancelado')).toBe(true)
  })

  it('answers a filter the database refuses (a NUL byte) with a 400 problem, not a cut-off CSV', async () => {
    for (const url of [
      '/api/admin/exports/subscriptions.csv?planId=%00',
      '/api/admin/exports/payments.csv?q=%00',
      '/api/admin/exports/customers.csv?q=a%00b',
    ]) {
      const response = await get(t.app, url, admin.cookie)
      expect(response.statusCode, url).toBe(400)
      expect(response.headers['content-type'], url).toContain('json')
      expect(response.json().message, url).toMatch(/\S/)
    }
  })

  it('exports subscriptions and customers with the lists’ filters', async () => {
    const subs = await get(t.app, '/api/admin/exports/subscriptions.csv?planId=plan_business', admin.cookie)
    expect(subs.statusCode).toBe(200)
    const [subHeader, ...subRows] = parseCsv(subs.body.replace(/^\uFEFF/, ''))
    expect(subHeader?.[6]).toBe('Valor mensal (R$)')
    expect(subRows.map((r) => [r[3], r[4], r[5], r[6], r[7], r[8], r[9]])).toEqual([
      ['Empresarial', 'Ativa', 'PIX', '399,00', '01/03/2026', '01/04/2026', 'Não'],
    ])

    const people = await get(t.app, '/api/admin/exports/customers.csv?q=Empresa%3B', admin.cookie)
    expect(people.statusCode).toBe(200)
    const [, ...peopleRows] = parseCsv(people.body.replace(/^\uFEFF/, ''))
    expect(peopleRows.map((r) => [r[1], r[3], r[6]])).toEqual([[`'=HYPERLINK("http://x";"y")`, 'Empresa; Ltda', '1']])
    const admins = await get(t.app, '/api/admin/exports/customers.csv?role=admin', admin.cookie)
    const [, ...adminRows] = parseCsv(admins.body.replace(/^\uFEFF/, ''))
    expect(adminRows.map((r) => r[1])).toEqual(['Admin'])
  })
})
