import { useMutation, useQueryClient } from '@tanstack/react-query'
import { ShieldCheck } from 'lucide-react'
import { useState } from 'react'
import { backupCodesSchema, okSchema, type SessionUser, twoFactorEnrolmentSchema } from '@/domain/contracts/auth'
import { Badge } from '@/web/components/ui/badge'
import { OneTimeCodeField, PasswordField } from '@/web/components/password-field'
import { QrCode } from '@/web/components/qr-code'
import { Button } from '@/web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader } from '@/web/components/ui/card'
import { DialogFooter } from '@/web/components/ui/dialog'
import { DialogActions, DialogFrame } from '@/web/components/ui/dialog-frame'
import { ApiError, api } from '@/web/lib/api'
import { Notice } from '@/web/shared/auth/auth-card'
import { sessionQuery } from '@/web/lib/session'
import { passwordError, readTotpCode, twoFactorInlineCodes as inline, twoFactorTexts as texts } from './two-factor-form'

function detailOf(error: unknown): string {
  return error instanceof ApiError ? error.detail : 'Ocorreu um erro desconhecido'
}

function useRefreshSession() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: sessionQuery().queryKey })
}

/** 'Verificação em duas etapas' on the account page: enrol (QR and key), recovery codes, disable. */
export function TwoFactorCard({ user }: { user: SessionUser }) {
  const [dialog, setDialog] = useState<'enable' | 'disable' | 'codes' | null>(null)
  return (
    <Card>
      <CardHeader>
        <div className="flex flex-wrap items-center gap-2">
          <h2 className="text-xl font-semibold leading-none tracking-tight">Verificação em duas etapas</h2>
          {user.twoFactorEnabled ? <Badge>Ativa</Badge> : <Badge variant="outline">Desativada</Badge>}
        </div>
        <CardDescription>
          Além da senha, o login pede um código de 6 dígitos do seu aplicativo autenticador (Google Authenticator,
          Microsoft Authenticator, 1Password ou outro).
        </CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {user.mustEnableTwoFactor ? (
          <Notice tone="info" title="Obrigatória para administradores">
            Ative a verificação em duas etapas para acessar o painel administrativo.
          </Notice>
        ) : null}
        {user.twoFactorEnabled ? (
          <div className="flex flex-wrap gap-2">
            <Button variant="outline" onClick={() => setDialog('codes')}>
              Gerar novos códigos de recuperação
            </Button>
            <Button variant="outline" onClick={() => setDialog('disable')}>
              Desativar
            </Button>
          </div>
        ) : (
          <Button className="self-start" onClick={() => setDialog('enable')}>
            <ShieldCheck aria-hidden="true" />
            Ativar verificação em duas etapas
          </Button>
        )}
      </CardContent>
      {dialog === 'enable' ? <EnableDialog onClose={() => setDialog(null)} /> : null}
      {dialog === 'disable' ? <DisableDialog onClose={() => setDialog(null)} /> : null}
      {dialog === 'codes' ? <NewCodesDialog onClose={() => setDialog(null)} /> : null}
    </Card>
  )
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  const [copied, setCopied] = useState(false)
  return (
    <div className="flex flex-col gap-3">
      <Notice tone="info" title="Guarde seus códigos de recuperação">
        Cada código vale uma vez, no lugar do código do aplicativo, se você perder o celular. Eles não serão mostrados
        novamente.
      </Notice>
      <ul
        aria-label="Códigos de recuperação"
        className="grid grid-cols-2 gap-2 rounded-md bg-muted p-3 font-mono text-sm"
      >
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <Button
        variant="outline"
        className="self-start"
        onClick={() => {
          void navigator.clipboard?.writeText(codes.join('\n')).then(() => setCopied(true))
        }}
      >
        {copied ? 'Códigos copiados' : 'Copiar códigos'}
      </Button>
    </div>
  )
}

function EnableDialog({ onClose }: { onClose: () => void }) {
  const refresh = useRefreshSession()
  const [password, setPassword] = useState('')
  const [code, setCode] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [done, setDone] = useState(false)
  const start = useMutation({
    mutationFn: (value: string) =>
      api.post('/api/auth/two-factor/enable', { password: value }, twoFactorEnrolmentSchema),
    onError: (failure) => setError(detailOf(failure)),
    meta: { feedback: { error: texts.enabled.error }, inline },
  })
  const confirm = useMutation({
    mutationFn: (value: string) => api.post('/api/auth/two-factor/confirm', { code: value }, okSchema),
    onSuccess: () => {
      setDone(true)
      void refresh()
    },
    onError: (failure) => setError(detailOf(failure)),
    meta: { feedback: texts.enabled, inline },
  })
  const enrolment = start.data
  const busy = start.isPending || confirm.isPending

  function submit(event: React.FormEvent) {
    event.preventDefault()
    setError(null)
    if (!enrolment) {
      const missing = passwordError(password)
      if (missing) return setError(missing)
      start.mutate(password)
    } else {
      const read = readTotpCode(code)
      if ('error' in read) return setError(read.error)
      confirm.mutate(read.code)
    }
  }

  return (
    <DialogFrame
      open
      onOpenChange={(open) => !open && onClose()}
      busy={busy}
      title="Ativar verificação em duas etapas"
      description={
        done
          ? 'Pronto: a partir de agora o login pede o código do aplicativo.'
          : enrolment
            ? 'Leia o QR Code com o aplicativo autenticador e digite o código de 6 dígitos que ele mostrar.'
            : 'Confirme sua senha para começar.'
      }
      className="max-h-[90dvh] max-w-md overflow-y-auto"
    >
      {done && enrolment ? (
        <RecoveryCodes codes={enrolment.backupCodes} />
      ) : (
        <form id="two-factor-enable" noValidate onSubmit={submit} className="flex flex-col gap-4">
          {enrolment ? (
            <>
              <QrCode value={enrolment.totpUri} size={176} label="QR Code para o aplicativo autenticador" />
              <div className="flex flex-col gap-1 text-sm">
                <p className="text-muted-foreground">Não consegue ler o QR Code? Digite esta chave no aplicativo:</p>
                <code className="break-all rounded bg-muted px-2 py-1 font-mono" data-testid="totp-secret">
                  {enrolment.secret}
                </code>
              </div>
              <OneTimeCodeField id="two-factor-code" value={code} onChange={setCode} error={error} />
            </>
          ) : (
            <PasswordField id="two-factor-password" value={password} onChange={setPassword} error={error} />
          )}
        </form>
      )}
      {done ? (
        <DialogFooter>
          <Button onClick={onClose}>Concluir</Button>
        </DialogFooter>
      ) : (
        <DialogActions
          onBack={onClose}
          pending={busy}
          action={enrolment ? 'Confirmar' : 'Continuar'}
          form="two-factor-enable"
        />
      )}
    </DialogFrame>
  )
}

/** The form of a dialog that only asks for the password again; `onSubmit` gets it once it is typed. */
function PasswordForm({
  id,
  error,
  onError,
  onSubmit,
}: {
  id: string
  error: string | null
  onError: (error: string | null) => void
  onSubmit: (password: string) => void
}) {
  const [password, setPassword] = useState('')
  return (
    <form
      id={id}
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        const missing = passwordError(password)
        onError(missing)
        if (!missing) onSubmit(password)
      }}
    >
      <PasswordField id={`${id}-password`} value={password} onChange={setPassword} error={error} />
    </form>
  )
}

function DisableDialog({ onClose }: { onClose: () => void }) {
  const refresh = useRefreshSession()
  const [error, setError] = useState<string | null>(null)
  const disable = useMutation({
    mutationFn: (value: string) => api.post('/api/auth/two-factor/disable', { password: value }, okSchema),
    onSuccess: () => {
      void refresh()
      onClose()
    },
    onError: (failure) => setError(detailOf(failure)),
    meta: { feedback: texts.disabled, inline },
  })
  return (
    <DialogFrame
      open
      onOpenChange={(open) => !open && onClose()}
      busy={disable.isPending}
      title="Desativar verificação em duas etapas"
      description="Confirme sua senha. Depois disso o login pede só e-mail e senha."
      className="max-w-md"
    >
      <PasswordForm id="two-factor-disable" error={error} onError={setError} onSubmit={disable.mutate} />
      <DialogActions
        onBack={onClose}
        pending={disable.isPending}
        action="Desativar"
        form="two-factor-disable"
        variant="destructive"
      />
    </DialogFrame>
  )
}

function NewCodesDialog({ onClose }: { onClose: () => void }) {
  const [error, setError] = useState<string | null>(null)
  const generate = useMutation({
    mutationFn: (value: string) =>
      api.post('/api/auth/two-factor/backup-codes', { password: value }, backupCodesSchema),
    onError: (failure) => setError(detailOf(failure)),
    meta: { feedback: texts.codes, inline },
  })
  return (
    <DialogFrame
      open
      onOpenChange={(open) => !open && onClose()}
      busy={generate.isPending}
      title="Novos códigos de recuperação"
      description="Os códigos anteriores deixam de valer."
      className="max-h-[90dvh] max-w-md overflow-y-auto"
    >
      {generate.data ? (
        <RecoveryCodes codes={generate.data.backupCodes} />
      ) : (
        <PasswordForm id="two-factor-codes" error={error} onError={setError} onSubmit={generate.mutate} />
      )}
      {generate.data ? (
        <DialogFooter>
          <Button onClick={onClose}>Concluir</Button>
        </DialogFooter>
      ) : (
        <DialogActions onBack={onClose} pending={generate.isPending} action="Gerar códigos" form="two-factor-codes" />
      )}
    </DialogFrame>
  )
}
