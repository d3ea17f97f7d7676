// The fake PSP's own behaviour: callbacks (batched, duplicated, dropped, delayed, forged, over mTLS) and the
// test controls on the plain-HTTP port. The client's behaviour is in modules/pix/api-pix-client.test.ts.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { pixTxidFor } from '../../../domain/pix-txid'
import { ApiPixClient } from '../../modules/pix/api-pix-client'
import { cobBody } from '../../modules/pix/api-pix-types'
import { type FakePsp, startFakePsp } from './fake-psp'

type Received = { path: string; body: { pix: Array<Record<string, unknown>> }; authorized: boolean; peer?: string }

function receiver(handler: (request: IncomingMessage, response: ServerResponse) => void, https?: FakePsp) {
  const received: Received[] = []
  let status = 200
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (c: Buffer) => chunks.push(c))
    request.on('end', () => {
      const socket = request.socket as TLSSocket
      const peer = https ? socket.getPeerCertificate()?.subject?.CN : undefined
      received.push({
        path: request.url ?? '',
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        authorized: https ? socket.authorized : false,
        ...(typeof peer === 'string' ? { peer } : {}),
      })
      response.writeHead(status)
      response.end()
      handler(request, response)
    })
  }
  const server: Server = https
    ? createHttpsServer(
        {
          // The app's webhook listener: a server certificate from the test CA, client certificates asked for and
          // checked per request (as research §6.4 step 5 does in Fastify).
          key: https.certificates.server.key,
          cert: https.certificates.server.cert,
          ca: https.certificates.ca,
          requestCert: true,
          rejectUnauthorized: false,
        },
        listener,
      )
    : createHttpServer(listener)
  return {
    received,
    setStatus: (s: number) => {
      status = s
    },
    async start(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      return `${https ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhooks/pix`
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

let psp: FakePsp
let client: ApiPixClient
let hook: ReturnType<typeof receiver>
let hookUrl: string

beforeAll(async () => {
  psp = await startFakePsp({ callbackRetryDelayMs: 10 })
  client = new ApiPixClient({
    apiUrl: psp.apiUrl,
    oauthUrl: psp.oauthUrl,
    clientId: psp.clientId,
    clientSecret: psp.clientSecret,
    credentials: {
      cert: psp.certificates.appClient.cert,
      key: psp.certificates.appClient.key,
      ca: psp.certificates.ca,
    },
  })
  hook = receiver(() => {})
  hookUrl = await hook.start()
  await client.putWebhook(psp.merchantKey, hookUrl)
})
afterAll(async () => {
  client.close()
  await hook.stop()
  await psp.stop()
})
beforeEach(() => {
  hook.received.length = 0
  hook.setStatus(200)
})

async function newCharge(amountCents = 4990): Promise<string> {
  const txid = pixTxidFor(crypto.randomUUID())
  await client.putCob(txid, cobBody({ amountCents, key: psp.merchantKey, expiresInSeconds: 3600 }))
  return txid
}

describe('callbacks', () => {
  it('POSTs {webhookUrl}/pix with the specification body when a charge is paid', async () => {
    const txid = await newCharge()
    const pix = await psp.controls.pay({ txid, payerName: 'Maria Souza', payerCpf: '12345678909', infoPagador: 'ok' })
    expect(hook.received).toHaveLength(1)
    expect(hook.received[0]?.path).toBe('/api/webhooks/pix/pix')
    expect(hook.received[0]?.body).toEqual({
      pix: [
        {
          endToEndId: pix.endToEndId,
          txid,
          valor: '49.90',
          chave: psp.merchantKey,
          horario: expect.any(String),
          infoPagador: 'ok',
          pagador: { nome: 'Maria Souza', cpf: '12345678909' },
        },
      ],
    })
    expect(psp.deliveries.at(-1)).toMatchObject({ outcome: 'delivered', status: 200, attempts: 1, forged: false })
  })

  it('pays a different amount when asked, and the charge is still CONCLUIDA', async () => {
    const txid = await newCharge(4990)
    await psp.controls.pay({ txid, valorCents: 4000 })
    expect(hook.received[0]?.body.pix[0]).toMatchObject({ txid, valor: '40.00' })
    expect((await client.getCob(txid)).status).toBe('CONCLUIDA')
  })

  it('batches held PIX in one callback and can send one again (a duplicate)', async () => {
    const a = await newCharge()
    const b = await newCharge()
    const pixA = await psp.controls.pay({ txid: a, callback: 'hold' })
    await psp.controls.pay({ txid: b, callback: 'hold' })
    expect(hook.received).toHaveLength(0)
    await psp.controls.deliverHeld()
    expect(hook.received).toHaveLength(1)
    expect(hook.received[0]?.body.pix.map((p) => p.txid)).toEqual([a, b])
    await psp.controls.resend({ endToEndIds: [String(pixA.endToEndId)] })
    expect(hook.received[1]?.body.pix).toEqual([hook.received[0]?.body.pix[0]])
  })

  it('loses a dropped callback, while GET /pix still lists the PIX', async () => {
    const txid = await newCharge()
    const pix = await psp.controls.pay({ txid, callback: 'drop' })
    expect(hook.received).toHaveLength(0)
    expect(psp.deliveries.at(-1)?.outcome).toBe('dropped')
    const listed = await client.listAllPix({ inicio: new Date(Date.now() - 60_000), fim: new Date(), txid })
    expect(listed.map((p) => p.endToEndId)).toEqual([pix.endToEndId])
  })

  it('delays a callback', async () => {
    const txid = await newCharge()
    await psp.controls.pay({ txid, delayMs: 150 })
    expect(hook.received).toHaveLength(0)
    await psp.idle()
    expect(hook.received).toHaveLength(1)
  })

  it('retries a callback the app answers with an error', async () => {
    hook.setStatus(500)
    const txid = await newCharge()
    await psp.controls.pay({ txid })
    expect(hook.received).toHaveLength(3)
    expect(psp.deliveries.at(-1)).toMatchObject({ outcome: 'failed', status: 500, attempts: 3 })
  })

  it('forges a callback for an unpaid charge: re-reading shows the truth', async () => {
    const txid = await newCharge()
    const delivery = await psp.controls.forge({ items: [{ txid, valorCents: 4990 }] })
    expect(delivery).toMatchObject({ forged: true, transport: 'no-cert', outcome: 'delivered' })
    const item = hook.received[0]?.body.pix[0]
    expect(item).toMatchObject({ txid, valor: '49.90' })
    expect((await client.getCob(txid)).status).toBe('ATIVA')
    await expect(client.getPix(String(item?.endToEndId))).rejects.toMatchObject({ status: 404 })
  })

  it('notifies a static-code payment carrying our txid, and a refund reaching its final state', async () => {
    const pix = await psp.controls.pay({ txid: 'ASSstatic123', valorCents: 2500 })
    expect(hook.received[0]?.body.pix[0]).toMatchObject({ txid: 'ASSstatic123', valor: '25.00' })
    await client.putDevolucao(String(pix.endToEndId), 'R1', 2500)
    await psp.controls.finishRefund({ endToEndId: String(pix.endToEndId), id: 'R1', outcome: 'NAO_REALIZADO' })
    expect(hook.received[1]?.body.pix[0]?.devolucoes).toEqual([
      expect.objectContaining({ id: 'R1', status: 'NAO_REALIZADO', motivo: 'Saldo insuficiente.' }),
    ])
  })

  it('calls an https webhook over mTLS with its own client certificate; forgeries come without it', async () => {
    const secure = receiver(() => {}, psp)
    try {
      await client.putWebhook(psp.merchantKey, await secure.start())
      const txid = await newCharge()
      await psp.controls.pay({ txid })
      await psp.controls.forge({ items: [{ txid, valorCents: 4990 }] })
      await psp.controls.forge({ items: [{ txid, valorCents: 4990 }], transport: 'foreign-cert' })
      expect(secure.received.map((r) => [r.authorized, r.peer ?? null])).toEqual([
        [true, 'psp-client'],
        [false, null],
        [false, 'foreign-client'],
      ])
    } finally {
      await client.putWebhook(psp.merchantKey, hookUrl)
      await secure.stop()
    }
  })
})

describe('Efí style', () => {
  it('reports the payer in gnExtras', async () => {
    const efi = await startFakePsp({ style: 'efi' })
    const efiHook = receiver(() => {})
    const efiClient = new ApiPixClient({
      apiUrl: efi.apiUrl,
      oauthUrl: efi.oauthUrl,
      clientId: efi.clientId,
      clientSecret: efi.clientSecret,
      credentials: {
        cert: efi.certificates.appClient.cert,
        key: efi.certificates.appClient.key,
        ca: efi.certificates.ca,
      },
      style: 'efi',
    })
    try {
      await efiClient.putWebhook(efi.merchantKey, await efiHook.start())
      const txid = pixTxidFor(crypto.randomUUID())
      await efiClient.putCob(txid, cobBody({ amountCents: 100, key: efi.merchantKey, expiresInSeconds: 60 }))
      await efi.controls.pay({ txid, payerName: 'João', payerCpf: '12345678909' })
      expect(efiHook.received[0]?.body.pix[0]?.gnExtras).toMatchObject({ pagador: { nome: 'João' } })
    } finally {
      efiClient.close()
      await efiHook.stop()
      await efi.stop()
    }
  })
})

describe('test controls over plain HTTP', () => {
  it('pays, refuses a second payment and lists calls through the control port', async () => {
    const txid = await newCharge()
    const post = (name: string, body: unknown) =>
      fetch(`${psp.controlUrl}/controls/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const paid = await post('pay', { txid })
    expect(paid.status).toBe(200)
    expect(await paid.json()).toMatchObject({ txid, valor: '49.90' })
    expect(hook.received).toHaveLength(1)

    const again = await post('pay', { txid })
    expect(again.status).toBe(400)
    expect(await again.json()).toEqual({ error: `fake PSP: the charge ${txid} is CONCLUIDA` })

    const charge = await fetch(`${psp.controlUrl}/charges/${txid}`)
    expect(await charge.json()).toMatchObject({ status: 'CONCLUIDA' })
    const calls = (await (await fetch(`${psp.controlUrl}/calls`)).json()) as Array<{ path: string }>
    expect(calls.some((c) => c.path === `/v2/cob/${txid}`)).toBe(true)
    expect((await post('nothing', {})).status).toBe(404)
  })
})
