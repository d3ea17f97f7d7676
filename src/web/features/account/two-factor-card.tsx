import { useMutation, useQueryClient } from '@tanstack/react-query'
import { Loader2, ShieldCheck } from 'lucide-react'
import { QRCodeSVG } from 'qrcode.react'
import { useState } from 'react'
import { backupCodesSchema, okSchema, type SessionUser, twoFactorEnrolmentSchema } from '@/domain/contracts/auth'
import { Badge } from '@/web/components/ui/badge'
import { PasswordField } from '@/web/components/password-field'
import { Button } from '@/web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader } from '@/web/components/ui/card'
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/web/components/ui/dialog'
import { Input } from '@/web/components/ui/input'
import { Field } from '@/web/components/form/field'
import { ApiError, api } from '@/web/lib/api'
import { Notice } from '@/web/shared/auth/auth-card'
import { sessionQuery } from '@/web/lib/session'

const texts = {
  enabled: { success: 'Verificação em duas etapas ativada.', error: 'Erro ao ativar a verificação em duas etapas' },
  disabled: {
    success: 'Verificação em duas etapas desativada.',
    error: 'Erro ao desativar a verificação em duas etapas',
  },
  codes: { error: 'Erro ao gerar códigos de recuperação' },
} as const

/** Field errors shown next to the field, not as toasts. */
const inline = ['password_incorrect', 'two_factor_invalid', 'validation_failed']

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
      if (!password) return setError('Informe sua senha.')
      start.mutate(password)
    } else {
      const value = code.replace(/\s+/g, '')
      if (!/^\d{6}$/.test(value)) return setError('Informe os 6 dígitos do código.')
      confirm.mutate(value)
    }
  }

  return (
    <Dialog open onOpenChange={(open) => !open && !busy && onClose()}>
      <DialogContent className="max-h-[90dvh] max-w-md overflow-y-auto">
        <DialogHeader>
          <DialogTitle>Ativar verificação em duas etapas</DialogTitle>
          <DialogDescription>
            {done
              ? 'Pronto: a partir de agora o login pede o código do aplicativo.'
              : enrolment
                ? 'Leia o QR Code com o aplicativo autenticador e digite o código de 6 dígitos que ele mostrar.'
                : 'Confirme sua senha para começar.'}
          </DialogDescription>
        </DialogHeader>
        {done && enrolment ? (
          <RecoveryCodes codes={enrolment.backupCodes} />
        ) : (
          <form id="two-factor-enable" noValidate onSubmit={submit} className="flex flex-col gap-4">
            {enrolment ? (
              <>
                <div className="flex justify-center">
                  <div className="rounded-lg border border-border bg-white p-3">
                    <QRCodeSVG
                      value={enrolment.totpUri}
                      size={176}
                      title="QR Code para o aplicativo autenticador"
                      role="img"
                      aria-label="QR Code para o aplicativo autenticador"
                    />
                  </div>
                </div>
                <div className="flex flex-col gap-1 text-sm">
                  <p className="text-muted-foreground">Não consegue ler o QR Code? Digite esta chave no aplicativo:</p>
                  <code className="break-all rounded bg-muted px-2 py-1 font-mono" data-testid="totp-secret">
                    {enrolment.secret}
                  </code>
                </div>
                <Field id="two-factor-code" label="Código de verificação" error={error ?? undefined}>
                  <Input
                    inputMode="numeric"
                    autoComplete="one-time-code"
                    value={code}
                    onChange={(event) => setCode(event.target.value)}
                  />
                </Field>
              </>
            ) : (
              <PasswordField id="two-factor-password" value={password} onChange={setPassword} error={error} />
            )}
          </form>
        )}
        <DialogFooter>
          {done ? (
            <Button onClick={onClose}>Concluir</Button>
          ) : (
            <>
              <Button variant="outline" disabled={busy} onClick={onClose}>
                Cancelar
              </Button>
              <Button type="submit" form="two-factor-enable" disabled={busy}>
                {busy ? <Loader2 className="animate-spin" aria-hidden="true" /> : null}
                {enrolment ? 'Confirmar' : 'Continuar'}
              </Button>
            </>
          )}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}

function DisableDialog({ onClose }: { onClose: () => void }) {
  const refresh = useRefreshSession()
  const [password, setPassword] = useState('')
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
    <Dialog open onOpenChange={(open) => !open && !disable.isPending && onClose()}>
      <DialogContent className="max-w-md">
        <DialogHeader>
          <DialogTitle>Desativar verificação em duas etapas</DialogTitle>
          <DialogDescription>Confirme sua senha. Depois disso o login pede só e-mail e senha.</DialogDescription>
        </DialogHeader>
        <form
          id="two-factor-disable"
          noValidate
          onSubmit={(event) => {
            event.preventDefault()
            setError(null)
            if (!password) return setError('Informe sua senha.')
            disable.mutate(password)
          }}
        >
          <PasswordField id="two-factor-disable-password" value={password} onChange={setPassword} error={error} />
        </form>
        <DialogFooter>
          <Button variant="outline" disabled={disable.isPending} onClick={onClose}>
            Cancelar
          </Button>
          <Button type="submit" form="two-factor-disable" variant="destructive" disabled={disable.isPending}>
            Desativar
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}

function NewCodesDialog({ onClose }: { onClose: () => void }) {
  const [password, setPassword] = useState('')
  const [error, setError] = useState<string | null>(null)
  const generate = useMutation({
    mutationFn: (value: string) =>
      api.post('/api/auth/two-factor/backup-codes', { password: value }, backupCodesSchema),
    onError: (failure) => setError(detailOf(failure)),
    meta: { feedback: texts.codes, inline },
  })
  return (
    <Dialog open onOpenChange={(open) => !open && !generate.isPending && onClose()}>
      <DialogContent className="max-h-[90dvh] max-w-md overflow-y-auto">
        <DialogHeader>
          <DialogTitle>Novos códigos de recuperação</DialogTitle>
          <DialogDescription>Os códigos anteriores deixam de valer.</DialogDescription>
        </DialogHeader>
        {generate.data ? (
          <RecoveryCodes codes={generate.data.backupCodes} />
        ) : (
          <form
            id="two-factor-codes"
            noValidate
            onSubmit={(event) => {
              event.preventDefault()
              setError(null)
              if (!password) return setError('Informe sua senha.')
              generate.mutate(password)
            }}
          >
            <PasswordField id="two-factor-codes-password" value={password} onChange={setPassword} error={error} />
          </form>
        )}
        <DialogFooter>
          {generate.data ? (
            <Button onClick={onClose}>Concluir</Button>
          ) : (
            <>
              <Button variant="outline" disabled={generate.isPending} onClick={onClose}>
                Cancelar
              </Button>
              <Button type="submit" form="two-factor-codes" disabled={generate.isPending}>
                Gerar códigos
              </Button>
            </>
          )}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
