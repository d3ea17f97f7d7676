// The prerenderer's entry (`vite build --ssr`, loaded by src/server/modules/site/prerender.ts): renders a public
// page, or the dashboard's home for its signed-in user, to HTML with the state the browser then hydrates from.
import { QueryClient } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { prerenderToNodeStream } from 'react-dom/static'
import { StaticRouter } from 'react-router'
import { App } from '@/web/app/app'
import { type EmbeddedState, seedQueryClient, serializeState } from '@/web/app/embedded-state'
import { firstQueriesFor } from '@/web/app/first-queries'
import { pageKind, preloadPage, routeModuleFor } from '@/web/app/router'
import '@/web/app/class-merge'
import { type DocumentHead, DocumentHeadContext } from '@/web/lib/use-document-title'

export { firstQueriesFor, pageKind, serializeState, routeModuleFor }
export type { EmbeddedState }

export type Rendered = { html: string; head: DocumentHead }

export async function render(url: string, state: EmbeddedState): Promise<Rendered> {
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } },
  })
  seedQueryClient(queryClient, state)
  // The page's chunks loaded first, as main.tsx does before hydrating: a lazy part still loading would be rendered
  // out of order (a <template> and an inline script that the CSP refuses).
  await preloadPage(new URL(url, 'http://page').pathname, state.session?.isAdmin)
  const head: DocumentHead = {}
  // A part that fails on the server would come as a client-rendered hole (React's error #419 in the browser): the
  // page is not served rendered then (the caller logs the error and sends the shell).
  const errors: unknown[] = []
  const { prelude } = await prerenderToNodeStream(
    <StrictMode>
      <DocumentHeadContext value={head}>
        <StaticRouter location={url}>
          <App queryClient={queryClient} />
        </StaticRouter>
      </DocumentHeadContext>
    </StrictMode>,
    // Never outline a large Suspense boundary (React would send it after the rest, revealed by an inline script the
    // CSP refuses): the page is sent whole anyway.
    { onError: (error) => void errors.push(error), progressiveChunkSize: Number.POSITIVE_INFINITY },
  )
  const chunks: Buffer[] = []
  for await (const chunk of prelude) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
  queryClient.clear()
  if (errors.length > 0) throw errors[0]
  return { html: Buffer.concat(chunks).toString('utf8'), head }
}
