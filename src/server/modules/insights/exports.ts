// CSV exports of the admin lists (payments, subscriptions, customers) with the lists' filters, for Brazilian
// spreadsheets: UTF-8 with a BOM, ';' between fields, CRLF lines, comma decimals without thousands separators
// ('1234,56'), dd/MM/yyyy dates (America/Sao_Paulo). Streamed: rows are read in keyset batches of `batchSize`
// ((created_at, id) descending, each batch one indexed query), written as they come, so a million rows never sit in
// memory. Text that a spreadsheet would run as a formula (=, +, -, @ first) is prefixed with an apostrophe.
import { Readable } from 'node:stream'
import { type SQL, sql } from 'drizzle-orm'
import {
  cancelScheduledStatuses,
  type DueFilter,
  openPaymentFilter,
  openPaymentStatuses,
  payingStatuses,
  payingStatusFilter,
  saoPauloMonthRange,
} from '../../../domain/admin-filters'
import { paymentStatusLabel, subscriptionStatusLabel } from '../../../domain/subscription-status'
import type { Executor } from '../../db/client'
import { containsPattern, profileSearchText } from '../../db/paging'

export const batchSize = 1000

const paymentMethodLabel: Record<string, string> = {
  pix: 'PIX',
  card: 'Cartão',
  manual_confirmation: 'Confirmação manual',
}
const billingMethodLabel: Record<string, string> = { pix: 'PIX', card: 'Cartão' }
const paymentTypeLabel: Record<string, string> = { new: 'Nova assinatura', upgrade: 'Upgrade', renewal: 'Renovação' }

const dateFormat = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Sao_Paulo',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
})

export function csvDate(value: Date | string | null | undefined): string {
  if (value === null || value === undefined) return ''
  return dateFormat.format(value instanceof Date ? value : new Date(value))
}

/** Centavos as '1234,56' (no thousands separator, so every spreadsheet reads it as a number). */
export function csvMoney(cents: number | string | null | undefined): string {
  if (cents === null || cents === undefined) return ''
  const n = Number(cents)
  const sign = n < 0 ? '-' : ''
  const abs = Math.abs(n)
  return `${sign}${Math.floor(abs / 100)},${String(abs % 100).padStart(2, '0')}`
}

/** One field: formula-looking text defused, quoted when it holds ';', '"', a line break or edge spaces. */
export function csvField(value: string | number | boolean | null | undefined, text = true): string {
  let s = value === null || value === undefined ? '' : String(value)
  if (text && /^[=+\-@\t\r]/.test(s)) s = `'${s}`
  return /[;"\r\n]|^\s|\s$/.test(s) ? `"${s.replaceAll('"', '""')}"` : s
}

function line(fields: string[]): string {
  return `${fields.join(';')}\r\n`
}

type Cursor = { createdAt: string; id: string } | null
type Row = Record<string, unknown> & { cursor_at: string; id: string }

/**
 * Streams header + rows: `batch(cursor)` answers the next rows after the cursor (created_at desc, id desc). The first
 * batch is read before anything is sent, so a query the database refuses (a filter it cannot take) is an ordinary
 * problem answer instead of a response cut off after its headers.
 */
async function csvStream(
  header: string[],
  batch: (cursor: Cursor) => Promise<Row[]>,
  toFields: (row: Row) => string[],
): Promise<Readable> {
  const first = await batch(null)
  async function* generate() {
    yield `\uFEFF${line(header.map((h) => csvField(h)))}`
    let rows = first
    for (;;) {
      if (rows.length === 0) return
      yield rows.map((r) => line(toFields(r))).join('')
      if (rows.length < batchSize) return
      const last = rows[rows.length - 1] as Row
      rows = await batch({ createdAt: last.cursor_at, id: last.id })
    }
  }
  return Readable.from(generate(), { objectMode: false })
}

async function rows(db: Executor, query: SQL): Promise<Row[]> {
  return ((await db.execute(query)) as unknown as { rows: Row[] }).rows
}

function after(alias: string, cursor: Cursor): SQL {
  if (!cursor) return sql`true`
  const t = sql.raw(alias)
  // The cursor is the row's created_at as text (full microseconds: a JS Date would keep milliseconds only).
  return sql`(${t}.created_at, ${t}.id) < (${cursor.createdAt}::timestamptz, ${cursor.id})`
}

function whereAll(conditions: (SQL | undefined)[]): SQL {
  const present = conditions.filter((c): c is SQL => c !== undefined)
  return present.length ? sql.join(present, sql` and `) : sql`true`
}

export type PaymentsFilter = {
  q?: string | undefined
  status?: string | undefined
  method?: string | undefined
  due?: DueFilter | undefined
}

const inList = (column: SQL, values: readonly string[]) =>
  sql`${column} in (${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`

/** The list's filters (admin-lists.repo.ts, definitions in src/domain/admin-filters.ts) over the alias `p`. */
function paymentFilters(filter: PaymentsFilter, now: Date): (SQL | undefined)[] {
  const at = sql`${now.toISOString()}::timestamptz`
  return [
    filter.status === openPaymentFilter
      ? inList(sql`p.status`, openPaymentStatuses)
      : filter.status
        ? sql`p.status = ${filter.status}`
        : undefined,
    filter.method ? sql`p.payment_method = ${filter.method}` : undefined,
    filter.due ? inList(sql`p.status`, openPaymentStatuses) : undefined,
    filter.due === 'due' ? sql`p.due_date >= ${at}` : undefined,
    filter.due === 'overdue' ? sql`p.due_date < ${at}` : undefined,
  ]
}

export function paymentsCsv(db: Executor, filter: PaymentsFilter, now: Date = new Date()) {
  const q = filter.q?.trim()
  const search = q
    ? sql`(${profileSearchText()} ilike ${containsPattern(q)} or p.id = ${q} or p.pix_reference = ${q} or p.pix_end_to_end_id = ${q})`
    : undefined
  return csvStream(
    [
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
    ],
    (cursor) =>
      rows(
        db,
        sql`select p.id, p.created_at, p.created_at::text as cursor_at, p.amount_cents, p.amount_received_cents, p.status,
            p.payment_method, p.type, p.due_date, p.paid_at, p.pix_reference, p.pix_end_to_end_id,
            profiles.name, profiles.email, coalesce(tp.name, pl.name) as plan_name
          from payments p
          join subscriptions s on s.id = p.subscription_id
          join profiles on profiles.id = s.user_id
          join plans pl on pl.id = s.plan_id
          left join plans tp on tp.id = p.target_plan_id
          where ${whereAll([...paymentFilters(filter, now), search, after('p', cursor)])}
          order by p.created_at desc, p.id desc limit ${batchSize}`,
      ),
    (r) => [
      csvField(r.id as string),
      csvField(r.name as string),
      csvField(r.email as string),
      csvField(r.plan_name as string),
      csvField(paymentTypeLabel[r.type as string] ?? String(r.type)),
      csvField(paymentStatusLabel[r.status as keyof typeof paymentStatusLabel] ?? String(r.status)),
      csvField(paymentMethodLabel[r.payment_method as string] ?? String(r.payment_method)),
      csvMoney(r.amount_cents as string),
      csvMoney(r.amount_received_cents as string | null),
      csvDate(r.due_date as Date),
      csvDate(r.paid_at as Date | null),
      csvDate(r.created_at as Date),
      csvField(r.pix_reference as string | null),
      csvField(r.pix_end_to_end_id as string | null),
    ],
  )
}

export type SubscriptionsFilter = {
  q?: string | undefined
  status?: string | undefined
  planId?: string | undefined
  method?: string | undefined
  cancel?: 'scheduled' | undefined
  periodEnd?: string | undefined
}

/** The list's filters (admin-lists.repo.ts, definitions in src/domain/admin-filters.ts) over the alias `s`. */
function subscriptionFilters(filter: SubscriptionsFilter): (SQL | undefined)[] {
  const period = filter.periodEnd ? saoPauloMonthRange(filter.periodEnd) : undefined
  return [
    filter.status === payingStatusFilter
      ? inList(sql`s.status`, payingStatuses)
      : filter.status
        ? sql`s.status = ${filter.status}`
        : undefined,
    filter.planId ? sql`s.plan_id = ${filter.planId}` : undefined,
    filter.method ? sql`s.billing_method = ${filter.method}` : undefined,
    filter.cancel === 'scheduled'
      ? sql`s.cancel_at_period_end and ${inList(sql`s.status`, cancelScheduledStatuses)}`
      : undefined,
    period
      ? sql`s.current_period_end >= ${period.from.toISOString()}::timestamptz and s.current_period_end < ${period.to.toISOString()}::timestamptz`
      : undefined,
  ]
}

export function subscriptionsCsv(db: Executor, filter: SubscriptionsFilter) {
  const q = filter.q?.trim()
  const search = q
    ? sql`(${profileSearchText()} ilike ${containsPattern(q)} or s.id = ${q} or pl.id ilike ${containsPattern(q)} or pl.name ilike ${containsPattern(q)})`
    : undefined
  return csvStream(
    [
      'ID',
      'Cliente',
      'E-mail',
      'Plano',
      'Status',
      'Cobrança',
      'Valor mensal (R$)',
      'Início do período',
      'Fim do período',
      'Cancelar no fim do período',
      'Criada em',
    ],
    (cursor) =>
      rows(
        db,
        sql`select s.id, s.created_at, s.created_at::text as cursor_at, s.status, s.billing_method, s.current_period_start,
            s.current_period_end, s.cancel_at_period_end, profiles.name, profiles.email, pl.name as plan_name,
            pl.price_cents
          from subscriptions s
          join profiles on profiles.id = s.user_id
          join plans pl on pl.id = s.plan_id
          where ${whereAll([...subscriptionFilters(filter), search, after('s', cursor)])}
          order by s.created_at desc, s.id desc limit ${batchSize}`,
      ),
    (r) => [
      csvField(r.id as string),
      csvField(r.name as string),
      csvField(r.email as string),
      csvField(r.plan_name as string),
      csvField(subscriptionStatusLabel[r.status as keyof typeof subscriptionStatusLabel] ?? String(r.status)),
      csvField(billingMethodLabel[r.billing_method as string] ?? String(r.billing_method)),
      csvMoney(r.price_cents as string),
      csvDate(r.current_period_start as Date),
      csvDate(r.current_period_end as Date),
      r.cancel_at_period_end ? 'Sim' : 'Não',
      csvDate(r.created_at as Date),
    ],
  )
}

export type CustomersFilter = { q?: string | undefined; role?: 'admin' | 'user' | undefined }

/** Customers (role user) by default, as the 'Clientes' list; role=admin exports the admins ('Usuários'). */
export function customersCsv(db: Executor, filter: CustomersFilter) {
  const q = filter.q?.trim()
  const roleId = filter.role === 'admin' ? 1 : 2
  return csvStream(
    ['ID', 'Nome', 'E-mail', 'Empresa', 'WhatsApp', 'E-mail confirmado', 'Assinaturas ativas', 'Cadastrado em'],
    (cursor) =>
      rows(
        db,
        sql`select profiles.id, profiles.created_at, profiles.created_at::text as cursor_at, profiles.name, profiles.email,
            profiles.company_name, profiles.whatsapp_number, profiles.email_verified,
            (select count(*)::int from subscriptions s where s.user_id = profiles.id and s.status in ('active', 'trialing')) as active
          from profiles
          where ${whereAll([
            sql`profiles.role_id = ${roleId}`,
            q ? sql`(${profileSearchText()} ilike ${containsPattern(q)} or profiles.id = ${q})` : undefined,
            after('profiles', cursor),
          ])}
          order by profiles.created_at desc, profiles.id desc limit ${batchSize}`,
      ),
    (r) => [
      csvField(r.id as string),
      csvField(r.name as string),
      csvField(r.email as string),
      csvField(r.company_name as string),
      csvField(r.whatsapp_number as string),
      r.email_verified ? 'Sim' : 'Não',
      String(r.active ?? 0),
      csvDate(r.created_at as Date),
    ],
  )
}
