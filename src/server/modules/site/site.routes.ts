import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { siteConfigSchema } from '../../../domain/contracts/site'

export const publicConfigRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/site-config',
    {
      schema: {
        tags: ['site'],
        summary: 'Dados públicos da empresa (rodapé, botão de WhatsApp, plataforma de chat)',
        response: { 200: siteConfigSchema },
      },
    },
    async () => {
      const c = app.ctx.config
      return {
        supportWhatsapp: c.SUPPORT_WHATSAPP,
        chatPlatformUrl: c.CHAT_PLATFORM_URL,
        companyLegalName: c.COMPANY_LEGAL_NAME,
        companyCnpj: c.COMPANY_CNPJ,
        companyAddress: c.COMPANY_ADDRESS,
        companyCredit: c.COMPANY_CREDIT,
        cardMode: c.STRIPE_SECRET_KEY ? ('stripe' as const) : ('simulator' as const),
        pixProvider: c.PIX_PROVIDER,
        pixAutomatico: c.PIX_PROVIDER === 'api-pix' && c.PIX_AUTOMATICO === true,
      }
    },
  )
}
