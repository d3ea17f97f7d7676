import { useDocumentTitle } from '@/web/lib/use-document-title'
import { LegalDocument } from './legal-document'
import { privacyPolicy } from './privacy-policy'
import { useSiteConfig } from '@/web/lib/site-config'
import { termsOfService } from './terms-of-service'

export function PrivacyPolicyPage() {
  useDocumentTitle(
    'Política de Privacidade',
    'Como tratamos seus dados pessoais, com quais finalidades e bases legais, e como exercer seus direitos (LGPD).',
  )
  const { intro, sections } = privacyPolicy(useSiteConfig())
  return <LegalDocument title="Política de Privacidade" intro={intro} sections={sections} />
}

export function TermsOfServicePage() {
  useDocumentTitle(
    'Termos de Serviço',
    'Regras de contratação e uso dos planos de assinatura: cobrança mensal, PIX e cartão, cancelamento e upgrade.',
  )
  const { intro, sections } = termsOfService(useSiteConfig())
  return <LegalDocument title="Termos de Serviço" intro={intro} sections={sections} />
}
