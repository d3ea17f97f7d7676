import { z } from 'zod'

export const siteConfigSchema = z
  .object({
    supportWhatsapp: z.string(),
    chatPlatformUrl: z.string(),
    companyLegalName: z.string(),
    companyCnpj: z.string(),
    companyAddress: z.string(),
    companyCredit: z.string(),
    cardMode: z.enum(['stripe', 'simulator']),
    /** 'api-pix': PIX payments are confirmed automatically through the PSP. */
    pixProvider: z.enum(['manual', 'api-pix']).optional(),
    /** PIX_AUTOMATICO=true: checkout offers PIX Automático (monthly debit after one authorisation). */
    pixAutomatico: z.boolean().optional(),
  })
  .meta({ id: 'SiteConfig' })
export type SiteConfig = z.infer<typeof siteConfigSchema>
