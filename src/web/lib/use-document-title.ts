import { createContext, useContext, useEffect } from 'react'

const siteName = 'Atendimento Multicanal'
/** index.html's description, read once: pages without their own get it back instead of the previous page's. */
let defaultDescription: string | undefined

/** What the server's prerenderer collects while rendering a page: its title and description for the HTML head. */
export type DocumentHead = { title?: string; description?: string }
export const DocumentHeadContext = createContext<DocumentHead | null>(null)

export function fullTitle(title: string): string {
  return title ? `${title} | ${siteName}` : siteName
}

/** Sets the tab title ('{title} | Atendimento Multicanal') and the meta description (the site's default if omitted). */
export function useDocumentTitle(title: string, description?: string): void {
  const head = useContext(DocumentHeadContext)
  if (head) {
    head.title = fullTitle(title)
    head.description = description
  }
  useEffect(() => {
    document.title = fullTitle(title)
  }, [title])
  useEffect(() => {
    let meta = document.querySelector<HTMLMetaElement>('meta[name="description"]')
    if (!meta) {
      meta = document.createElement('meta')
      meta.name = 'description'
      document.head.append(meta)
    }
    // A prerendered page's meta carries its own description; the site's default is kept in data-default.
    defaultDescription ??= meta.dataset.default ?? meta.content
    meta.content = description ?? defaultDescription
  }, [description])
}
