// PLACEHOLDER (faults branch): a minimal runInvariantChecks with three of issue 14's invariants, so the fault
// scripts (test/faults/) can end every run with them. The reliab branch owns the full list and `npm run db:check`:
// at merge its file replaces this one whole (same export name and result shape).
import { sql } from 'drizzle-orm'
import type { Executor } from './client'

export type InvariantResult = { name: string; description: string; rows: unknown[] }

const checks: { name: string; description: string; query: ReturnType<typeof sql> }[] = [
  {
    name: 'one_open_invoice_per_period',
    description: 'Duas faturas abertas para a mesma assinatura e o mesmo período',
    query: sql`select subscription_id, type, priced_period_end, count(*)::int as open, array_agg(id) as ids
      from payments where status in ('pending', 'pending_pix')
      group by subscription_id, type, priced_period_end having count(*) > 1`,
  },
  {
    name: 'end_to_end_id_applied_once',
    description: 'Um endToEndId aplicado mais de uma vez (pagamento ou auditoria)',
    query: sql`select e2e, count(distinct payment_id)::int as payments, count(*)::int as confirmations from (
        select pix_end_to_end_id as e2e, id as payment_id from payments where pix_end_to_end_id is not null
        union all
        select a.after->>'pixEndToEndId', a.entity_id from audit_log a
        where a.action = 'payment.confirmed' and a.after->>'pixEndToEndId' is not null
      ) x group by e2e having count(distinct payment_id) > 1 or count(*) > 2`,
  },
  {
    name: 'paid_payment_has_provider_reference',
    description: 'Pagamento pago sem referência do provedor (Stripe, endToEndId) nem confirmação de um admin',
    query: sql`select p.id, p.payment_method, p.amount_cents from payments p
      where p.status = 'paid' and p.pix_end_to_end_id is null and p.stripe_invoice_id is null
        and p.stripe_payment_intent_id is null
        and not exists (select 1 from audit_log a where a.entity = 'payment' and a.entity_id = p.id
          and a.action in ('payment.confirmed', 'payment.manual_confirmation') and a.actor_id is not null)`,
  },
]

/** Runs every invariant query; a check holds when its `rows` is empty. */
export async function runInvariantChecks(db: Executor): Promise<InvariantResult[]> {
  const results: InvariantResult[] = []
  for (const check of checks) {
    const result = (await db.execute(check.query)) as unknown as { rows: unknown[] }
    results.push({ name: check.name, description: check.description, rows: result.rows })
  }
  return results
}
