import { zodResolver } from '@hookform/resolvers/zod'
import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { Link, useNavigate, useSearchParams } from 'react-router'
import type { z } from 'zod'
import { errorText } from '@/domain/errors'
import { paths } from '@/web/app/paths'
import { Input } from '@/web/components/ui/input'
import { Field } from '@/web/components/form/field'
import { PendingButton } from '@/web/components/ui/states'
import { ApiError } from '@/web/lib/api'
import { applyServerErrors } from '@/web/lib/form-errors'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { useForgotPassword, useResetPassword } from './api'
import { AuthCard, linkClass, Notice } from '@/web/shared/auth/auth-card'
import {
  forgotFormDefaults,
  forgotFormSchema,
  resetFormDefaults,
  resetFormSchema,
  resetServerFields,
  toResetInput,
} from './password-forms'

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
    defaultValues: forgotFormDefaults,
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
        <PendingButton type="submit" className="w-full" pending={forgot.isPending}>
          Enviar link
        </PendingButton>
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

export function ResetPasswordPage() {
  useDocumentTitle('Nova senha')
  const [params] = useSearchParams()
  const token = params.get('token') ?? ''
  const navigate = useNavigate()
  const reset = useResetPassword()
  const [linkError, setLinkError] = useState<string | null>(null)
  const form = useForm<z.input<typeof resetFormSchema>, unknown, z.output<typeof resetFormSchema>>({
    resolver: zodResolver(resetFormSchema),
    defaultValues: resetFormDefaults,
  })
  const { errors } = form.formState

  const onSubmit = form.handleSubmit((values) => {
    setLinkError(null)
    reset.mutate(toResetInput(token, values), {
      onSuccess: () => navigate(paths.login, { replace: true }),
      onError: (error) => {
        if (!(error instanceof ApiError)) return
        if (error.code === 'invalid_token') setLinkError(error.detail)
        else applyServerErrors(error, form.setError, resetServerFields, { focus: true })
      },
    })
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
        <PendingButton type="submit" className="w-full" pending={reset.isPending}>
          Salvar nova senha
        </PendingButton>
      </form>
    </AuthCard>
  )
}
