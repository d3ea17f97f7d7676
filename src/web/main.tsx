import { StrictMode } from 'react'
import { createRoot, hydrateRoot } from 'react-dom/client'
import { BrowserRouter } from 'react-router'
import { ApiError } from './lib/api'
import { App } from './app/app'
import { readEmbeddedState, seedQueryClient } from './app/embedded-state'
import { createQueryClient } from './app/query-client'
import { StartupErrorPage } from './features/site/error-screen'
import { siteConfigQuery } from './features/site/site-config'
import { sessionQuery } from './features/auth/session'
import './styles.css'

const container = document.getElementById('root') as HTMLElement
const queryClient = createQueryClient()

function app() {
  return (
    <StrictMode>
      <BrowserRouter>
        <App queryClient={queryClient} />
      </BrowserRouter>
    </StrictMode>
  )
}

async function start() {
  const state = readEmbeddedState()
  if (state) {
    seedQueryClient(queryClient, state)
    // The server's HTML is on screen already: take it over. The session (when the visitor has a cookie) loads
    // after, into the header's reserved space.
    if (state.prerendered) hydrateRoot(container, app())
    else createRoot(container).render(app())
    return
  }
  // A page served without the server's state (the Vite dev server): load what every page needs first.
  const root = createRoot(container)
  try {
    await Promise.all([queryClient.fetchQuery(siteConfigQuery()), queryClient.prefetchQuery(sessionQuery())])
  } catch (error) {
    const message = error instanceof ApiError ? error.detail : 'Não foi possível carregar a configuração do aplicativo.'
    root.render(<StartupErrorPage message={message} />)
    return
  }
  root.render(app())
}

void start()
