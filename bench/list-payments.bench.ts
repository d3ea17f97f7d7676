// The admin lists against the load set (npm run db:seed-load: 100 000 customers, 200 000 subscriptions,
// 1 000 000 payments), through the same repo functions the routes call. Target: p95 ≤ 50 ms per page.
import type { Db } from '../src/server/db/client'
import { listAdminPayments, listAdminSubscriptions, listAdminUsers } from '../src/server/modules/admin/admin-lists.repo'
import { measure, type Timing } from './stats'

export const listTargetMs = 50

const first = { page: 1, pageSize: 20, dir: 'desc' as const }

/** Each case with what it proves; the load set's customers are cliente{n}@carga.example.com.br. */
export async function listBenchmarks(db: Db, options: { runs?: number } = {}): Promise<Timing[]> {
  const cases: [string, () => Promise<{ items: unknown[]; total: number }>][] = [
    ['payments: first page', () => listAdminPayments(db, first)],
    ['payments: search e-mail', () => listAdminPayments(db, { ...first, q: 'cliente54321@' })],
    ['payments: search name', () => listAdminPayments(db, { ...first, q: 'Rodrigo Holanda' })],
    ['payments: search surname (4%)', () => listAdminPayments(db, { ...first, q: 'Silva' })],
    ['payments: search PIX reference', () => listAdminPayments(db, { ...first, q: 'CARGA00000000000000777771' })],
    ['payments: filter pending_pix', () => listAdminPayments(db, { ...first, status: 'pending_pix' })],
    ['payments: filter manual', () => listAdminPayments(db, { ...first, method: 'manual_confirmation' })],
    ['payments: sort amount asc', () => listAdminPayments(db, { ...first, sort: 'amount', dir: 'asc' })],
    ['payments: sort due date, p. 50', () => listAdminPayments(db, { ...first, sort: 'due_date', page: 50 })],
    ['payments: deep page 500', () => listAdminPayments(db, { ...first, page: 500 })],
    ['subscriptions: first page', () => listAdminSubscriptions(db, first)],
    ['subscriptions: search e-mail', () => listAdminSubscriptions(db, { ...first, q: 'cliente54321@' })],
    ['subscriptions: search plan', () => listAdminSubscriptions(db, { ...first, q: 'Empresarial' })],
    ['subscriptions: filter past_due', () => listAdminSubscriptions(db, { ...first, status: 'past_due' })],
    ['subscriptions: sort period end', () => listAdminSubscriptions(db, { ...first, sort: 'current_period_end' })],
    ['subscriptions: deep page 500', () => listAdminSubscriptions(db, { ...first, page: 500 })],
    ['users: first page', () => listAdminUsers(db, first)],
    ['users: search WhatsApp', () => listAdminUsers(db, { ...first, q: '900054321' })],
    ['customers: by name, page 500', () => listAdminUsers(db, { ...first, role: 'user', sort: 'name', page: 500 })],
  ]
  const results: Timing[] = []
  for (const [name, run] of cases) {
    const sample = await run()
    const timing = await measure(name, run, { runs: options.runs ?? 100, warmup: 10 })
    results.push({ ...timing, note: `${sample.items.length} itens de ${sample.total}` })
  }
  return results
}
