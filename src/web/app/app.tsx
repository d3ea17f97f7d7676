import { type QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { useLocation } from 'react-router'
import { WhatsAppButton } from '@/web/features/site/whatsapp-button'
import { LazyToaster } from './lazy-toaster'
import { paths } from './paths'
import { AppRoutes } from './router'

/** Pages that toast by themselves load sonner at once; elsewhere it loads with a first toast. */
const toastingPages = new Set<string>([paths.login, paths.signup, paths.forgotPassword, paths.resetPassword])

function Toasts() {
  const { pathname } = useLocation()
  const eager = toastingPages.has(pathname) || pathname.startsWith(paths.dashboard)
  return <LazyToaster eager={eager} />
}

/** The whole app under a router (BrowserRouter in main.tsx, StaticRouter in entry-server.tsx). */
export function App({ queryClient }: { queryClient: QueryClient }) {
  return (
    <QueryClientProvider client={queryClient}>
      <AppRoutes />
      <WhatsAppButton />
      <Toasts />
    </QueryClientProvider>
  )
}
