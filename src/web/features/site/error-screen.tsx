import { Component, type ReactNode } from 'react'
import { useLocation } from 'react-router'

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}

/** The router-level fallback: the spec's heading, then the error text. */
export function RouteErrorScreen({ error }: { error: unknown }) {
  return (
    <main className="mx-auto flex min-h-dvh max-w-2xl flex-col justify-center gap-4 p-6">
      <h1 className="text-2xl font-bold">Unexpected Application Error!</h1>
      <pre className="whitespace-pre-wrap rounded-md bg-muted p-4 text-sm text-destructive">{errorText(error)}</pre>
      <a href="/" className="text-primary underline">
        Voltar para o início
      </a>
    </main>
  )
}

type BoundaryProps = { pathname: string; children: ReactNode; withError?: ReactNode }

class ErrorBoundary extends Component<BoundaryProps, { error: unknown; at?: string }> {
  override state: { error: unknown; at?: string } = { error: null }
  static getDerivedStateFromError(error: unknown) {
    return { error: error ?? new Error('Erro desconhecido') }
  }
  override componentDidCatch() {
    this.setState({ at: this.props.pathname })
  }
  override componentDidUpdate() {
    // Navigating elsewhere (the browser's back button) leaves the error screen.
    if (this.state.error && this.state.at !== undefined && this.state.at !== this.props.pathname)
      this.setState({ error: null, at: undefined })
  }
  override render() {
    if (!this.state.error) return this.props.children
    return (
      <>
        <RouteErrorScreen error={this.state.error} />
        {this.props.withError}
      </>
    )
  }
}

/** Catches what a page throws while rendering or loading (a chunk that fails to download) and shows the screen. */
export function RouteErrorBoundary({ children, withError }: { children: ReactNode; withError?: ReactNode }) {
  return (
    <ErrorBoundary pathname={useLocation().pathname} withError={withError}>
      {children}
    </ErrorBoundary>
  )
}

/** Shown instead of a blank page when the app cannot start (API unreachable or misconfigured). */
export function StartupErrorPage({ message }: { message: string }) {
  return (
    <main className="mx-auto flex min-h-dvh max-w-2xl flex-col justify-center gap-4 p-6">
      <h1 className="text-2xl font-bold">Não foi possível iniciar o aplicativo</h1>
      <p role="alert" className="rounded-md bg-muted p-4 text-destructive">
        {message}
      </p>
      <button type="button" className="self-start text-primary underline" onClick={() => window.location.reload()}>
        Tentar novamente
      </button>
    </main>
  )
}
