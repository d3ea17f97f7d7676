import { zodResolver } from '@hookform/resolvers/zod'
import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { Link, Navigate, useNavigate } from 'react-router'
import { toast } from 'sonner'
import { z } from 'zod'
import { emailSchema, passwordSchema, signUpInputSchema } from '@/domain/contracts/auth'
import { paths } from '@/web/app/paths'
import { PendingButton } from '@/web/components/ui/states'
import { Input } from '@/web/components/ui/input'
import { Field } from '@/web/components/form/field'
import { ApiError } from '@/web/lib/api'
import { applyServerErrors, type ServerFieldMap } from '@/web/lib/form-errors'
import { toasts } from '@/web/lib/toasts'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { useSignUp } from './api'
import { AuthCard, linkClass } from '@/web/shared/auth/auth-card'
import { useSessionUser } from '@/web/lib/session'
import { WhatsAppVerification } from '@/web/shared/auth/whatsapp-verification'

const signupFormSchema = z.object({
  name: signUpInputSchema.shape.name,
  companyName: signUpInputSchema.shape.companyName,
  email: z.string().trim().min(1, 'Informe seu e-mail.').pipe(emailSchema),
  password: z.string().min(1, 'Informe uma senha.').pipe(passwordSchema),
})
type SignupFormInput = z.input<typeof signupFormSchema>
type SignupFormOutput = z.output<typeof signupFormSchema>
type FieldName = keyof SignupFormInput

// The sign-up body uses the form's own names (name, companyName, email, password).
const signupServerFields: ServerFieldMap<FieldName> = {
  fields: { name: 'name', companyName: 'companyName', email: 'email', password: 'password' },
  codes: { email_taken: 'email', password_too_short: 'password' },
}

const whatsappNumberId = 'signup-whatsapp-number'

export function SignupPage() {
  useDocumentTitle('Criar conta')
  const { user } = useSessionUser()
  const navigate = useNavigate()
  const signUp = useSignUp()
  const [verifiedNumber, setVerifiedNumber] = useState<string | null>(null)
  // Remounting the WhatsApp block is how a verification the server no longer accepts is started over.
  const [verificationKey, setVerificationKey] = useState(0)
  const [triedSubmit, setTriedSubmit] = useState(false)
  const form = useForm<SignupFormInput, unknown, SignupFormOutput>({
    resolver: zodResolver(signupFormSchema),
    defaultValues: { name: '', companyName: '', email: '', password: '' },
  })
  const { errors } = form.formState

  if (user) return <Navigate to={paths.dashboard} replace />

  function warnUnverified() {
    toast.error(toasts.verificationRequired.error, { description: toasts.verificationRequired.description })
  }

  const onSubmit = form.handleSubmit(
    (values) => {
      setTriedSubmit(true)
      if (!verifiedNumber) {
        warnUnverified()
        document.getElementById(whatsappNumberId)?.focus()
        return
      }
      signUp.mutate(
        { ...values, whatsappNumber: verifiedNumber },
        {
          onSuccess: () => navigate(paths.login, { state: { email: values.email } }),
          onError: (error) => {
            if (!(error instanceof ApiError)) return
            if (error.code === 'whatsapp_not_verified') {
              setVerifiedNumber(null)
              setVerificationKey((key) => key + 1)
            }
            applyServerErrors(error, form.setError, signupServerFields, { focus: true })
          },
        },
      )
    },
    () => {
      setTriedSubmit(true)
      if (!verifiedNumber) warnUnverified()
    },
  )

  return (
    <AuthCard
      title="Criar conta"
      description="Cadastre sua empresa para assinar um plano da plataforma de atendimento."
      className="max-w-lg"
      footer={
        <p>
          Já tem uma conta?{' '}
          <Link to={paths.login} className={linkClass}>
            Entrar
          </Link>
        </p>
      }
    >
      <form method="post" noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
        <Field id="signup-name" label="Nome" error={errors.name?.message}>
          <Input type="text" autoComplete="name" {...form.register('name')} />
        </Field>
        <Field id="signup-companyName" label="Empresa" error={errors.companyName?.message}>
          <Input type="text" autoComplete="organization" {...form.register('companyName')} />
        </Field>
        <WhatsAppVerification
          key={verificationKey}
          id="signup-whatsapp"
          onVerifiedChange={setVerifiedNumber}
          error={triedSubmit && !verifiedNumber ? toasts.verificationRequired.description : undefined}
        />
        <Field id="signup-email" label="E-mail" error={errors.email?.message}>
          <Input type="email" autoComplete="email" inputMode="email" {...form.register('email')} />
        </Field>
        <Field id="signup-password" label="Senha" hint="Mínimo de 8 caracteres." error={errors.password?.message}>
          <Input type="password" autoComplete="new-password" {...form.register('password')} />
        </Field>
        <PendingButton type="submit" className="w-full" pending={signUp.isPending}>
          Cadastrar
        </PendingButton>
      </form>
    </AuthCard>
  )
}
