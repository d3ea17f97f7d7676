import { zodResolver } from '@hookform/resolvers/zod'
import { Loader2 } from 'lucide-react'
import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { z } from 'zod'
import { emailSchema, passwordSchema } from '@/domain/contracts/auth'
import { errorText } from '@/domain/errors'
import { paths } from '@/web/app/paths'
import { Button } from '@/web/components/ui/button'
import { Input } from '@/web/components/ui/input'
import { Field } from '@/web/components/form/field'
import { ApiError } from '@/web/lib/api'
import { applyServerErrors, type ServerFieldMap } from '@/web/lib/form-errors'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { useForgotPassword, useResetPassword } from './api'
import { AuthCard, linkClass, Notice } from '@/web/shared/auth/auth-card'

const forgotFormSchema = z.object({ email: z.string().trim().min(1, 'Informe seu e-mail.').pipe(emailSchema) })
const resetFormSchema = z.object({ newPassword: z.string().min(1, 'Informe a nova senha.').pipe(passwordSchema) })

const backToLogin = (
  <p>
    Lembrou a senha?{' '}
    <Link to={paths.login} className={linkClass}>
      Voltar para o login
    </Link>
  </p>
)

export function ForgotPasswordPage() {
  useDocumentTitle('Esqueci minha senha')
  const forgot = useForgotPassword()
  const form = useForm<z.input<typeof forgotFormSchema>, unknown, z.output<typeof forgotFormSchema>>({
    resolver: zodResolver(forgotFormSchema),
    defaultValues: { email: '' },
  })
  const { errors } = form.formState
  const onSubmit = form.handleSubmit((values) => forgot.mutate(values.email))

  return (
    <AuthCard
      title="Esqueci minha senha"
      description="Informe o e-mail da sua conta e enviaremos um link para criar uma nova senha."
      footer={backToLogin}
    >
      {forgot.isSuccess ? (
        // The same answer whether or not the e-mail has an account, so the page cannot be used to find accounts.
        <Notice tone="success">Se o e-mail estiver cadastrado, você receberá um link para redefinir sua senha.</Notice>
      ) : null}
      <form method="post" noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
        <Field id="forgot-email" label="E-mail" error={errors.email?.message}>
          <Input type="email" autoComplete="email" inputMode="email" {...form.register('email')} />
        </Field>
        <Button type="submit" className="w-full" disabled={forgot.isPending}>
          {forgot.isPending ? <Loader2 className="animate-spin" aria-hidden="true" /> : null}
          Enviar link
        </Button>
      </form>
    </AuthCard>
  )
}

function InvalidLink({ detail }: { detail: string }) {
  return (
    <Notice tone="error">
      <p>{detail}</p>
      <Link to={paths.forgotPassword} className={linkClass}>
        Solicitar novo link
      </Link>
    </Notice>
  )
}

// A short password (or any invalid body) is explained under the field; a dead link above the form.
const resetServerFields: ServerFieldMap<'newPassword'> = {
  codes: { password_too_short: 'newPassword', validation_failed: 'newPassword' },
}

export function ResetPasswordPage() {
  useDocumentTitle('Nova senha')
  const [params] = useSearchParams()
  const token = params.get('token') ?? ''
  const navigate = useNavigate()
  const reset = useResetPassword()
  const [linkError, setLinkError] = useState<string | null>(null)
  const form = useForm<z.input<typeof resetFormSchema>, unknown, z.output<typeof resetFormSchema>>({
    resolver: zodResolver(resetFormSchema),
    defaultValues: { newPassword: '' },
  })
  const { errors } = form.formState

  const onSubmit = form.handleSubmit((values) => {
    setLinkError(null)
    reset.mutate(
      { token, newPassword: values.newPassword },
      {
        onSuccess: () => navigate(paths.login, { replace: true }),
        onError: (error) => {
          if (!(error instanceof ApiError)) return
          if (error.code === 'invalid_token') setLinkError(error.detail)
          else applyServerErrors(error, form.setError, resetServerFields, { focus: true })
        },
      },
    )
  })

  if (!token) {
    return (
      <AuthCard title="Nova senha" footer={backToLogin}>
        <InvalidLink detail={errorText.invalid_token} />
      </AuthCard>
    )
  }

  return (
    <AuthCard title="Nova senha" description="Escolha uma nova senha para a sua conta." footer={backToLogin}>
      {linkError ? <InvalidLink detail={linkError} /> : null}
      <form method="post" noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
        <Field
          id="reset-password"
          label="Nova senha"
          hint="Mínimo de 8 caracteres."
          error={errors.newPassword?.message}
        >
          <Input type="password" autoComplete="new-password" {...form.register('newPassword')} />
        </Field>
        <Button type="submit" className="w-full" disabled={reset.isPending}>
          {reset.isPending ? <Loader2 className="animate-spin" aria-hidden="true" /> : null}
          Salvar nova senha
        </Button>
      </form>
    </AuthCard>
  )
}
