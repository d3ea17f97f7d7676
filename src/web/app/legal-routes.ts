// The lazily loaded legal texts (long prose nobody needs on the landing page).
export { PrivacyPolicyPage, TermsOfServicePage } from '@/web/features/site/legal-pages'
