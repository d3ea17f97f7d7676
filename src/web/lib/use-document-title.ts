import { useEffect } from 'react'

const siteName = 'Atendimento Multicanal'
/** index.html's description, read once: pages without their own get it back instead of the previous page's. */
let defaultDescription: string | undefined

/** Sets the tab title ('{title} | Atendimento Multicanal') and the meta description (the site's default if omitted). */
export function useDocumentTitle(title: string, description?: string): void {
  useEffect(() => {
    document.title = title ? `${title} | ${siteName}` : siteName
  }, [title])
  useEffect(() => {
    let meta = document.querySelector<HTMLMetaElement>('meta[name="description"]')
    if (!meta) {
      meta = document.createElement('meta')
      meta.name = 'description'
      document.head.append(meta)
    }
    defaultDescription ??= meta.content
    meta.content = description ?? defaultDescription
  }, [description])
}
