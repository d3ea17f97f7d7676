import { useEffect } from 'react'
import { Link, useLocation } from 'react-router'
import { useDocumentTitle } from '@/web/lib/use-document-title'

export function NotFoundPage() {
  useDocumentTitle('Página não encontrada', 'O endereço acessado não existe.')
  const location = useLocation()
  useEffect(() => {
    console.error('404 Error: User attempted to access non-existent route:', location.pathname)
  }, [location.pathname])
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center gap-4 p-6 text-center">
      <h1 className="text-5xl font-bold">404</h1>
      <p className="text-xl text-muted-foreground">Oops! Page not found</p>
      <Link to="/" className="text-primary underline">
        Return to Home
      </Link>
    </main>
  )
}
