// `npm run db:seed-load [-- --force] [--users=100000]`: a load-test data set in the PostgreSQL of DATABASE_URL —
// 100 000 customers, 200 000 subscriptions (two each) and 1 000 000 payments (five each) by default — made by three
// INSERT … SELECT over generate_series, so it takes about a minute instead of hours of row-by-row inserts.
// Every generated customer has an e-mail at @carga.example.com.br: that marks the set, so a second run refuses
// (or, with --force, deletes the previous set first) and other rows are never touched.
import { pathToFileURL } from 'node:url'
import type pg from 'pg'
import { loadConfig } from '../src/server/config'
import { connectPostgres, type Database } from '../src/server/db/client'
import { seedDemo } from '../src/server/db/seed'

export const loadEmailDomain = 'carga.example.com.br'

export type SeedLoadOptions = {
  /** Customers; each gets two subscriptions and each subscription five payments. */
  users?: number
  /** Delete a previous load set first instead of refusing. */
  force?: boolean
  log?: (line: string) => void
}

export type SeedLoadResult = { users: number; subscriptions: number; payments: number; ms: number }

// biome-ignore format: name lists read better as blocks
const firstNames = [
  'Ana', 'Bruno', 'Carla', 'Daniel', 'Eduarda', 'Felipe', 'Gabriela', 'Henrique', 'Isabela', 'João',
  'Karina', 'Lucas', 'Mariana', 'Nicolas', 'Olívia', 'Pedro', 'Quitéria', 'Rafael', 'Sofia', 'Thiago',
  'Úrsula', 'Vinícius', 'Wesley', 'Yasmin', 'Zeca', 'Beatriz', 'Caio', 'Débora', 'Enzo', 'Fernanda',
  'Gustavo', 'Helena', 'Igor', 'Júlia', 'Leonardo', 'Manuela', 'Natália', 'Otávio', 'Priscila', 'Rodrigo',
]
// biome-ignore format: name lists read better as blocks
const lastNames = [
  'Silva', 'Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Alves', 'Pereira', 'Lima', 'Gomes',
  'Costa', 'Ribeiro', 'Martins', 'Carvalho', 'Almeida', 'Lopes', 'Soares', 'Fernandes', 'Vieira', 'Barbosa',
  'Rocha', 'Dias', 'Nascimento', 'Andrade', 'Moreira', 'Nunes', 'Marques', 'Machado', 'Mendes', 'Freitas',
  'Cardoso', 'Ramos', 'Gonçalves', 'Santana', 'Teixeira', 'Araújo', 'Pinto', 'Correia', 'Cavalcante', 'Moura',
  'Bezerra', 'Batista', 'Campos', 'Monteiro', 'Farias', 'Queiroz', 'Holanda', 'Maia', 'Sampaio', 'Brito',
]
const businesses = ['Comércio', 'Distribuidora', 'Clínica', 'Imobiliária', 'Auto Peças', 'Ótica', 'Padaria', 'Escola']
const loadPlans = ['plan_basic', 'plan_pro', 'plan_business']

/**
 * Inserts the load set through `client` in one transaction, then vacuums and analyzes the three tables (index-only
 * scans need the visibility map). The caller has applied the migrations and created the demo plans.
 */
export async function seedLoadData(client: pg.ClientBase, options: SeedLoadOptions = {}): Promise<SeedLoadResult> {
  const users = options.users ?? 100_000
  const log = options.log ?? (() => {})
  if (!Number.isInteger(users) || users < 1) throw new Error('--users deve ser um número inteiro positivo')
  const started = Date.now()
  const marker = `%@${loadEmailDomain}`

  const plans = await client.query<{ id: string }>('select id from plans where id = any($1)', [loadPlans])
  if (plans.rowCount !== loadPlans.length) throw new Error(`A carga usa os planos ${loadPlans.join(', ')}.`)
  const existing = await client.query<{ n: number }>('select count(*)::int as n from profiles where email like $1', [
    marker,
  ])
  const loaded = existing.rows[0]?.n ?? 0
  if (loaded > 0 && !options.force) {
    throw new Error(`A carga já existe (${loaded} clientes @${loadEmailDomain}). Use --force para recriá-la.`)
  }

  const subscriptions = users * 2
  await client.query('begin')
  try {
    // A lost load set is regenerated, not recovered: no need to wait for the WAL flush.
    await client.query('set local synchronous_commit = off')
    if (loaded > 0) {
      log(`Removendo a carga anterior (${loaded} clientes)…`)
      await client.query(
        `delete from payments where subscription_id in
           (select s.id from subscriptions s join profiles u on u.id = s.user_id where u.email like $1)`,
        [marker],
      )
      await client.query('delete from subscriptions where user_id in (select id from profiles where email like $1)', [
        marker,
      ])
      await client.query('delete from profiles where email like $1', [marker])
    }

    log(`Clientes: ${users}…`)
    // Sign-ups spread over about two and a half years, one every 13 minutes, the newest a minute ago.
    await client.query(
      `insert into profiles (id, name, email, email_verified, company_name, whatsapp_number, role_id, created_at,
                             updated_at)
       select md5('carga-u-' || g),
              ($2::text[])[1 + g % 40] || ' ' || ($3::text[])[1 + (g / 40) % 50],
              'cliente' || g || '@${loadEmailDomain}',
              true,
              ($4::text[])[1 + g % 8] || ' ' || ($3::text[])[1 + (g / 7) % 50] || ' ' || g,
              '5585' || (900000000 + g)::text,
              2,
              t.at, t.at
         from generate_series(1, $1::int) g
        cross join lateral (select date_trunc('milliseconds', now()) - interval '1 minute' - ($1::int - g) * interval '13 minutes' as at) t`,
      [users, firstNames, lastNames, businesses],
    )

    log(`Assinaturas: ${subscriptions}…`)
    // Subscription g belongs to customer ((g - 1) % users) + 1; the second one of each customer came 20 days later.
    // Status mix: 60% active, 5% trialing, 20% canceled, 8% past_due, 7% pending_pix; half are card subscriptions.
    await client.query(
      `insert into subscriptions (id, user_id, plan_id, status, billing_method, current_period_start,
                                  current_period_end, anchor_day, cancel_at_period_end, canceled_at,
                                  stripe_subscription_id, created_at, updated_at)
       select md5('carga-s-' || g)::uuid::text,
              md5('carga-u-' || u),
              ($3::text[])[1 + g % 3],
              st.status::subscription_status,
              case when g % 2 = 0 and st.status <> 'pending_pix' then 'card' else 'pix' end::billing_method,
              p.start_at, p.start_at + interval '1 month', extract(day from p.start_at)::smallint,
              st.status = 'active' and g % 17 = 0,
              case when st.status = 'canceled' then p.start_at + interval '10 days' end,
              case when g % 2 = 0 and st.status <> 'pending_pix' then 'sub_carga' || g end,
              c.at, c.at
         from generate_series(1, $2::int) g
        cross join lateral (select (g - 1) % $1::int + 1 as u) k
        cross join lateral (
              select least(date_trunc('milliseconds', now()) - interval '1 minute' - ($1::int - k.u) * interval '13 minutes'
                             + case when g > $1::int then interval '20 days' else interval '5 minutes' end,
                           date_trunc('milliseconds', now()) - interval '30 seconds') as at) c
        cross join lateral (
              select case when g % 100 < 60 then 'active' when g % 100 < 65 then 'trialing'
                          when g % 100 < 85 then 'canceled' when g % 100 < 93 then 'past_due'
                          else 'pending_pix' end as status) st
        cross join lateral (
              select case when st.status in ('active', 'trialing', 'pending_pix')
                          then greatest(c.at, date_trunc('milliseconds', now()) - (g % 28) * interval '1 day')
                          else c.at end as start_at) p`,
      [users, subscriptions, loadPlans],
    )

    log(`Pagamentos: ${subscriptions * 5}…`)
    // Five invoices per subscription between its creation and now; the newest follows the subscription's status.
    await client.query(
      `insert into payments (id, subscription_id, amount_cents, status, currency, payment_method, type,
                             target_plan_id, due_date, paid_at, metadata, pix_reference, pix_end_to_end_id,
                             amount_received_cents, stripe_invoice_id, created_at, updated_at)
       select md5('carga-p-' || x.n)::uuid::text,
              s.id, pl.price_cents, x.status::payment_status, 'BRL', x.method::payment_method, x.type::payment_type,
              case when x.type = 'upgrade' then 'plan_business' end,
              x.at + interval '3 days',
              -- An active subscription's newest invoice paid its current period (npm run db:check).
              case when x.status = 'paid' and k = 4 and s.status = 'active' then s.current_period_start
                   when x.status = 'paid' then x.at + interval '1 day' end,
              case when x.type = 'new' then '{}'::jsonb else jsonb_build_object('type', x.type) end,
              case when x.method <> 'card' then 'CARGA' || lpad(x.n::text, 20, '0') end,
              case when x.method <> 'card' and x.status = 'paid' then 'E' || lpad(x.n::text, 31, '0') end,
              case when x.method <> 'card' and x.status = 'paid' then pl.price_cents end,
              case when x.method = 'card' and x.status = 'paid' then 'in_carga' || x.n end,
              x.at, x.at
         from generate_series(1, $1::int) g
         join subscriptions s on s.id = md5('carga-s-' || g)::uuid::text
         join plans pl on pl.id = s.plan_id
        cross join generate_series(0, 4) k
        cross join lateral (
              select (g - 1) * 5 + k + 1 as n,
                     date_trunc('milliseconds', s.created_at + (date_trunc('milliseconds', now()) - s.created_at) * k / 5.0) as at,
                     case when k = 0 then 'new' when k = 2 and g % 50 = 0 then 'upgrade' else 'renewal' end as type,
                     case when k = 4 and s.status = 'active' then 'paid'
                          when k = 4 and s.status = 'pending_pix' then 'pending_pix'
                          when k = 4 and s.status = 'past_due' then 'pending'
                          when (g + k) % 50 = 0 then 'failed'
                          when (g + k) % 97 = 0 then 'void'
                          else 'paid' end as status,
                     case when s.billing_method = 'card' then 'card'
                          when g % 50 = 1 then 'manual_confirmation'
                          else 'pix' end as method) x`,
      [subscriptions],
    )
    await client.query('commit')
  } catch (error) {
    await client.query('rollback')
    throw error
  }

  log('VACUUM ANALYZE…')
  for (const table of ['profiles', 'subscriptions', 'payments']) await client.query(`vacuum (analyze) ${table}`)
  return { users, subscriptions, payments: subscriptions * 5, ms: Date.now() - started }
}

/** Migrations, demo plans (they are what the load set subscribes to), then the load set. */
export async function seedLoadDatabase(database: Database, options: SeedLoadOptions = {}): Promise<SeedLoadResult> {
  if (database.kind !== 'postgres' || !database.pool) throw new Error('A carga exige PostgreSQL (DATABASE_URL).')
  await database.migrate()
  await seedDemo(database.db)
  const client = await database.pool.connect()
  try {
    // Three INSERT … SELECT of up to a million rows and their VACUUM outlast the pool's statement timeout.
    await client.query('set statement_timeout = 0')
    return await seedLoadData(client, options)
  } finally {
    await client.query('reset statement_timeout').catch(() => {})
    client.release()
  }
}

async function main() {
  const args = process.argv.slice(2)
  const force = args.includes('--force')
  const usersArg = args.find((a) => a.startsWith('--users='))
  const config = loadConfig()
  if (!config.DATABASE_URL) {
    console.error('Defina DATABASE_URL (PostgreSQL): a carga não roda no banco embutido.')
    process.exit(2)
  }
  const database = connectPostgres(config.DATABASE_URL, { max: 1 })
  try {
    const result = await seedLoadDatabase(database, {
      force,
      ...(usersArg ? { users: Number(usersArg.slice('--users='.length)) } : {}),
      log: (line) => console.log(line),
    })
    console.log(
      `Carga pronta: ${result.users} clientes, ${result.subscriptions} assinaturas, ${result.payments} pagamentos ` +
        `em ${(result.ms / 1000).toFixed(1)} s.`,
    )
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
  } finally {
    await database.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
