// The API bench's yardstick (bench/api.bench.ts): a bare `node:http` + `pg` server answering the four benchmarked
// calls with the same SQL the app runs and the same JSON shapes, and no framework, validation, logging, security
// headers or cache. It authenticates the same signed session cookie by SQL (session joined with its user; for the
// two lists in the same statement as the page, as the app does), so the comparison with the app is fair. Like the app, it runs every statement as a named prepared statement
// (parsed and planned once per connection). Not part of the product: `npm run bench` starts it in its own process.
// Env: DATABASE_URL, PORT, AUTH_SECRET.
import { createHmac, timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import pg from 'pg'
import { raiseTrimThresholdSql } from '../src/server/db/backend-memory'

pg.types.setTypeParser(20, (v) => Number(v))
// Each new connection runs the app's statement that keeps PostgreSQL's backend from returning its heap to the kernel
// after every statement (src/server/db/backend-memory.ts), so neither server pays for that and the other not.
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 10,
  onConnect: async (client) => {
    await client.query(raiseTrimThresholdSql)
  },
})
pool.on('error', () => {}) // an idle client dropped by the server surfaces on its next query
const secret = process.env.AUTH_SECRET ?? ''
const cookieName = 'billing.session_token'

type Row = Record<string, unknown>
const iso = (d: unknown) => (d instanceof Date ? d.toISOString() : null)

function tokenFrom(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=')
    if (part.slice(0, eq).trim() !== cookieName) continue
    const value = decodeURIComponent(part.slice(eq + 1).trim())
    const dot = value.lastIndexOf('.')
    const token = value.slice(0, dot)
    const given = Buffer.from(value.slice(dot + 1), 'base64')
    const expected = createHmac('sha256', secret).update(token).digest()
    return given.length === expected.length && timingSafeEqual(given, expected) ? token : null
  }
  return null
}

async function sessionUser(req: http.IncomingMessage): Promise<Row | null> {
  const token = tokenFrom(req.headers.cookie)
  if (!token) return null
  const { rows } = await pool.query({
    name: 'session_lookup',
    text: `select s.id as session_id, s.expires_at, s.created_at as session_created_at, u.id, u.name, u.email,
       u.created_at, u.company_name, u.whatsapp_number, u.role_id, u.two_factor_enabled
     from sessions s join profiles u on u.id = s.user_id where s.token = $1`,
    values: [token],
  })
  const row = rows[0] as Row | undefined
  if (!row || (row.expires_at as Date) <= new Date()) return null
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    companyName: row.company_name,
    whatsappNumber: row.whatsapp_number,
    roleId: row.role_id,
    isAdmin: row.role_id === 1,
    createdAt: iso(row.created_at),
    twoFactorEnabled: row.two_factor_enabled,
    mustEnableTwoFactor: false,
  }
}

const plan = (r: Row) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  priceCents: r.price_cents,
  currency: 'BRL',
  features: r.features,
  boxQuantity: r.box_quantity,
  agentQuantity: r.agent_quantity,
  popular: r.popular,
  active: r.active,
})

// The customer lists come like the app's (customer-lists.repo.ts, `…WithSession`): one statement with the session
// row and its user, the page (only the columns shown) and the total as a window count.
const sessionColumns = `s.id as session_id, s.expires_at, s.created_at as session_created_at, u.id as u_id, u.name,
  u.email, u.created_at as u_created_at, u.company_name, u.whatsapp_number, u.role_id, u.two_factor_enabled`

/** The token's rows, or null when the session is unknown or expired (the app would refuse it as well). */
async function withSession(req: http.IncomingMessage, name: string, text: string): Promise<Row[] | null> {
  const token = tokenFrom(req.headers.cookie)
  if (!token) return null
  const { rows } = await pool.query({ name, text, values: [token, 20, 0] })
  const first = rows[0] as Row | undefined
  if (!first || (first.expires_at as Date) <= new Date()) return null
  return rows as Row[]
}

async function subscriptionsOf(req: http.IncomingMessage) {
  const rows = await withSession(
    req,
    'my_subscriptions_session',
    `select ${sessionColumns}, sub.id, sub.user_id, sub.plan_id, sub.status, sub.billing_method,
       sub.current_period_start, sub.current_period_end, sub.cancel_at_period_end, sub.canceled_at, sub.created_at,
       p.id as p_id, p.name as p_name, p.price_cents as p_price, p.box_quantity as p_box,
       p.agent_quantity as p_agents, count(sub.id) over () as total
     from sessions s join profiles u on u.id = s.user_id
       left join subscriptions sub on sub.user_id = s.user_id left join plans p on p.id = sub.plan_id
     where s.token = $1 order by sub.created_at desc nulls last, sub.id desc nulls last limit $2 offset $3`,
  )
  if (!rows) return null
  return {
    items: rows
      .filter((r) => r.id !== null)
      .map((r: Row) => ({
        id: r.id,
        userId: r.user_id,
        planId: r.plan_id,
        plan: { id: r.p_id, name: r.p_name, priceCents: r.p_price, boxQuantity: r.p_box, agentQuantity: r.p_agents },
        status: r.status,
        billingMethod: r.billing_method,
        currentPeriodStart: iso(r.current_period_start),
        currentPeriodEnd: iso(r.current_period_end),
        cancelAtPeriodEnd: r.cancel_at_period_end,
        canceledAt: iso(r.canceled_at),
        createdAt: iso(r.created_at),
      })),
    total: rows[0]?.total ?? 0,
    page: 1,
    pageSize: 20,
  }
}

async function paymentsOf(req: http.IncomingMessage) {
  // The refunded sum of each payment comes in the same statement (a correlated sum over pix_refunds), as in the app.
  const rows = await withSession(
    req,
    'my_payments_session',
    `select ${sessionColumns}, pa.id, pa.subscription_id, pa.amount_cents, pa.status, pa.payment_method, pa.type,
       pa.target_plan_id, pa.due_date, pa.paid_at, pa.created_at, pa.receipt_url, pa.metadata,
       p.id as p_id, p.name as p_name, p.price_cents as p_price,
       (select sum(r.amount_cents) from pix_refunds r where r.payment_id = pa.id and r.status <> 'NAO_REALIZADO')
         as refunded_cents,
       count(pa.id) over () as total
     from sessions s join profiles u on u.id = s.user_id
       left join subscriptions sub on sub.user_id = s.user_id
       left join payments pa on pa.subscription_id = sub.id
       left join plans p on p.id = sub.plan_id
     where s.token = $1 order by pa.created_at desc nulls last, pa.id desc nulls last limit $2 offset $3`,
  )
  if (!rows) return null
  return {
    items: rows
      .filter((r) => r.id !== null)
      .map((r: Row) => ({
        id: r.id,
        subscriptionId: r.subscription_id,
        amountCents: r.amount_cents,
        status: r.status,
        currency: 'BRL',
        paymentMethod: r.payment_method,
        type: r.type,
        targetPlanId: r.target_plan_id,
        dueDate: iso(r.due_date),
        paidAt: iso(r.paid_at),
        createdAt: iso(r.created_at),
        // The app's own receipt page for a paid PIX payment (ownReceiptPath), the provider's for a card.
        receiptUrl:
          r.status === 'paid' && r.payment_method !== 'card' ? `/dashboard/payments/${r.id}/receipt` : r.receipt_url,
        metadata: r.metadata,
        plan: { id: r.p_id, name: r.p_name, priceCents: r.p_price },
        ...(r.status === 'paid' && r.refunded_cents !== null ? { refundedCents: Number(r.refunded_cents) } : {}),
      })),
    total: rows[0]?.total ?? 0,
    page: 1,
    pageSize: 20,
  }
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

const server = http.createServer(async (req, res) => {
  try {
    const path = (req.url ?? '/').split('?')[0]
    if (path === '/api/plans') {
      const { rows } = await pool.query({
        name: 'plans',
        text: 'select * from plans where active = true order by price_cents asc, name asc',
      })
      return send(res, 200, rows.map(plan))
    }
    if (path === '/api/health') return send(res, 200, { status: 'ok' })
    if (path === '/api/auth/session') return send(res, 200, { user: await sessionUser(req) })
    const list =
      path === '/api/subscriptions' ? subscriptionsOf(req) : path === '/api/payments' ? paymentsOf(req) : undefined
    if (!list) return send(res, 404, { code: 'not_found' })
    const page = await list
    if (!page) return send(res, 401, { code: 'unauthenticated' })
    return send(res, 200, page)
  } catch (error) {
    send(res, 500, { message: error instanceof Error ? error.message : String(error) })
  }
})
server.keepAliveTimeout = 72_000
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('bare server ready'))
process.once('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))))
