import { StrictMode, startTransition } from 'react'
import { BrowserRouter } from 'react-router'
import { ApiError } from '@/web/lib/api'
import { App } from '@/web/app/app'
import { readEmbeddedState, seedQueryClient } from '@/web/app/embedded-state'
import { createQueryClient } from '@/web/app/query-client'
import { whenPageHydrated } from '@/web/app/page-hydrated'
import { preloadPage } from '@/web/app/router'
import { StartupErrorPage } from '@/web/features/site/error-screen'
import { siteConfigQuery } from '@/web/lib/site-config'
import { sessionQuery } from '@/web/lib/session'
import './styles.css'

const container = document.getElementById('root') as HTMLElement
const queryClient = createQueryClient()

// A prerendered page is on screen before React listens (its code is still loading). A submit then (Enter in the
// password field on a slow connection) must not go out as a native GET with the fields in the URL (the credential
// forms also say method="post" for the moment before any script runs), and a button pressed then should still act:
// both are held and replayed once the page is hydrated. The prerendered pages hold them from their first paint, in
// their inline loader (server/modules/site/after-paint.ts: `window.__early`), before this code is even requested;
// elsewhere (the dashboard's shell, the dev server) this code holds them itself. From hydrateRoot on, React handles
// events itself.
type Early = {
  click: HTMLElement | null
  submit: { form: HTMLFormElement; submitter: HTMLElement | null } | null
  done: boolean
}
const early: Early = (window as { __early?: Early }).__early ?? holdEarlyEvents()

function holdEarlyEvents(): Early {
  const held: Early = { click: null, submit: null, done: false }
  document.addEventListener(
    'click',
    (event) => {
      if (held.done || !(event.target instanceof Element)) return
      const target = event.target.closest<HTMLElement>('button, [role="button"]')
      if (target) held.click = target
    },
    true,
  )
  document.addEventListener(
    'submit',
    (event) => {
      if (held.done) return
      event.preventDefault()
      held.submit = { form: event.target as HTMLFormElement, submitter: (event as SubmitEvent).submitter }
    },
    true,
  )
  return held
}

// Once the routed page is hydrated (app/page-hydrated.tsx): replay what was held, and mark the page.
whenPageHydrated(() => {
  const click = early.click
  const submit = early.submit
  early.click = null
  early.submit = null
  if (click?.isConnected) click.click()
  else if (submit?.form.isConnected) submit.form.requestSubmit(submit.submitter)
  // A mark for the browser tests (and anyone scripting the page): React handles events from here on.
  document.documentElement.setAttribute('data-hydrated', '')
})

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
  // React's DOM renderer is evaluated in a task of its own, after this module's: one long task split in two.
  const { createRoot, hydrateRoot } = await import('@/web/app/dom-renderer')
  const state = readEmbeddedState()
  if (state) {
    seedQueryClient(queryClient, state)
    // The server's HTML is on screen already: take it over. The session (when the visitor has a cookie) loads
    // after, into the header's reserved space.
    if (state.prerendered) {
      // Its chunks are preloaded by the page's <link rel="modulepreload">: hydrate once they are here, in one pass.
      await preloadPage(window.location.pathname, state.session?.isAdmin).catch(() => undefined)
      early.done = true
      // Hydrating in a transition lets React yield to the browser every few milliseconds instead of one long task
      // (Lighthouse's TBT). An event on a part not hydrated yet makes React finish hydrating at once, then handles it.
      startTransition(() => {
        hydrateRoot(container, app())
      })
    } else {
      early.done = true
      createRoot(container).render(app())
    }
    return
  }
  // A page served without the server's state (the Vite dev server): load what every page needs first.
  early.done = true
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
