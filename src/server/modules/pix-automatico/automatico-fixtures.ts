// What the PIX Automático server tests share: the app on a real port with PIX_PROVIDER=api-pix and
// PIX_AUTOMATICO=true against the fake PSP (its callbacks must reach the app), plans and PIX settings in place, and
// a wait for every callback the fake has sent to be handled.
import type { AddressInfo } from 'node:net'
import { type FakePsp, startFakePsp } from '../../test/fake-psp/fake-psp'
import { createTestApp, type TestApp, type TestClock } from '../../test/test-app'
import { configurePix, seedPlans } from '../billing/test-fixtures'
import { pixCallbacksIdle } from '../pix/pix.routes'
import { automaticoCallbacksIdle } from './automatico.routes'
import { putRecWebhooks } from './rec-client'

/** Starts the fake PSP and the app listening on a port, with both PIX and PIX Automático webhooks registered. */
export async function startAutomaticoApp(clock: TestClock): Promise<{ t: TestApp; psp: FakePsp }> {
  const psp = await startFakePsp({ now: clock.now, callbackRetryDelayMs: 10 })
  const t = await createTestApp({
    env: { ...psp.env(), PIX_AUTOMATICO: 'true', PIX_AUTOMATICO_ACCOUNT: '0001:1234567:CORRENTE' },
    clock,
  })
  await seedPlans(t.database.db)
  await configurePix(t.database.db, { pixKey: psp.merchantKey })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/webhooks/pix`
  await t.app.ctx.pix?.putWebhook(psp.merchantKey, base)
  await putRecWebhooks(t.app.ctx.pix!, base)
  return { t, psp }
}

/** Waits until the fake PSP has no callback in flight and the app has handled every one it received. */
export async function settleCallbacks(t: TestApp, psp: FakePsp): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await psp.idle()
    await pixCallbacksIdle(t.app.ctx.db)
    await automaticoCallbacksIdle(t.app.ctx.db)
  }
}
