import { useEffect, useRef } from 'react'
import { Link, Navigate, Outlet, useLocation } from 'react-router'
import { loadToast } from '@/web/app/lazy-toaster'
import { paths } from '@/web/app/paths'
import { errorText } from '@/domain/errors'
import { Button } from '@/web/components/ui/button'
import { Spinner } from '@/web/components/ui/states'
import { toasts } from '@/web/lib/toasts'
import { useSessionUser } from '@/web/lib/session'

/** Dashboard routes need a session: otherwise the spec's toast and /login (coming back afterwards). */
export function RequireUser() {
  const { user, isLoading } = useSessionUser()
  const location = useLocation()
  const warned = useRef(false)
  useEffect(() => {
    if (!isLoading && !user && !warned.current) {
      warned.current = true
      const { error, description } = toasts.accessUnauthorized
      void loadToast().then((toast) => toast.error(error, { description }))
    }
  }, [isLoading, user])
  if (isLoading) return <Spinner />
  if (!user) {
    const next = `${location.pathname}${location.search}`
    return <Navigate to={`${paths.login}?next=${encodeURIComponent(next)}`} replace />
  }
  return <Outlet />
}

/** Admin routes additionally need the admin role (the API checks it again on every call). */
export function RequireAdmin() {
  const { user, isLoading } = useSessionUser()
  const warned = useRef(false)
  const denied = !isLoading && user && !user.isAdmin
  useEffect(() => {
    if (denied && !warned.current) {
      warned.current = true
      const { error, description } = toasts.accessDenied
      void loadToast().then((toast) => toast.error(error, { description }))
    }
  }, [denied])
  if (isLoading) return <Spinner />
  if (!user) return <Navigate to={paths.login} replace />
  if (!user.isAdmin) return <Navigate to={paths.dashboard} replace />
  if (user.mustEnableTwoFactor) return <TwoFactorSetupRequired />
  return <Outlet />
}

/** ADMIN_MFA=required and no two-factor yet: the admin API answers 403 until it is enabled in 'Minha conta'. */
function TwoFactorSetupRequired() {
  return (
    <div role="alert" className="mx-auto flex max-w-xl flex-col items-start gap-4 rounded-lg border border-border p-6">
      <h1 className="text-xl font-semibold tracking-tight">Verificação em duas etapas obrigatória</h1>
      <p className="text-muted-foreground">{errorText.two_factor_setup_required}</p>
      <Button asChild>
        <Link to={paths.account}>Ir para Minha conta</Link>
      </Button>
    </div>
  )
}
