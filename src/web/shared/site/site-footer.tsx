import { Link } from 'react-router'
import { paths } from '@/web/app/paths'
import { cn } from '@/web/lib/cn'
import { useSiteConfig } from '@/web/lib/site-config'

/** The footer of shared pages (public site and dashboard): legal links and the company's registration. */
export function SiteFooter({ className }: { className?: string }) {
  const site = useSiteConfig()
  return (
    <footer className={cn('border-t border-border bg-muted/60 text-sm text-muted-foreground', className)}>
      {/* The bottom padding keeps the floating WhatsApp button from covering the last line on phones. */}
      <div className="mx-auto flex max-w-6xl flex-col gap-4 px-4 pb-24 pt-8 sm:px-6 md:pb-8">
        <nav aria-label="Documentos legais" className="flex flex-wrap gap-x-6 gap-y-2">
          <Link to={paths.privacy} className="font-medium text-foreground underline-offset-4 hover:underline">
            Política de Privacidade
          </Link>
          <Link to={paths.terms} className="font-medium text-foreground underline-offset-4 hover:underline">
            Termos de Serviço
          </Link>
        </nav>
        <div className="flex flex-col gap-1">
          <p className="font-semibold text-foreground">{site.companyLegalName.toLocaleUpperCase('pt-BR')}</p>
          <p>CNPJ: {site.companyCnpj}</p>
          <address className="not-italic">{site.companyAddress}</address>
        </div>
        <p className="text-xs">By {site.companyCredit}</p>
      </div>
    </footer>
  )
}
