// The prerenderer's entry (`vite build --ssr`, loaded by src/server/modules/site/prerender.ts): renders a public
// page to HTML with the state the browser then hydrates from.
import { QueryClient } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { prerenderToNodeStream } from 'react-dom/static'
import { StaticRouter } from 'react-router'
import { App } from '@/web/app/app'
import { type EmbeddedState, seedQueryClient, serializeState } from '@/web/app/embedded-state'
import { pageKind, routeModuleFor } from '@/web/app/router'
import '@/web/app/class-merge'
import { type DocumentHead, DocumentHeadContext } from '@/web/lib/use-document-title'

export { pageKind, serializeState, routeModuleFor }
export type { EmbeddedState }

export type Rendered = { html: string; head: DocumentHead }

export async function render(url: string, state: EmbeddedState): Promise<Rendered> {
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } },
  })
  seedQueryClient(queryClient, state)
  const head: DocumentHead = {}
  const { prelude } = await prerenderToNodeStream(
    <StrictMode>
      <DocumentHeadContext value={head}>
        <StaticRouter location={url}>
          <App queryClient={queryClient} />
        </StaticRouter>
      </DocumentHeadContext>
    </StrictMode>,
  )
  const chunks: Buffer[] = []
  for await (const chunk of prelude) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
  queryClient.clear()
  return { html: Buffer.concat(chunks).toString('utf8'), head }
}
