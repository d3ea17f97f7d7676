// The database's invariants: every query that proves "nothing lost, nothing doubled" lives here, each named and
// described in Portuguese. A query returns the rows that violate its rule (none on a healthy database). Run them
// with `npm run db:check` (scripts/db-check.ts) or, from a test, with checkInvariants / expectInvariantsHold.
//
// The rules follow the flows that move money or rights (billing, PIX, Stripe, admin, lifecycle):
// - a paid invoice names its provider (PIX endToEndId, Stripe invoice or payment intent) or the admin who
//   confirmed it (audit row with an actor);
// - a payment's effect (the period it extends) is applied once, and so is a Stripe event's;
// - an active PIX subscription's current period was paid (renewal invoices are issued renewalLeadDays before
//   the period ends, so the payment may precede the period by that much), unless an admin granted that very
//   period (audit row of the admin's save naming its end); trials have no payment; card subscriptions are
//   Stripe's (they must name their Stripe subscription; the daily reconciliation compares them);
// - audit rows that move money describe the row as it is (amounts, provider references, status).
import { sql } from 'drizzle-orm'
import type { Executor } from './client'

export type Invariant = {
  /** Stable identifier (snake_case), printed with the rows. */
  name: string
  /** What must hold, in Portuguese. */
  description: string
  /** A query selecting the violating rows. */
  query: string
}

export type InvariantViolation = {
  name: string
  description: string
  /** Up to `rowLimit` violating rows. */
  rows: Record<string, unknown>[]
}

export type InvariantReport = {
  checked: number
  violations: InvariantViolation[]
}

/** Days a PIX renewal invoice may be paid before the period it pays (renewalLeadDays = 3, plus a day of slack). */
const renewalSlack = "interval '4 days'"

// A payment's "paid" audit rows: the admin's (or API Pix's) confirmation, the settlement, a card payment.
const paidActions = "('payment.confirmed', 'payment.manual_confirmation', 'payment.paid')"
const periodActions = "('subscription.activated', 'subscription.renewed', 'subscription.reactivated')"

export const invariants: readonly Invariant[] = [
  {
    name: 'open_invoices_per_period',
    description: 'Nenhuma assinatura tem duas faturas abertas do mesmo tipo para o mesmo período.',
    query: `
      select subscription_id, type, case when type = 'renewal' then due_date end as period_due,
             count(*)::int as open_invoices, string_agg(id, ', ' order by id) as payment_ids
        from payments
       where status in ('pending', 'pending_pix')
       group by subscription_id, type, case when type = 'renewal' then due_date end
      having count(*) > 1`,
  },
  {
    name: 'paid_without_reference',
    description:
      'Todo pagamento pago tem referência do provedor (endToEndId PIX, fatura ou pagamento Stripe) ou um administrador que o confirmou no log de auditoria.',
    query: `
      select p.id as payment_id, p.subscription_id, p.amount_cents, p.payment_method, p.paid_at
        from payments p
       where p.status = 'paid'
         and p.pix_end_to_end_id is null and p.stripe_invoice_id is null and p.stripe_payment_intent_id is null
         and not exists (
               select 1 from audit_log a
                where a.entity = 'payment' and a.entity_id = p.id and a.actor_id is not null
                  and a.action in ('payment.confirmed', 'payment.manual_confirmation'))`,
  },
  {
    name: 'paid_without_date',
    description: 'Todo pagamento pago tem data de pagamento.',
    query: `select id as payment_id, subscription_id, status from payments where status = 'paid' and paid_at is null`,
  },
  {
    name: 'provider_reference_twice',
    description: 'Nenhum endToEndId PIX, fatura Stripe ou pagamento Stripe está em dois pagamentos.',
    query: `
      select 'pix_end_to_end_id' as reference_kind, pix_end_to_end_id as reference,
             string_agg(id, ', ' order by id) as payment_ids
        from payments where pix_end_to_end_id is not null group by pix_end_to_end_id having count(*) > 1
      union all
      select 'stripe_invoice_id', stripe_invoice_id, string_agg(id, ', ' order by id)
        from payments where stripe_invoice_id is not null group by stripe_invoice_id having count(*) > 1
      union all
      select 'stripe_payment_intent_id', stripe_payment_intent_id, string_agg(id, ', ' order by id)
        from payments where stripe_payment_intent_id is not null group by stripe_payment_intent_id having count(*) > 1`,
  },
  {
    name: 'payment_applied_twice',
    description:
      'Cada pagamento é confirmado uma vez e estende o período da assinatura uma vez (nenhum efeito aplicado duas vezes).',
    query: `
      select 'confirmado' as effect, entity_id as payment_id, count(*)::int as times,
             string_agg(id::text, ', ' order by id) as audit_ids
        from audit_log
       where entity = 'payment' and action in ${paidActions}
       group by entity_id having count(*) > 1
      union all
      select 'período', after->>'paymentId', count(*)::int, string_agg(id::text, ', ' order by id)
        from audit_log
       where entity = 'subscription' and action in ${periodActions} and after ? 'paymentId'
       group by after->>'paymentId' having count(*) > 1`,
  },
  {
    name: 'stripe_event_applied_twice',
    description: 'Nenhum evento Stripe produz o mesmo efeito duas vezes (mesma ação, mesmo registro, mesmo evento).',
    query: `
      select after->>'eventId' as event_id, action, entity, entity_id, count(*)::int as times,
             string_agg(id::text, ', ' order by id) as audit_ids
        from audit_log
       where after ? 'eventId'
       group by after->>'eventId', action, entity, entity_id
      having count(*) > 1`,
  },
  {
    name: 'active_period_unpaid',
    description:
      'Toda assinatura PIX ativa tem um pagamento pago do período atual (ou um administrador concedeu o período); testes grátis à parte.',
    query: `
      select s.id as subscription_id, s.user_id, s.plan_id, s.current_period_start, s.current_period_end
        from subscriptions s
       where s.status = 'active' and s.billing_method = 'pix'
         and not exists (
               select 1 from payments p
                where p.subscription_id = s.id and p.status = 'paid' and p.type in ('new', 'renewal')
                  and p.paid_at >= s.current_period_start - ${renewalSlack})
         and not exists (
               select 1 from audit_log a
                where a.entity = 'subscription' and a.entity_id = s.id and a.actor_id is not null
                  and a.action in ('subscription.admin_create', 'subscription.admin_update')
                  and a.after->>'status' = 'active'
                  and (a.after->>'currentPeriodEnd')::timestamptz = s.current_period_end)`,
  },
  {
    name: 'card_subscription_without_stripe',
    description: 'Toda assinatura de cartão ativa, em teste ou vencida tem sua assinatura Stripe.',
    query: `
      select id as subscription_id, user_id, status
        from subscriptions
       where billing_method = 'card' and status in ('active', 'trialing', 'past_due') and stripe_subscription_id is null`,
  },
  {
    name: 'paid_amount_differs',
    description: 'Nenhum pagamento pago com valor recebido diferente da fatura, a menos que tenha passado por revisão.',
    query: `
      select p.id as payment_id, p.subscription_id, p.amount_cents, p.amount_received_cents
        from payments p
       where p.status = 'paid' and p.amount_received_cents is not null and p.amount_received_cents <> p.amount_cents
         and not exists (
               select 1 from audit_log a
                where a.entity = 'payment' and a.entity_id = p.id and a.action = 'payment.flagged')`,
  },
  {
    name: 'refunds_exceed_received',
    description: 'As devoluções PIX de um pagamento (exceto as não realizadas) não passam do valor recebido.',
    query: `
      select p.id as payment_id, coalesce(p.amount_received_cents, p.amount_cents) as received_cents,
             sum(r.amount_cents)::bigint as refunded_cents
        from payments p join pix_refunds r on r.payment_id = p.id
       where r.status <> 'NAO_REALIZADO'
       group by p.id
      having sum(r.amount_cents) > coalesce(p.amount_received_cents, p.amount_cents)`,
  },
  {
    name: 'webhook_without_effect',
    description:
      'Todo evento Stripe processado tem seu efeito: fatura paga em BRL de uma assinatura nossa → pagamento registrado; assinatura excluída → assinatura cancelada.',
    query: `
      with events as (
        select w.id, w.type, w.payload->'data'->'object' as o
          from webhook_events w
         where w.processed_at is not null and w.provider in ('stripe', 'card-simulator')),
      invoices as (
        select id, type, o->>'id' as invoice_id,
               coalesce(
                 case jsonb_typeof(o->'parent'->'subscription_details'->'subscription')
                   when 'object' then o->'parent'->'subscription_details'->'subscription'->>'id'
                   when 'string' then o->'parent'->'subscription_details'->>'subscription' end,
                 case jsonb_typeof(o->'subscription')
                   when 'object' then o->'subscription'->>'id'
                   when 'string' then o->>'subscription' end) as stripe_subscription_id
          from events
         where type in ('invoice.paid', 'invoice.payment_succeeded')
           and jsonb_typeof(o->'amount_paid') = 'number' and (o->>'amount_paid')::numeric > 0
           and lower(coalesce(o->>'currency', 'brl')) = 'brl')
      select i.id as event_id, i.type, i.invoice_id as reference, s.id as subscription_id
        from invoices i join subscriptions s on s.stripe_subscription_id = i.stripe_subscription_id
       where not exists (select 1 from payments p where p.stripe_invoice_id = i.invoice_id)
      union all
      select e.id, e.type, e.o->>'id', s.id
        from events e join subscriptions s on s.stripe_subscription_id = e.o->>'id'
       where e.type = 'customer.subscription.deleted' and s.status <> 'canceled'`,
  },
  {
    name: 'deleted_user_sessions',
    description:
      'Usuário excluído não tem sessão nem credencial (senha, login, segundo fator): nada mantém os direitos antigos.',
    query: `
      select 'sessão' as kind, s.id, s.user_id from sessions s join profiles u on u.id = s.user_id
       where u.deleted_at is not null
      union all
      select 'credencial', a.id, a.user_id from accounts a join profiles u on u.id = a.user_id
       where u.deleted_at is not null
      union all
      select 'segundo fator', t.id, t.user_id from two_factor t join profiles u on u.id = t.user_id
       where u.deleted_at is not null`,
  },
  {
    name: 'notification_without_customer',
    description: 'Toda notificação pertence a um cliente que existe (a exclusão de um cliente apaga as suas).',
    query: `
      select n.id, n.user_id, n.kind from notifications n
       where not exists (select 1 from profiles u where u.id = n.user_id)`,
  },
  {
    name: 'history_without_subscription',
    description:
      'Todo registro do histórico de assinaturas pertence a uma assinatura que existe (excluir uma assinatura apaga o seu histórico).',
    query: `
      select h.id, h.subscription_id, h.status from subscription_history h
       where not exists (select 1 from subscriptions s where s.id = h.subscription_id)`,
  },
  {
    name: 'audit_money_mismatch',
    description:
      'Toda linha de auditoria que move dinheiro corresponde ao registro que descreve (status, valores, referências).',
    query: `
      select a.id as audit_id, a.action, a.entity_id, 'pagamento ausente ou não pago' as problem
        from audit_log a left join payments p on p.id = a.entity_id
       where a.entity = 'payment' and a.action in ${paidActions}
         and (p.id is null or p.status <> 'paid' or p.paid_at is null)
      union all
      select a.id, a.action, a.entity_id, 'valor ou referência diferente do pagamento'
        from audit_log a join payments p on p.id = a.entity_id
       where a.entity = 'payment' and a.action in ${paidActions}
         and ((a.after ? 'amountCents' and (a.after->>'amountCents')::numeric is distinct from p.amount_cents)
           or (jsonb_typeof(a.after->'amountReceivedCents') = 'number'
               and (a.after->>'amountReceivedCents')::numeric is distinct from p.amount_received_cents)
           or (jsonb_typeof(a.after->'pixEndToEndId') = 'string'
               and a.after->>'pixEndToEndId' is distinct from p.pix_end_to_end_id)
           or (a.after ? 'stripeInvoiceId' and a.after->>'stripeInvoiceId' is distinct from p.stripe_invoice_id)
           or (a.after ? 'stripePaymentIntentId'
               and a.after->>'stripePaymentIntentId' is distinct from p.stripe_payment_intent_id))
      union all
      select a.id, a.action, a.entity_id, 'pagamento sinalizado ausente'
        from audit_log a
       where a.entity = 'payment' and a.action = 'payment.flagged'
         and not exists (select 1 from payments p where p.id = a.entity_id)
      union all
      select a.id, a.action, a.entity_id, 'período estendido por pagamento ausente, de outra assinatura ou não pago'
        from audit_log a left join payments p on p.id = a.after->>'paymentId'
       where a.entity = 'subscription' and a.action in ${periodActions} and a.after ? 'paymentId'
         and (p.id is null or p.subscription_id <> a.entity_id or p.status <> 'paid')
      union all
      select a.id, a.action, a.entity_id, 'devolução ausente ou de outro valor'
        from audit_log a
       where a.entity = 'payment' and a.action = 'payment.pix_refund'
         and not exists (
               select 1 from pix_refunds r
                where r.refund_id = a.after->>'refundId' and r.payment_id = a.entity_id
                  and r.amount_cents = (a.after->>'amountCents')::numeric)
      union all
      select a.id, a.action, a.entity_id, 'fatura da quitação não paga ou de outro valor'
        from audit_log a cross join lateral jsonb_array_elements(a.after->'invoices') i
        left join payments p on p.id = i->>'id'
       where a.entity = 'subscription' and a.action = 'subscription.invoices_settled'
         and jsonb_typeof(a.after->'invoices') = 'array'
         and (p.id is null or p.status <> 'paid' or p.subscription_id <> a.entity_id
              or p.amount_cents <> (i->>'amountCents')::numeric)`,
  },
]

/** How many violating rows each invariant reports at most. */
export const rowLimit = 50

/**
 * Runs every invariant against the database (or a transaction). The report lists the violated ones with their
 * first rows; `violations` empty means the database is consistent.
 */
export async function checkInvariants(db: Executor, only?: readonly string[]): Promise<InvariantReport> {
  const selected = only ? invariants.filter((i) => only.includes(i.name)) : invariants
  const violations: InvariantViolation[] = []
  for (const invariant of selected) {
    const result = (await db.execute(
      sql.raw(`select * from (${invariant.query}) violation limit ${rowLimit}`),
    )) as unknown as { rows: Record<string, unknown>[] }
    if (result.rows.length > 0)
      violations.push({ name: invariant.name, description: invariant.description, rows: result.rows })
  }
  return { checked: selected.length, violations }
}

function cell(value: unknown): string {
  if (value instanceof Date) return value.toISOString()
  if (value === null || value === undefined) return '∅'
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

/** The report as text: one block per violated invariant with its rows, or one summary line. */
export function formatReport(report: InvariantReport): string {
  if (report.violations.length === 0) return `Invariantes: ${report.checked} verificadas, nenhuma violação.`
  const lines: string[] = []
  for (const v of report.violations) {
    lines.push(`VIOLADA ${v.name}: ${v.description}`)
    for (const row of v.rows)
      lines.push(
        `  ${Object.entries(row)
          .map(([k, value]) => `${k}=${cell(value)}`)
          .join(' ')}`,
      )
    if (v.rows.length >= rowLimit) lines.push(`  … (primeiras ${rowLimit} linhas)`)
  }
  lines.push(`Invariantes: ${report.checked} verificadas, ${report.violations.length} violada(s).`)
  return lines.join('\n')
}
