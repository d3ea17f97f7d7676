import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { type SiteConfig, siteConfigSchema } from '../../../domain/contracts/site'
import type { Config } from '../../config'

/** The public site configuration: answered by the API and embedded in every page (prerender.ts). */
export function publicSiteConfig(c: Config): SiteConfig {
  return {
    supportWhatsapp: c.SUPPORT_WHATSAPP,
    chatPlatformUrl: c.CHAT_PLATFORM_URL,
    companyLegalName: c.COMPANY_LEGAL_NAME,
    companyCnpj: c.COMPANY_CNPJ,
    companyAddress: c.COMPANY_ADDRESS,
    companyCredit: c.COMPANY_CREDIT,
    cardMode: c.STRIPE_SECRET_KEY ? 'stripe' : 'simulator',
    pixProvider: c.PIX_PROVIDER,
    pixAutomatico: c.PIX_PROVIDER === 'api-pix' && c.PIX_AUTOMATICO === true,
  }
}

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
    async () => publicSiteConfig(app.ctx.config),
  )
}
