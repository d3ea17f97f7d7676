import { useState, useSyncExternalStore } from 'react'
import { z } from 'zod'
import { okSchema } from '@/domain/contracts/auth'
import { PasswordField } from '@/web/components/password-field'
import { DialogActions, DialogFrame } from '@/web/components/ui/dialog-frame'
import { ApiError, api } from '@/web/lib/api'

// Step-up re-authentication. Role changes and the PIX key or beneficiary answer 403 `reauthentication_required`
// unless the password was confirmed in the last 5 minutes: `withReauthentication` then asks for it in a dialog
// (<ReauthenticationDialog />, mounted once in the dashboard) and repeats the request.

type Pending = { resolve: (confirmed: boolean) => void }
let pending: Pending | null = null
const listeners = new Set<() => void>()

function setPending(next: Pending | null) {
  pending = next
  for (const listener of listeners) listener()
}

function ask(): Promise<boolean> {
  pending?.resolve(false)
  return new Promise((resolve) => setPending({ resolve }))
}

/** Runs `request`; if the server wants the password again, asks for it once and repeats the request. */
export async function withReauthentication<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request()
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'reauthentication_required') throw error
    if (!(await ask())) throw error
    return request()
  }
}

const passwordSchema = z.string().min(1, 'Informe sua senha.')

export function ReauthenticationDialog() {
  const current = useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => pending,
    // Rendered on the server (the dashboard's home): nothing is waiting for a password there.
    () => null,
  )
  const [password, setPassword] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  function finish(confirmed: boolean) {
    current?.resolve(confirmed)
    setPending(null)
    setPassword('')
    setError(null)
  }

  async function submit(event: React.FormEvent) {
    event.preventDefault()
    const parsed = passwordSchema.safeParse(password)
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'Informe sua senha.')
      return
    }
    setBusy(true)
    try {
      await api.post('/api/auth/reauthenticate', { password: parsed.data }, okSchema)
      finish(true)
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.detail : 'Ocorreu um erro desconhecido')
    } finally {
      setBusy(false)
    }
  }

  return (
    <DialogFrame
      open={current !== null}
      onOpenChange={(open) => !open && finish(false)}
      busy={busy}
      title="Confirme sua identidade"
      description="Por segurança, confirme sua senha para continuar. A confirmação vale por 5 minutos."
      className="max-w-md"
    >
      <form id="reauth-form" noValidate onSubmit={submit} className="flex flex-col gap-2">
        <PasswordField id="reauth-password" value={password} onChange={setPassword} error={error} />
      </form>
      <DialogActions onBack={() => finish(false)} pending={busy} action="Confirmar" form="reauth-form" />
    </DialogFrame>
  )
}
