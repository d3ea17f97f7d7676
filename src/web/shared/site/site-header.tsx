import type * as React from 'react'
import { Link } from 'react-router'
import { paths } from '@/web/app/paths'
import { brandName, LogoMark } from './logo'

/** The header of public pages: the logo (a link home) and the page's own actions on the right. */
export function SiteHeader({ children }: { children?: React.ReactNode }) {
  return (
    <header className="border-b border-border bg-background/95">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-3 px-4 sm:px-6">
        <Link
          to={paths.home}
          className="flex min-w-0 items-center gap-2 rounded-md font-semibold text-foreground"
          aria-label={`${brandName} — página inicial`}
        >
          <LogoMark />
          <span className="text-sm leading-tight sm:text-lg">{brandName}</span>
        </Link>
        {children ? (
          <nav aria-label="Conta" className="flex shrink-0 items-center gap-2">
            {children}
          </nav>
        ) : null}
      </div>
    </header>
  )
}
