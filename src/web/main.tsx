import { QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { RouterProvider } from 'react-router'
import { Toaster } from 'sonner'
import { ApiError } from './lib/api'
import { createQueryClient } from './app/query-client'
import { createRouter } from './app/router'
import { StartupErrorPage } from './features/site/error-screen'
import { siteConfigQuery } from './lib/site-config'
import { sessionQuery } from './lib/session'
import { WhatsAppButton } from './features/site/whatsapp-button'
import './styles.css'

const root = createRoot(document.getElementById('root') as HTMLElement)
const queryClient = createQueryClient()

async function start() {
  try {
    // Both are needed by every page: load them before the first paint so nothing flickers.
    await Promise.all([queryClient.fetchQuery(siteConfigQuery()), queryClient.prefetchQuery(sessionQuery())])
  } catch (error) {
    const message = error instanceof ApiError ? error.detail : 'Não foi possível carregar a configuração do aplicativo.'
    root.render(<StartupErrorPage message={message} />)
    return
  }
  const router = createRouter()
  root.render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
        <WhatsAppButton />
        <Toaster position="top-right" richColors closeButton visibleToasts={1} duration={5000} />
      </QueryClientProvider>
    </StrictMode>,
  )
}

void start()
