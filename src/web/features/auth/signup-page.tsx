import { zodResolver } from '@hookform/resolvers/zod'
import { Loader2 } from 'lucide-react'
import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { Link, Navigate, useNavigate } from 'react-router'
import { toast } from 'sonner'
import { z } from 'zod'
import { emailSchema, passwordSchema, signUpInputSchema } from '@/domain/contracts/auth'
import { paths } from '@/web/app/paths'
import { Button } from '@/web/components/ui/button'
import { Input } from '@/web/components/ui/input'
import { FieldError, Label } from '@/web/components/ui/label'
import { ApiError } from '@/web/lib/api'
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

const fieldNames: readonly string[] = ['name', 'companyName', 'email', 'password'] satisfies FieldName[]
const isFieldName = (path: string): path is FieldName => fieldNames.includes(path)

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
            if (error.code === 'email_taken') form.setError('email', { message: error.detail }, { shouldFocus: true })
            if (error.code === 'password_too_short') form.setError('password', { message: error.detail })
            for (const issue of error.errors) {
              if (isFieldName(issue.path)) form.setError(issue.path, { message: issue.message })
            }
          },
        },
      )
    },
    () => {
      setTriedSubmit(true)
      if (!verifiedNumber) warnUnverified()
    },
  )

  const field = (name: FieldName) => ({
    id: `signup-${name}`,
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': errors[name] ? `signup-${name}-error` : undefined,
    ...form.register(name),
  })

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
      <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
        <div className="flex flex-col gap-2">
          <Label htmlFor="signup-name">Nome</Label>
          <Input type="text" autoComplete="name" {...field('name')} />
          <FieldError id="signup-name-error" message={errors.name?.message} />
        </div>
        <div className="flex flex-col gap-2">
          <Label htmlFor="signup-companyName">Empresa</Label>
          <Input type="text" autoComplete="organization" {...field('companyName')} />
          <FieldError id="signup-companyName-error" message={errors.companyName?.message} />
        </div>
        <WhatsAppVerification
          key={verificationKey}
          id="signup-whatsapp"
          onVerifiedChange={setVerifiedNumber}
          error={triedSubmit && !verifiedNumber ? toasts.verificationRequired.description : undefined}
        />
        <div className="flex flex-col gap-2">
          <Label htmlFor="signup-email">E-mail</Label>
          <Input type="email" autoComplete="email" inputMode="email" {...field('email')} />
          <FieldError id="signup-email-error" message={errors.email?.message} />
        </div>
        <div className="flex flex-col gap-2">
          <Label htmlFor="signup-password">Senha</Label>
          <Input
            type="password"
            autoComplete="new-password"
            {...field('password')}
            aria-describedby={errors.password ? 'signup-password-hint signup-password-error' : 'signup-password-hint'}
          />
          <p id="signup-password-hint" className="text-sm text-muted-foreground">
            Mínimo de 8 caracteres.
          </p>
          <FieldError id="signup-password-error" message={errors.password?.message} />
        </div>
        <Button type="submit" className="w-full" disabled={signUp.isPending}>
          {signUp.isPending ? <Loader2 className="animate-spin" aria-hidden="true" /> : null}
          Cadastrar
        </Button>
      </form>
    </AuthCard>
  )
}
