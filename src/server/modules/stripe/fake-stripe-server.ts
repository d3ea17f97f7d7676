// A small local HTTP server shaped like the parts of Stripe's API we call, so tests run the real `stripe` SDK:
// form-encoded bodies with bracket keys, Idempotency-Key replay, Stripe's error shape. Tests only.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type FakeRequest = {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: Record<string, unknown>
}

type Json = Record<string, unknown>

export type FakeStripe = {
  url: string
  requests: FakeRequest[]
  /** Subscriptions the fake knows, by id (tests seed them; updates change them). */
  subscriptions: Map<string, Json>
  /** Invoices the fake made (the proration invoices of pending updates), by id. */
  invoices: Map<string, Json>
  /** The card declines the next charge: a pending update stays pending (Stripe's `pending_update`). */
  declineNextCharge(): void
  /** The next matching request fails with this Stripe error (4xx: the SDK does not retry it). */
  failNext(
    match: { method: string; path: RegExp },
    status: number,
    error: { type: string; message: string; code?: string },
  ): void
  /**
   * The next matching request never gets an answer ('hang', until close) or gets its normal answer after `ms`
   * ('slow'): a provider that stalls (fault scripts).
   */
  stallNext(match: { method: string; path: RegExp }, stall: { mode: 'hang' } | { mode: 'slow'; ms: number }): void
  close(): Promise<void>
}

/** `a[b][0][c]=1` -> { a: { b: [ { c: '1' } ] } }, as Stripe reads form bodies. */
export function parseStripeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {}
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.split(/\[|\]\[|\]/).filter((p) => p !== '')
    let node: Record<string, unknown> | unknown[] = root
    parts.forEach((part, i) => {
      const last = i === parts.length - 1
      const container = node as Record<string, unknown>
      if (last) {
        container[part] = value
        return
      }
      const nextIsIndex = /^\d+$/.test(parts[i + 1] ?? '')
      container[part] ??= nextIsIndex ? [] : {}
      node = container[part] as Record<string, unknown>
    })
  }
  return root
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (c: Buffer) => chunks.push(c))
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
}

function send(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_fake_${Date.now()}` })
  response.end(JSON.stringify(body))
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: FakeRequest[] = []
  const subscriptions = new Map<string, Json>()
  const idempotent = new Map<string, Json>()
  const failures: Array<{ method: string; path: RegExp; status: number; error: Json }> = []
  const stalls: Array<{ method: string; path: RegExp; mode: 'hang' | 'slow'; ms: number }> = []
  const invoices = new Map<string, Json>()
  let declineNext = false
  let counter = 0

  /**
   * `payment_behavior=pending_if_incomplete` (Stripe's pending updates): only a few parameters are accepted; the
   * proration invoice (here the price difference) is charged at once; paid, the new price applies; declined, the
   * subscription keeps its items and shows the change in `pending_update`, its latest invoice left open.
   */
  function pendingUpdate(subscription: Json, body: Record<string, unknown>): { status: number; body: Json } {
    const allowed = [
      'items',
      'proration_behavior',
      'proration_date',
      'payment_behavior',
      'expand',
      'billing_cycle_anchor',
      'trial_end',
      'trial_from_plan',
      'add_invoice_items',
    ]
    const unknown = Object.keys(body).find((k) => !allowed.includes(k))
    if (unknown) {
      return {
        status: 400,
        body: {
          error: {
            type: 'invalid_request_error',
            param: unknown,
            message: `You cannot pass \`${unknown}\` when \`payment_behavior\` is \`pending_if_incomplete\`.`,
          },
        },
      }
    }
    const items = (subscription.items as { data: Json[] }).data
    const current = items[0] as Json
    const requested = ((body.items as Json[] | undefined) ?? [])[0] as Json | undefined
    const priceData = (requested?.price_data ?? {}) as Json
    counter += 1
    const price = {
      id: `price_fake_${counter}`,
      object: 'price',
      currency: priceData.currency,
      unit_amount: Number(priceData.unit_amount),
      product: priceData.product,
      recurring: priceData.recurring,
    }
    const oldAmount = Number(((current.price ?? {}) as Json).unit_amount ?? 0)
    const due = Math.max(0, price.unit_amount - oldAmount)
    const declined = declineNext
    declineNext = false
    const invoice: Json = {
      id: `in_fake_${counter}`,
      object: 'invoice',
      status: declined ? 'open' : 'paid',
      billing_reason: 'subscription_update',
      currency: 'brl',
      customer: subscription.customer,
      amount_due: due,
      amount_paid: declined ? 0 : due,
      parent: {
        type: 'subscription_details',
        subscription_details: { subscription: subscription.id, metadata: subscription.metadata },
      },
    }
    invoices.set(invoice.id as string, invoice)
    const expand = Array.isArray(body.expand) ? body.expand : []
    const latest = expand.includes('latest_invoice') ? invoice : invoice.id
    const newItem = { ...current, id: requested?.id ?? current.id, price }
    const updated: Json = declined
      ? {
          ...subscription,
          latest_invoice: invoice.id,
          pending_update: {
            expires_at: Math.floor(Date.now() / 1000) + 23 * 3600,
            subscription_items: [newItem],
            billing_cycle_anchor: null,
            trial_end: null,
            trial_from_plan: null,
          },
        }
      : {
          ...subscription,
          latest_invoice: invoice.id,
          pending_update: null,
          items: { ...(subscription.items as Json), data: [newItem] },
        }
    subscriptions.set(subscription.id as string, updated)
    return { status: 200, body: { ...updated, latest_invoice: latest } }
  }

  const server = createServer(async (request, response) => {
    const raw = await readBody(request)
    const url = new URL(request.url ?? '/', 'http://localhost')
    const method = request.method ?? 'GET'
    const body = parseStripeForm(raw)
    requests.push({ method, path: url.pathname, headers: request.headers, body })

    const stall = stalls.findIndex((f) => f.method === method && f.path.test(url.pathname))
    if (stall >= 0) {
      const [f] = stalls.splice(stall, 1)
      if (f!.mode === 'hang') return // no answer: the client's timeout (or close) ends it
      await new Promise((resolve) => setTimeout(resolve, f!.ms))
    }
    const failure = failures.findIndex((f) => f.method === method && f.path.test(url.pathname))
    if (failure >= 0) {
      const [f] = failures.splice(failure, 1)
      return send(response, f!.status, { error: f!.error })
    }
    if (request.headers.authorization !== 'Bearer sk_test_x') {
      return send(response, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } })
    }

    if (method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      const key = request.headers['idempotency-key']
      const known = typeof key === 'string' ? idempotent.get(key) : undefined
      if (known) return send(response, 200, known)
      counter += 1
      const id = `cs_test_fake_${counter}`
      const session = {
        id,
        object: 'checkout.session',
        url: `https://checkout.stripe.com/c/pay/${id}`,
        mode: body.mode,
        line_items: body.line_items,
        payment_intent_data: body.payment_intent_data,
        subscription_data: body.subscription_data,
        customer_email: body.customer_email,
        client_reference_id: body.client_reference_id,
        metadata: body.metadata ?? {},
        success_url: body.success_url,
        cancel_url: body.cancel_url,
        status: 'open',
      }
      if (typeof key === 'string') idempotent.set(key, session)
      return send(response, 200, session)
    }

    const match = url.pathname.match(/^\/v1\/subscriptions\/([^/]+)$/)
    if (match?.[1]) {
      const subscription = subscriptions.get(match[1])
      if (!subscription) {
        return send(response, 404, {
          error: {
            type: 'invalid_request_error',
            code: 'resource_missing',
            message: `No such subscription: '${match[1]}'`,
          },
        })
      }
      if (method === 'GET') return send(response, 200, subscription)
      if (method === 'DELETE') {
        const canceled = { ...subscription, status: 'canceled', ended_at: Math.floor(Date.now() / 1000) }
        subscriptions.set(match[1], canceled)
        return send(response, 200, canceled)
      }
      if (method === 'POST' && body.payment_behavior === 'pending_if_incomplete') {
        const result = pendingUpdate(subscription, body)
        return send(response, result.status, result.body)
      }
      if (method === 'POST') {
        const updated: Json = { ...subscription }
        if (body.cancel_at_period_end !== undefined) updated.cancel_at_period_end = body.cancel_at_period_end === 'true'
        if (body.metadata && typeof body.metadata === 'object')
          updated.metadata = { ...(subscription.metadata as Json), ...(body.metadata as Json) }
        subscriptions.set(match[1], updated)
        return send(response, 200, updated)
      }
    }
    return send(response, 404, {
      error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${url.pathname})` },
    })
  })

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    subscriptions,
    invoices,
    declineNextCharge() {
      declineNext = true
    },
    failNext(match, status, error) {
      failures.push({ ...match, status, error })
    },
    stallNext(match, stall) {
      stalls.push({ ...match, mode: stall.mode, ms: stall.mode === 'slow' ? stall.ms : 0 })
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((err) => (err ? reject(err) : resolve()))
      }),
  }
}
