import type * as React from 'react'
import { Card, CardContent, CardDescription, CardFooter, CardHeader } from '@/web/components/ui/card'
import { cn } from '@/web/lib/cn'
import { SitePage } from '@/web/shared/site/site-layout'

/** The frame of the account pages (sign-in, sign-up, password): the site's header and footer around one card. */
export function AuthCard({
  title,
  description,
  footer,
  className,
  children,
}: {
  title: string
  description?: React.ReactNode
  footer?: React.ReactNode
  className?: string
  children: React.ReactNode
}) {
  return (
    <SitePage>
      <div className={cn('mx-auto w-full max-w-md px-4 py-8 sm:py-14', className)}>
        <Card>
          <CardHeader>
            <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
            {description ? <CardDescription>{description}</CardDescription> : null}
          </CardHeader>
          <CardContent className="flex flex-col gap-5">{children}</CardContent>
          {footer ? (
            <CardFooter className="flex-col items-stretch gap-2 border-t border-border pt-6 text-center text-sm">
              {footer}
            </CardFooter>
          ) : null}
        </Card>
      </div>
    </SitePage>
  )
}

/** A notice inside an account card: 'success' is announced politely, 'error' at once. */
export function Notice({
  tone,
  title,
  children,
}: {
  tone: 'success' | 'error' | 'info'
  title?: string
  children?: React.ReactNode
}) {
  return (
    <div
      role={tone === 'error' ? 'alert' : 'status'}
      className={cn(
        'flex flex-col gap-2 rounded-md border p-3 text-sm',
        tone === 'success' && 'border-primary/40 bg-accent text-accent-foreground',
        tone === 'error' && 'border-destructive/40 bg-destructive/5 text-destructive',
        tone === 'info' && 'border-border bg-muted text-foreground',
      )}
    >
      {title ? <p className="font-semibold">{title}</p> : null}
      {children}
    </div>
  )
}

/** Links under the card, styled alike on every account page. */
export const linkClass = 'font-medium text-primary underline-offset-4 hover:underline'
