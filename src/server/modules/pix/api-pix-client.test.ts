import { request as httpsRequest } from 'node:https'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDynamicPixBrCode } from '../../../domain/pix'
import { pixTxidFor } from '../../../domain/pix-txid'
import { type FakePsp, startFakePsp } from '../../test/fake-psp/fake-psp'
import { TestClock } from '../../test/test-app'
import { ApiPixClient, type ApiPixClientOptions, ApiPixError } from './api-pix-client'
import { type CobSolicitada, cobBody, cobExpiresAt, cobvBody } from './api-pix-types'

let psp: FakePsp
const clients: ApiPixClient[] = []

beforeAll(async () => {
  psp = await startFakePsp()
})
afterAll(async () => {
  for (const client of clients) client.close()
  await psp.stop()
})

function clientFor(target: FakePsp, options: Partial<ApiPixClientOptions> = {}): ApiPixClient {
  const client = new ApiPixClient({
    apiUrl: target.apiUrl,
    oauthUrl: target.oauthUrl,
    clientId: target.clientId,
    clientSecret: target.clientSecret,
    credentials: {
      cert: target.certificates.appClient.cert,
      key: target.certificates.appClient.key,
      ca: target.certificates.ca,
    },
    ...options,
  })
  clients.push(client)
  return client
}

const newTxid = () => pixTxidFor(crypto.randomUUID())
const body = (amountCents = 4990): CobSolicitada =>
  cobBody({ amountCents, key: psp.merchantKey, expiresInSeconds: 3600, payerRequest: 'Assinatura Plano Pro' })

async function expectPixError(promise: Promise<unknown>): Promise<ApiPixError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof ApiPixError) return error
    throw error
  }
  throw new Error('expected an ApiPixError')
}

describe('mTLS and the token', () => {
  it('gets a token over mTLS once and reuses it for the following calls', async () => {
    const target = await startFakePsp()
    try {
      const client = clientFor(target)
      const txid = newTxid()
      await client.putCob(txid, body())
      await client.getCob(txid)
      await client.getCob(txid)
      expect(target.tokensIssued()).toBe(1)
      const tokenCall = target.calls.find((c) => c.path === '/oauth/token')
      expect(tokenCall).toMatchObject({ method: 'POST', status: 200, contentType: 'application/x-www-form-urlencoded' })
      expect(target.calls.map((c) => `${c.method} ${c.path.replace(txid, '{txid}')} ${c.status}`)).toEqual([
        'POST /oauth/token 200',
        'PUT /v2/cob/{txid} 201',
        'GET /v2/cob/{txid} 200',
        'GET /v2/cob/{txid} 200',
      ])
    } finally {
      await target.stop()
    }
  })

  it('is refused at the TLS handshake without a client certificate', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const request = httpsRequest(psp.oauthUrl, { method: 'POST', ca: psp.certificates.ca }, (response) =>
        resolve(`answered ${response.statusCode}`),
      )
      request.on('error', (error: NodeJS.ErrnoException) => resolve(`refused ${error.code}`))
      request.end('grant_type=client_credentials')
    })
    expect(outcome).toMatch(/^refused (ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED|ECONNRESET)$/)
    expect(psp.calls.some((c) => c.path === '/oauth/token' && c.status !== 200)).toBe(false)
  })

  it('is refused with a client certificate from another CA', async () => {
    const client = clientFor(psp, {
      credentials: {
        cert: psp.certificates.foreignClient.cert,
        key: psp.certificates.foreignClient.key,
        ca: psp.certificates.ca,
      },
    })
    const error = await expectPixError(client.accessToken())
    expect(error.kind).toBe('network')
    expect(error.unreachable).toBe(true)
  })

  it('does not trust the PSP without its CA', async () => {
    const client = clientFor(psp, {
      credentials: { cert: psp.certificates.appClient.cert, key: psp.certificates.appClient.key },
    })
    const error = await expectPixError(client.accessToken())
    expect(error).toMatchObject({ kind: 'network', code: expect.stringMatching(/CERT|SIGNATURE/) })
  })

  it('renews the token shortly before it expires', async () => {
    const clock = new TestClock()
    const target = await startFakePsp({ tokenLifetimeSeconds: 600, now: clock.now })
    try {
      const client = clientFor(target, { now: clock.now })
      const first = await client.accessToken()
      clock.advance(8 * 60_000)
      expect(await client.accessToken()).toBe(first)
      clock.advance(60_000) // one minute before expiry: renewed before a call could carry an expiring token
      expect(await client.accessToken()).not.toBe(first)
      expect(target.tokensIssued()).toBe(2)
    } finally {
      await target.stop()
    }
  })

  it('asks for one token when calls start together', async () => {
    const target = await startFakePsp()
    try {
      const client = clientFor(target)
      await Promise.all([client.accessToken(), client.accessToken(), client.accessToken()])
      expect(target.tokensIssued()).toBe(1)
    } finally {
      await target.stop()
    }
  })

  it('retries once with a fresh token after a 401', async () => {
    const client = clientFor(psp)
    const txid = newTxid()
    await client.putCob(txid, body())
    const issued = psp.tokensIssued()
    psp.controls.revokeTokens()
    const cob = await client.getCob(txid)
    expect(cob.txid).toBe(txid)
    expect(psp.tokensIssued()).toBe(issued + 1)
    expect(psp.calls.filter((c) => c.path === `/v2/cob/${txid}` && c.method === 'GET').map((c) => c.status)).toEqual([
      401, 200,
    ])
  })

  it('gives up after a second 401', async () => {
    const client = clientFor(psp)
    psp.controls.failNext({ path: '^/v2/cob/', status: 401, problemType: 'AcessoNegado', times: 2 })
    const error = await expectPixError(client.getCob(newTxid()))
    expect(error).toMatchObject({ kind: 'unauthorized', status: 401, problemType: 'AcessoNegado' })
  })

  it('maps a wrong secret to an unauthorized error', async () => {
    const client = clientFor(psp, { clientSecret: 'wrong' })
    const error = await expectPixError(client.accessToken())
    expect(error).toMatchObject({ kind: 'unauthorized', status: 401, problemType: 'invalid_client' })
  })

  it('speaks Efí: JSON token body, and x-skip-mtls-checking on webhook registration', async () => {
    const target = await startFakePsp()
    try {
      const client = clientFor(target, { style: 'efi' })
      await client.putWebhook(target.merchantKey, 'https://app.example.com/api/webhooks/pix')
      expect(target.calls.find((c) => c.path === '/oauth/token')?.contentType).toBe('application/json')
      expect(target.webhook(target.merchantKey)?.skipMtlsChecking).toBe('true')
      await client.putWebhook(target.merchantKey, 'https://app.example.com/api/webhooks/pix', {
        skipMtlsChecking: false,
      })
      expect(target.webhook(target.merchantKey)?.skipMtlsChecking).toBe('false')
      const bcb = clientFor(target)
      await bcb.putWebhook(target.merchantKey, 'https://app.example.com/api/webhooks/pix')
      expect(target.webhook(target.merchantKey)?.skipMtlsChecking).toBeUndefined()
    } finally {
      await target.stop()
    }
  })
})

describe('charges', () => {
  it('creates a cob whose pixCopiaECola is a valid dynamic BR Code for its location', async () => {
    const client = clientFor(psp)
    const txid = newTxid()
    const cob = await client.putCob(
      txid,
      cobBody({
        amountCents: 4990,
        key: psp.merchantKey,
        expiresInSeconds: 3600,
        debtor: { name: 'Maria Souza', document: '123.456.789-09' },
      }),
    )
    expect(cob).toMatchObject({
      txid,
      revisao: 0,
      status: 'ATIVA',
      valor: { original: '49.90' },
      chave: psp.merchantKey,
      devedor: { cpf: '12345678909', nome: 'Maria Souza' },
      calendario: { expiracao: 3600 },
    })
    const parsed = parseDynamicPixBrCode(cob.pixCopiaECola ?? '')
    expect(parsed).toMatchObject({ location: cob.location, amountCents: 4990, crcValid: true })
    expect(cob.location?.length).toBeLessThanOrEqual(77)
    expect(cobExpiresAt(cob)?.getTime()).toBe(Date.parse(cob.calendario.criacao) + 3_600_000)
  })

  it('never makes a second charge for the same txid', async () => {
    const client = clientFor(psp)
    const txid = newTxid()
    const first = await client.putCob(txid, body())
    const again = await client.putCob(txid, body())
    expect(again.loc?.id).toBe(first.loc?.id)
    expect(again.pixCopiaECola).toBe(first.pixCopiaECola)
    expect(again.revisao).toBe(0)
    expect(psp.charge(txid)).toMatchObject({ revisao: 0 })
  })

  it('ensureCob returns the charge a PSP refuses to create twice', async () => {
    const target = await startFakePsp({ duplicateTxid: 'reject' })
    try {
      const client = clientFor(target)
      const txid = newTxid()
      const first = await client.ensureCob(txid, body())
      const error = await expectPixError(client.putCob(txid, body()))
      expect(error).toMatchObject({ status: 400, problemType: 'CobOperacaoInvalida' })
      const again = await client.ensureCob(txid, body())
      expect(again.loc?.id).toBe(first.loc?.id)
      // A different amount under the same txid is not silently accepted.
      await expect(client.ensureCob(txid, body(5990))).rejects.toMatchObject({ problemType: 'CobOperacaoInvalida' })
    } finally {
      await target.stop()
    }
  })

  it('ensureCob finds the charge whose create answer was lost', async () => {
    const client = clientFor(psp, { timeoutMs: 2000 })
    const txid = newTxid()
    await client.accessToken()
    psp.controls.failNext({ method: 'PUT', path: `^/v2/cob/${txid}$`, mode: 'lose-answer' })
    const cob = await client.ensureCob(txid, body())
    expect(cob.txid).toBe(txid)
    expect(psp.calls.filter((c) => c.path === `/v2/cob/${txid}`).map((c) => `${c.method} ${c.status}`)).toEqual([
      'PUT 201',
      'GET 200',
    ])
  })

  it('creates and reads a due-date charge (cobv)', async () => {
    const client = clientFor(psp)
    const txid = newTxid()
    const dueDate = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10)
    const created = await client.putCobv(
      txid,
      cobvBody({
        amountCents: 19_900,
        key: psp.merchantKey,
        dueDate,
        debtor: { name: 'Empresa X', document: '12.345.678/0001-95' },
      }),
    )
    expect(created).toMatchObject({ status: 'ATIVA', calendario: { dataDeVencimento: dueDate } })
    expect(created.location).toContain('/cobv/')
    expect(cobExpiresAt(created)).toBeNull()
    expect((await client.getCobv(txid)).devedor).toMatchObject({ cnpj: '12345678000195' })
  })

  it('sees a paid charge as CONCLUIDA with the PIX, and an expired one still ATIVA', async () => {
    const client = clientFor(psp)
    const paid = newTxid()
    await client.putCob(paid, body())
    const pix = await psp.controls.pay({ txid: paid, payerName: 'Maria Souza', payerCpf: '12345678909' })
    const cob = await client.getCob(paid)
    expect(cob.status).toBe('CONCLUIDA')
    expect(cob.pix).toEqual([expect.objectContaining({ endToEndId: pix.endToEndId, valor: '49.90', txid: paid })])
    expect(cob.pix?.[0]?.endToEndId).toMatch(/^E12345678\d{12}[A-Za-z0-9]{11}$/)

    const expired = newTxid()
    await client.putCob(expired, body())
    psp.controls.expire({ txid: expired })
    const stale = await client.getCob(expired)
    expect(stale.status).toBe('ATIVA')
    expect(cobExpiresAt(stale)?.getTime()).toBeLessThan(Date.now())
    await expect(psp.controls.pay({ txid: expired })).rejects.toThrow('expired')
  })
})

describe('PIX received and refunds', () => {
  it('lists the PIX of a window page by page', async () => {
    const clock = new TestClock(new Date('2026-05-01T10:00:00.000Z'))
    const target = await startFakePsp({ now: clock.now })
    try {
      const client = clientFor(target, { now: clock.now })
      const paid: string[] = []
      for (let i = 0; i < 5; i++) {
        const txid = newTxid()
        await client.putCob(txid, body(1000 + i))
        clock.advance(60_000)
        paid.push(String((await target.controls.pay({ txid })).endToEndId))
      }
      const window = { inicio: new Date('2026-05-01T00:00:00Z'), fim: new Date('2026-05-02T00:00:00Z') }
      const page = await client.listPix({ ...window, itensPorPagina: 2, paginaAtual: 1 })
      expect(page.parametros.paginacao).toEqual({
        paginaAtual: 1,
        itensPorPagina: 2,
        quantidadeDePaginas: 3,
        quantidadeTotalDeItens: 5,
      })
      expect(page.pix.map((p) => p.endToEndId)).toEqual(paid.slice(2, 4))
      expect((await client.listAllPix({ ...window, itensPorPagina: 2 })).map((p) => p.endToEndId)).toEqual(paid)
      const before = await client.listAllPix({ inicio: '2026-04-30T00:00:00Z', fim: '2026-05-01T09:00:00Z' })
      expect(before).toEqual([])
      expect(target.calls.filter((c) => c.path.startsWith('/v2/pix?')).length).toBe(5)
    } finally {
      await target.stop()
    }
  })

  it('reads one PIX, refunds part of it and refuses more than was paid', async () => {
    const client = clientFor(psp)
    const txid = newTxid()
    await client.putCob(txid, body(4990))
    const { endToEndId } = await psp.controls.pay({ txid })
    const e2e = String(endToEndId)
    expect(await client.getPix(e2e)).toMatchObject({ endToEndId: e2e, txid, valor: '49.90' })

    const refund = await client.putDevolucao(e2e, 'R1', 1000, { descricao: 'Reembolso parcial' })
    expect(refund).toMatchObject({ id: 'R1', valor: '10.00', status: 'EM_PROCESSAMENTO', natureza: 'ORIGINAL' })
    expect(refund.rtrId).toMatch(/^D12345678/)

    const tooMuch = await expectPixError(client.putDevolucao(e2e, 'R2', 4000))
    expect(tooMuch).toMatchObject({ kind: 'problem', status: 400, problemType: 'PixDevolucaoInvalida' })
    expect(tooMuch.violacoes[0]).toMatchObject({ propriedade: 'valor' })
    const sameId = await expectPixError(client.putDevolucao(e2e, 'R1', 100))
    expect(sameId).toMatchObject({ status: 400, problemType: 'PixDevolucaoInvalida' })

    await psp.controls.finishRefund({ endToEndId: e2e, id: 'R1', outcome: 'DEVOLVIDO' })
    expect(await client.getDevolucao(e2e, 'R1')).toMatchObject({ status: 'DEVOLVIDO' })
    expect((await client.getPix(e2e)).devolucoes).toEqual([expect.objectContaining({ id: 'R1', status: 'DEVOLVIDO' })])
    expect(() => client.putDevolucao(e2e, 'bad-id', 100)).toThrow(RangeError)
  })
})

describe('webhook registration', () => {
  it('registers, reads and deletes the webhook of the key', async () => {
    const client = clientFor(psp)
    expect(await client.getWebhook(psp.merchantKey)).toBeNull()
    await client.putWebhook(psp.merchantKey, 'https://app.example.com/api/webhooks/pix')
    expect(await client.getWebhook(psp.merchantKey)).toMatchObject({
      webhookUrl: 'https://app.example.com/api/webhooks/pix',
      chave: psp.merchantKey,
    })
    await client.deleteWebhook(psp.merchantKey)
    expect(await client.getWebhook(psp.merchantKey)).toBeNull()
  })

  it('is refused for a key that is not the merchant’s', async () => {
    const error = await expectPixError(clientFor(psp).putWebhook('outra@example.com', 'https://app.example.com/x'))
    expect(error).toMatchObject({ status: 400, problemType: 'WebhookOperacaoInvalida' })
  })
})

describe('errors', () => {
  it('maps problem+json to a typed error', async () => {
    const client = clientFor(psp)
    const missing = await expectPixError(client.getCob(newTxid()))
    expect(missing).toMatchObject({ kind: 'problem', status: 404, problemType: 'NaoEncontrado', unreachable: false })
    expect(missing.correlationId).toMatch(/^[0-9a-f]{16}$/)

    const badTxid = await expectPixError(client.putCob('short', body()))
    expect(badTxid).toMatchObject({ status: 400, problemType: 'CobOperacaoInvalida' })
    expect(badTxid.violacoes).toEqual([expect.objectContaining({ propriedade: 'cob.txid', valor: 'short' })])

    const wrongKey = await expectPixError(client.putCob(newTxid(), { ...body(), chave: 'outra@example.com' }))
    expect(wrongKey.detail).toBe('A chave não pertence ao usuário recebedor.')
  })

  it('reads Efí’s own error shape', async () => {
    const client = clientFor(psp)
    psp.controls.failNext({
      path: '^/v2/webhook/',
      status: 400,
      body: { nome: 'webhook_invalido', mensagem: 'A URL informada respondeu com o código HTTP 500' },
    })
    const error = await expectPixError(client.putWebhook(psp.merchantKey, 'https://app.example.com/x'))
    expect(error).toMatchObject({
      kind: 'problem',
      status: 400,
      problemType: 'webhook_invalido',
      detail: 'A URL informada respondeu com o código HTTP 500',
    })
    expect(error.message).toBe(
      `PIX: PUT /webhook/${encodeURIComponent(psp.merchantKey)} falhou com HTTP 400 webhook_invalido: A URL informada respondeu com o código HTTP 500`,
    )
  })

  it('marks PSP failures, resets and timeouts as unreachable', async () => {
    const client = clientFor(psp, { timeoutMs: 300 })
    await client.accessToken()
    psp.controls.failNext({ path: '^/v2/cob/', status: 503 })
    expect(await expectPixError(client.getCob(newTxid()))).toMatchObject({
      status: 503,
      problemType: 'ServicoIndisponivel',
      unreachable: true,
    })
    psp.controls.failNext({ path: '^/v2/cob/', mode: 'reset' })
    expect(await expectPixError(client.getCob(newTxid()))).toMatchObject({ kind: 'network', unreachable: true })
    psp.controls.failNext({ path: '^/v2/cob/', mode: 'hang' })
    expect(await expectPixError(client.getCob(newTxid()))).toMatchObject({ kind: 'timeout', unreachable: true })
  })

  it('refuses amounts that are not positive whole centavos before calling', () => {
    expect(() => cobBody({ amountCents: 0, key: psp.merchantKey, expiresInSeconds: 60 })).toThrow(RangeError)
    expect(() => cobBody({ amountCents: 49.9, key: psp.merchantKey, expiresInSeconds: 60 })).toThrow(RangeError)
  })
})
