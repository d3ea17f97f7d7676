import type * as React from 'react'
import { AccountLinks, SitePage } from '@/web/shared/site/site-layout'

export const legalLastUpdated = '01/10/2025'

export type LegalSection = { id: string; title: string; body: React.ReactNode }

/** Shared layout of the privacy policy and the terms: title, date, table of contents, numbered sections. */
export function LegalDocument({
  title,
  intro,
  sections,
}: {
  title: string
  intro: React.ReactNode
  sections: LegalSection[]
}) {
  return (
    <SitePage actions={<AccountLinks />}>
      <article className="mx-auto max-w-3xl px-4 py-10 sm:px-6 md:py-14">
        <header className="flex flex-col gap-2 border-b border-border pb-6">
          <h1 className="text-3xl font-bold tracking-tight">{title}</h1>
          <p className="text-sm text-muted-foreground">Última atualização: {legalLastUpdated}</p>
        </header>
        <div className="mt-6 flex flex-col gap-4 leading-relaxed">{intro}</div>
        <nav aria-label="Sumário" className="mt-8 rounded-lg border border-border bg-muted/50 p-5">
          <h2 className="text-base font-semibold">Sumário</h2>
          <ol className="mt-3 flex list-decimal flex-col gap-1.5 pl-5 text-sm">
            {sections.map((section) => (
              <li key={section.id}>
                <a href={`#${section.id}`} className="text-primary underline-offset-4 hover:underline">
                  {section.title}
                </a>
              </li>
            ))}
          </ol>
        </nav>
        {sections.map((section, index) => (
          <section
            key={section.id}
            id={section.id}
            aria-labelledby={`${section.id}-titulo`}
            className="mt-10 scroll-mt-6"
          >
            <h2 id={`${section.id}-titulo`} className="text-xl font-semibold tracking-tight">
              {index + 1}. {section.title}
            </h2>
            <div className="mt-3 flex flex-col gap-3 leading-relaxed [&_li]:pl-1 [&_ol]:list-[lower-alpha] [&_ol]:pl-6 [&_ul]:list-disc [&_ul]:pl-6 [&_ul,&_ol]:flex [&_ul,&_ol]:flex-col [&_ul,&_ol]:gap-2">
              {section.body}
            </div>
          </section>
        ))}
      </article>
    </SitePage>
  )
}

/** '5585999990000' → '+55 (85) 99999-0000'; other shapes are shown with a plus sign only. */
export function formatPhone(digits: string): string {
  const match = /^55(\d{2})(\d{4,5})(\d{4})$/.exec(digits)
  if (!match) return `+${digits}`
  return `+55 (${match[1]}) ${match[2]}-${match[3]}`
}
