// BR Code ("PIX copia e cola") generation throughput: informative, no target.
import { buildPixBrCode } from '../src/domain/pix'

export function pixPayloadBenchmark(iterations = 200_000): { perSecond: number; microsPerCode: number } {
  const input = {
    key: 'financeiro@atendimento.example.com.br',
    beneficiaryName: 'Atendimento Multicanal Ltda',
    beneficiaryCity: 'Itaitinga',
    description: 'Assinatura Profissional',
  }
  let length = 0
  for (let i = 0; i < 1_000; i++)
    length += buildPixBrCode({ ...input, amountCents: 19_900 + i, txid: `ASS${i}` }).length
  const started = performance.now()
  for (let i = 0; i < iterations; i++) {
    length += buildPixBrCode({ ...input, amountCents: 19_900 + (i % 1000), txid: `ASS${i}` }).length
  }
  const ms = performance.now() - started
  if (length === 0) throw new Error('unreachable: keeps the loop from being optimised away')
  return { perSecond: Math.round((iterations / ms) * 1000), microsPerCode: (ms * 1000) / iterations }
}
