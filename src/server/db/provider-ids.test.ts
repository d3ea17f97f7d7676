// The payments' provider ids are unique where set (migration 0025): a partial unique index of the rows that carry
// one, so the rows without (most of them) cost those indexes nothing on insert and on a status change.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { confirmReceived, e2eId } from '../modules/admin/admin-fixtures'
import { openShop } from '../modules/billing/test-fixtures'
import { createTestApp, type TestApp } from '../test/test-app'
import { createUser, post, type TestUser } from '../test/users'

const providerIds = ['pix_reference', 'pix_end_to_end_id', 'stripe_invoice_id', 'stripe_payment_intent_id', 'pix_txid']

let t: TestApp
let admin: TestUser
beforeAll(async () => {
  t = await createTestApp()
  admin = await openShop(t)
}, 60_000)
afterAll(async () => {
  await t.close()
})

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await t.database.db.execute(query)) as unknown as { rows: T[] }).rows
}

it('indexes each provider id only where it is set, uniquely, under the constraint’s old name', async () => {
  const indexes = await rows<{ name: string; unique: boolean; predicate: string | null; column: string }>(sql`
    select i.relname as name, x.indisunique as unique, pg_get_expr(x.indpred, x.indrelid) as predicate,
      a.attname as column
    from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
      join pg_attribute a on a.attrelid = t.oid and a.attnum = x.indkey[0]
    where t.relname = 'payments' and a.attname in (${sql.join(
      providerIds.map((c) => sql`${c}`),
      sql`, `,
    )})`)
  expect(indexes.map((i) => i.column).sort()).toEqual([...providerIds].sort())
  for (const index of indexes) {
    expect(index.name).toBe(`payments_${index.column}_unique`)
    expect(index.unique).toBe(true)
    expect(index.predicate).toMatch(new RegExp(`^\\(?${index.column} IS NOT NULL\\)?$`))
  }
  const constraints = await rows<{ conname: string }>(
    sql`select conname from pg_constraint where conrelid = 'payments'::regclass and contype = 'u'`,
  )
  expect(constraints).toEqual([])
})

it('still refuses one end-to-end id on two payments, and the second confirmation changes nothing', async () => {
  const checkout = async () => {
    const user = await createUser(t)
    return (await post(t.app, '/api/checkout/pix', { plan_id: 'plan_pro' }, user.cookie)).json()
  }
  const [first, second] = [await checkout(), await checkout()]
  const id = e2eId('provider1')
  await confirmReceived(t.app, admin.cookie, first.payment.id, first.payment.amountCents, { end_to_end_id: id })
  const again = await t.app.inject({
    method: 'POST',
    url: `/api/admin/payments/${second.payment.id}/confirm`,
    headers: { origin: 'http://localhost:3000', cookie: admin.cookie },
    payload: { amount_received_cents: second.payment.amountCents, end_to_end_id: id },
  })
  expect(again.statusCode, again.body).toBe(409)
  expect(again.json().code).toBe('e2e_id_taken')
  const stored = await rows<{ id: string; status: string; pix_end_to_end_id: string | null }>(
    sql`select id, status, pix_end_to_end_id from payments where id in (${first.payment.id}, ${second.payment.id})`,
  )
  expect(stored.find((p) => p.id === first.payment.id)).toMatchObject({ status: 'paid', pix_end_to_end_id: id })
  expect(stored.find((p) => p.id === second.payment.id)).toMatchObject({
    status: 'pending_pix',
    pix_end_to_end_id: null,
  })
})
