import { isRouteErrorResponse, useRouteError } from 'react-router'

function errorText(error: unknown): string {
  if (isRouteErrorResponse(error)) return `${error.status} ${error.statusText}`
  if (error instanceof Error) return error.message
  return String(error)
}

/** The router-level fallback: the spec's heading, then the error text. */
export function RouteErrorScreen() {
  const error = useRouteError()
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
