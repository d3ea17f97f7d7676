import { useMutation } from '@tanstack/react-query'
import { Download, Loader2, Trash2 } from 'lucide-react'
import { type FormEvent, useState } from 'react'
import { Link, useNavigate } from 'react-router'
import { toast } from 'sonner'
import { okSchema } from '@/domain/contracts/auth'
import { paths } from '@/web/app/paths'
import { PasswordField } from '@/web/components/password-field'
import { Button } from '@/web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader } from '@/web/components/ui/card'
import { DialogActions, DialogFrame } from '@/web/components/ui/dialog-frame'
import { ApiError, api } from '@/web/lib/api'
import { useLeaveSignedOut } from '@/web/lib/sign-out'

/** Texts of 'Meus dados' (not in the spec): ours, in the tone of the spec's toasts. */
export const myDataTexts = {
  download: { error: 'Erro ao baixar dados' },
  deleteAccount: {
    error: 'Erro ao excluir conta',
    success: 'Conta excluída. Seus dados pessoais foram apagados.',
  },
} as const

/** The refusals the dialog explains in place (the server's Portuguese message), without a toast. */
const inlineCodes = [
  'password_incorrect',
  'validation_failed',
  'account_has_live_subscription',
  'account_has_open_invoice',
  'last_admin_delete',
]

function filenameOf(response: Response): string {
  const match = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')
  return match?.[1] ?? 'meus-dados.json'
}

/** Fetches the export and hands it to the browser as a file (errors become the API's Portuguese text). */
async function downloadMyData(): Promise<string> {
  let response: Response
  try {
    response = await fetch('/api/profile/export', {
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    })
  } catch {
    throw new ApiError(
      0,
      'network_error',
      'Não foi possível falar com o servidor. Verifique sua conexão e tente novamente.',
    )
  }
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as { code?: string; detail?: string }
    throw new ApiError(response.status, problem.code ?? 'unknown', problem.detail ?? 'Ocorreu um erro desconhecido')
  }
  const filename = filenameOf(response)
  const url = URL.createObjectURL(await response.blob())
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
  return filename
}

/** Deletes the account, then leaves for the home page signed out (useLeaveSignedOut). */
function useDeleteAccount(leave: () => void) {
  const leaveSignedOut = useLeaveSignedOut(leave)
  return useMutation({
    mutationFn: (password: string) => api.post('/api/profile/delete', { password }, okSchema),
    onSuccess: leaveSignedOut,
    meta: { feedback: myDataTexts.deleteAccount, inline: inlineCodes },
  })
}

/** 'Meus dados' on the account page: the LGPD self-service (download everything, delete the account). */
export function MyDataSection() {
  const [deleting, setDeleting] = useState(false)
  const download = useMutation({
    mutationFn: downloadMyData,
    onSuccess: (filename) => toast.success(`Download iniciado: ${filename}`),
    meta: { feedback: myDataTexts.download },
  })

  return (
    <Card>
      <CardHeader>
        <h2 className="text-xl font-semibold leading-none tracking-tight">Meus dados</h2>
        <CardDescription>
          Seus direitos pela LGPD: baixe tudo o que guardamos sobre você ou exclua a sua conta. Saiba mais na{' '}
          <Link to={paths.privacy} className="text-primary underline underline-offset-4">
            Política de Privacidade
          </Link>
          .
        </CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-6 text-sm">
        <div className="flex flex-col gap-3">
          <p className="max-w-3xl">
            Um arquivo JSON com o seu cadastro, assinaturas, pagamentos, mensagens enviadas a você, registros de
            auditoria, verificações do seu WhatsApp e sessões de acesso. Senhas e códigos nunca fazem parte dele.
          </p>
          <Button
            variant="outline"
            className="self-start"
            disabled={download.isPending}
            onClick={() => download.mutate()}
          >
            {download.isPending ? (
              <Loader2 className="animate-spin" aria-hidden="true" />
            ) : (
              <Download aria-hidden="true" />
            )}
            Baixar meus dados
          </Button>
        </div>
        <div className="flex flex-col gap-3 border-t border-border pt-6">
          <h3 className="font-semibold">Excluir minha conta</h3>
          <p className="max-w-3xl">
            Apagamos seu nome, e-mail, WhatsApp, empresa e senha e encerramos todas as sessões. Faturas e pagamentos são
            guardados por 5 anos, como exige a lei fiscal, sem identificar você. Só é possível excluir a conta sem
            assinatura em andamento nem fatura em aberto.
          </p>
          <Button variant="destructive" className="self-start" onClick={() => setDeleting(true)}>
            <Trash2 aria-hidden="true" />
            Excluir minha conta
          </Button>
        </div>
      </CardContent>
      <DeleteAccountDialog open={deleting} onOpenChange={setDeleting} />
    </Card>
  )
}

function DeleteAccountDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const navigate = useNavigate()
  const remove = useDeleteAccount(() => void navigate(paths.home))
  const [password, setPassword] = useState('')
  const [missing, setMissing] = useState(false)
  const error = remove.error instanceof ApiError && inlineCodes.includes(remove.error.code) ? remove.error : null
  const passwordError = missing
    ? 'Informe sua senha.'
    : error && (error.code === 'password_incorrect' || error.code === 'validation_failed')
      ? error.detail
      : undefined
  const refusal = error && !passwordError ? error.detail : undefined

  function close(next: boolean) {
    if (!next) {
      setPassword('')
      setMissing(false)
      remove.reset()
    }
    onOpenChange(next)
  }

  function submit(event: FormEvent) {
    event.preventDefault()
    if (!password) return setMissing(true)
    setMissing(false)
    remove.mutate(password)
  }

  return (
    <DialogFrame
      open={open}
      onOpenChange={close}
      busy={remove.isPending}
      title="Excluir minha conta"
      description="Esta ação não pode ser desfeita. Seus dados pessoais serão apagados e você sairá de todos os dispositivos."
    >
      <form id="delete-account-form" noValidate onSubmit={submit} className="flex flex-col gap-4 text-sm">
        <ul className="flex list-disc flex-col gap-1 pl-5">
          <li>Nome, e-mail, WhatsApp, empresa e senha são apagados; o e-mail fica livre para um novo cadastro.</li>
          <li>
            Assinaturas e pagamentos ficam guardados por 5 anos, como exige a lei fiscal, sem nada que identifique você.
          </li>
        </ul>
        <PasswordField
          id="delete-account-password"
          label="Confirme sua senha"
          value={password}
          onChange={setPassword}
          error={passwordError}
        />
        {refusal ? (
          <p role="alert" className="rounded-md border border-destructive/40 bg-destructive/10 p-3 text-destructive">
            {refusal}
          </p>
        ) : null}
      </form>
      <DialogActions
        onBack={() => close(false)}
        pending={remove.isPending}
        action="Excluir conta definitivamente"
        form="delete-account-form"
        variant="destructive"
      />
    </DialogFrame>
  )
}
