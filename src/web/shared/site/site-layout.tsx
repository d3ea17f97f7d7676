import type * as React from 'react'
import { useSessionUser } from '@/web/lib/session'
import { Link } from 'react-router'
import { paths } from '@/web/app/paths'
import { Button } from '@/web/components/ui/button'
import { SiteFooter } from './site-footer'
import { SiteHeader } from './site-header'

/** A public page: header with its actions, the content, and the shared footer. */
export function SitePage({ actions, children }: { actions?: React.ReactNode; children: React.ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <a
        href="#conteudo"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded-md focus:bg-background focus:px-4 focus:py-2 focus:shadow"
      >
        Pular para o conteúdo
      </a>
      <SiteHeader>{actions}</SiteHeader>
      <main id="conteudo" tabIndex={-1} className="flex-1 focus:outline-none">
        {children}
      </main>
      <SiteFooter />
    </div>
  )
}

/** The plans page's header actions (the spec's 'Dashboard' or 'Login' / 'Cadastro'), reused by the legal pages. */
export function AccountLinks() {
  const { user, isLoading } = useSessionUser()
  if (isLoading) return <SessionPlaceholder labels={['Login', 'Cadastro']} />
  if (user) {
    return (
      <Button asChild size="sm">
        <Link to={paths.dashboard}>Dashboard</Link>
      </Button>
    )
  }
  return (
    <>
      <Button asChild size="sm" variant="ghost">
        <Link to={paths.login}>Login</Link>
      </Button>
      <Button asChild size="sm">
        <Link to={paths.signup}>Cadastro</Link>
      </Button>
    </>
  )
}

/**
 * Holds the header actions' place while the session loads (a returning visitor's page is prerendered without it):
 * invisible copies of the signed-out buttons, so nothing moves when the real ones arrive.
 */
export function SessionPlaceholder({ labels }: { labels: string[] }) {
  return (
    <span aria-hidden="true" className="invisible flex items-center gap-2">
      {labels.map((label, index) => (
        <Button key={label} asChild size="sm" variant={index === 0 && labels.length > 1 ? 'ghost' : 'default'}>
          <span>{label}</span>
        </Button>
      ))}
    </span>
  )
}
