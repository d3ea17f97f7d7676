// Providers misbehaving (WhatsApp Cloud API through the fake Graph): a verification code asked while Meta answers
// 500, never answers, or answers slowly. The customer gets a Portuguese answer within 10 s, and the retry once Meta
// is back sends exactly one message.
import path from 'node:path'
import { startFakeGraph } from '../../src/server/test/fake-graph/fake-graph'
import {
  type AppProcess,
  baseEnv,
  type Cluster,
  call,
  check,
  log,
  prepare,
  startProcess,
  stopGracefully,
} from './harness'

const portuguese = /[ãõçáéíóúâê]|não|tente|indisponível|erro/i

export async function providersScenario(cluster: Cluster, dir: string): Promise<Record<string, string>> {
  const database = await prepare(cluster.url)
  const graph = await startFakeGraph({ templates: { codigo_verificacao: { bodyParams: 1, urlButton: true } } })
  let server: AppProcess | undefined
  const figures: Record<string, string> = {}
  try {
    server = await startProcess('server', baseEnv(cluster, path.join(dir, 'providers'), graph.env()))
    const faults: [string, () => void, boolean][] = [
      [
        'whatsapp_500',
        () => graph.failNext.push({ status: 500, code: 2, message: 'Service temporarily unavailable' }),
        false,
      ],
      ['whatsapp_hang', () => graph.stallNext.push({ mode: 'hang' }), false],
      ['whatsapp_slow_3s', () => graph.stallNext.push({ mode: 'slow', ms: 3000 }), true],
    ]
    let n = 0
    for (const [name, arm, succeeds] of faults) {
      n++
      const phone = `55859770${String(Date.now() % 100000).padStart(5, '0')}`.slice(0, 13)
      const ip = `10.99.0.${n}`
      arm()
      const first = await call(server.url, 'POST', '/api/whatsapp/send-code', { body: { phone_number: phone }, ip })
      figures[`${name}_ms`] = first.ms.toFixed(0)
      figures[`${name}_status`] = String(first.status)
      check(first.ms < 10_000, `${name}: answered after ${first.ms.toFixed(0)} ms`)
      const sent = () => graph.calls.filter((c) => c.id && c.body.to === phone).length
      if (succeeds) {
        check(first.status === 200, `${name}: ${first.status} ${JSON.stringify(first.body)}`)
        check(sent() === 1, `${name}: ${sent()} messages sent`)
        continue
      }
      const message = String((first.body as { message?: unknown })?.message ?? '')
      check(first.status >= 400 && first.status !== 500, `${name}: ${first.status} ${JSON.stringify(first.body)}`)
      check(portuguese.test(message), `${name}: message not in Portuguese: ${message}`)
      check(sent() === 0, `${name}: a message went out although the call failed`)
      // Meta back: the customer's retry sends one code.
      const retry = await call(server.url, 'POST', '/api/whatsapp/send-code', { body: { phone_number: phone }, ip })
      check(retry.status === 200, `${name} retry: ${retry.status} ${JSON.stringify(retry.body)}`)
      check(sent() === 1, `${name}: ${sent()} messages after the retry`)
      log(`providers: ${name} → ${first.status} in ${first.ms.toFixed(0)} ms: ${message}`)
    }
    return figures
  } catch (error) {
    if (server) console.error(`--- server (exit ${server.child.exitCode}):\n${server.output.slice(-25).join('\n')}`)
    throw error
  } finally {
    if (server) await stopGracefully(server)
    await graph.close()
    await database.close()
  }
}
