import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { DomainError } from '../../../domain/errors'
import { checkoutPage, notFoundPage, receiptPage } from './card-simulator.page'
import { approveSession, declineSession, findOwnSession, type SimulatorDeps } from './card-simulator.service'
import { checkoutUrls } from './stripe-gateway'
import { findCardReceipt } from './stripe.repo'

const sessionParams = z.object({ sessionId: z.string().regex(/^cs_sim_[A-Za-z0-9_-]{16,64}$/) })
const receiptParams = z.object({ invoiceId: z.string().regex(/^in_sim_[A-Za-z0-9_-]{16,64}$/) })

/**
 * The card simulator's pages (GET page, POST approve/decline, GET receipt). Each session belongs to the user
 * who started it: another account's cookie gets the not-found page. The forms post from our own origin, which
 * the Origin check and SameSite cookies already require of every write.
 */
export const cardSimulatorRoutes: FastifyPluginAsyncZod = async (app) => {
  const deps: SimulatorDeps = { config: app.ctx.config, db: app.ctx.db, now: () => app.ctx.now() }
  const appUrl = app.ctx.config.appUrl
  const plansUrl = `${appUrl}/plans`

  // Plain HTML forms post application/x-www-form-urlencoded; they carry no field we read.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))))
  })

  app.addHook('onRequest', async () => {
    if (app.ctx.config.NODE_ENV === 'production') throw new DomainError('simulator_disabled')
  })

  async function html(reply: FastifyReply, status: number, body: string) {
    return reply.status(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(body)
  }

  async function currentUserId(request: FastifyRequest, reply: FastifyReply) {
    return (await app.loadUser(request, reply))?.id ?? null
  }

  const hidden = { hide: true, tags: ['dev'] }

  app.get(
    '/api/dev/card-simulator/:sessionId',
    { schema: { ...hidden, params: sessionParams } },
    async (request, reply) => {
      const userId = await currentUserId(request, reply)
      const session = userId ? await findOwnSession(deps, userId, request.params.sessionId) : null
      if (!session) return html(reply, 404, notFoundPage(plansUrl))
      return html(reply, 200, checkoutPage(session, { plans: plansUrl, success: checkoutUrls(appUrl).success }))
    },
  )

  app.post(
    '/api/dev/card-simulator/:sessionId/approve',
    { schema: { ...hidden, params: sessionParams } },
    async (request, reply) => {
      const userId = await currentUserId(request, reply)
      const target = userId ? await approveSession(deps, userId, request.params.sessionId) : null
      if (!target) return html(reply, 404, notFoundPage(plansUrl))
      return reply.redirect(target, 302)
    },
  )

  app.post(
    '/api/dev/card-simulator/:sessionId/decline',
    { schema: { ...hidden, params: sessionParams } },
    async (request, reply) => {
      const userId = await currentUserId(request, reply)
      const target = userId ? await declineSession(deps, userId, request.params.sessionId) : null
      if (!target) return html(reply, 404, notFoundPage(plansUrl))
      return reply.redirect(target, 302)
    },
  )

  app.get(
    '/api/dev/card-simulator/receipts/:invoiceId',
    { schema: { ...hidden, params: receiptParams } },
    async (request, reply) => {
      const user = await app.loadUser(request, reply)
      const receipt = user ? await findCardReceipt(app.ctx.db, request.params.invoiceId) : null
      // The payer and admins may see a receipt; for anyone else it does not exist.
      if (!user || !receipt || (receipt.userId !== user.id && !user.isAdmin)) {
        return html(reply, 404, notFoundPage(plansUrl, 'receipt'))
      }
      return html(
        reply,
        200,
        receiptPage({
          invoiceId: request.params.invoiceId,
          planName: receipt.planName,
          customerName: receipt.customerName,
          customerEmail: receipt.customerEmail,
          amountCents: receipt.payment.amountCents,
          paidAt: receipt.payment.paidAt ?? receipt.payment.createdAt,
          type: receipt.payment.type,
        }),
      )
    },
  )
}
