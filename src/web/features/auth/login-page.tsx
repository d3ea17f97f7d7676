import { useRef, useState } from 'react'
import { Link, Navigate, useLocation, useSearchParams } from 'react-router'
import { paths } from '@/web/app/paths'
import { Button } from '@/web/components/ui/button'
import { PendingButton } from '@/web/components/ui/states'
import { Input } from '@/web/components/ui/input'
import { Field } from '@/web/components/form/field'
import { ApiError } from '@/web/lib/api'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import {
  normalizeEmail,
  type SignInFields,
  signInFieldErrors,
  useResendVerification,
  useSignIn,
  useVerifyTwoFactor,
} from './sign-in-api'
import { AuthCard, linkClass, Notice } from '@/web/shared/auth/auth-card'
import { useSessionUser } from '@/web/lib/session'

/** Only a path of this site: an absolute or protocol-relative `next` would send the person elsewhere. */
export function safeNextPath(next: string | null): string {
  if (next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\')) return next
  return paths.dashboard
}

/** The sign-up page hands over the e-mail it just registered, so the person only types the password. */
function emailFromState(state: unknown): string {
  if (typeof state === 'object' && state !== null && 'email' in state && typeof state.email === 'string') {
    return state.email
  }
  return ''
}

export function LoginPage() {
  useDocumentTitle('Entrar')
  const { user } = useSessionUser()
  const location = useLocation()
  const [params] = useSearchParams()
  const signIn = useSignIn()
  const resend = useResendVerification()
  const [unverified, setUnverified] = useState(false)
  const [codeStep, setCodeStep] = useState(false)
  // Plain uncontrolled fields (no form library on this public page; what was typed before the page's script ran stays
  // in them): checked on submit, then again as the person corrects them; the first wrong field takes the focus.
  const [values, setValues] = useState<SignInFields>(() => ({ email: emailFromState(location.state), password: '' }))
  const [errors, setErrors] = useState<Partial<Record<keyof SignInFields, string>>>({})
  const [submitted, setSubmitted] = useState(false)
  const emailRef = useRef<HTMLInputElement>(null)
  const passwordRef = useRef<HTMLInputElement>(null)
  const typed = (): SignInFields => ({
    email: emailRef.current?.value ?? values.email,
    password: passwordRef.current?.value ?? values.password,
  })
  const change = () => {
    const next = typed()
    setValues(next)
    if (submitted) setErrors(signInFieldErrors(next))
  }

  // Signed in (already, or just now): straight to where the person was going.
  if (user) return <Navigate to={safeNextPath(params.get('next'))} replace />
  // Two-factor on: the password was right, the code comes next.
  if (codeStep) {
    return (
      <TwoFactorStep
        onRestart={() => {
          setValues((current) => ({ ...current, password: '' }))
          setCodeStep(false)
        }}
      />
    )
  }

  const verifiedNow = params.get('verified') === '1'
  const verifyError = params.get('verifyError') === '1'

  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault()
    setSubmitted(true)
    const current = typed()
    setValues(current)
    const found = signInFieldErrors(current)
    setErrors(found)
    if (found.email) return emailRef.current?.focus()
    if (found.password) return passwordRef.current?.focus()
    setUnverified(false)
    signIn.mutate(
      { email: normalizeEmail(current.email)!, password: current.password },
      {
        onSuccess: (result) => {
          if ('twoFactorRequired' in result) setCodeStep(true)
        },
        onError: (error) => {
          if (error instanceof ApiError && error.code === 'email_not_verified') setUnverified(true)
        },
      },
    )
  }

  function resendConfirmation() {
    const email = normalizeEmail(typed().email)
    if (email === null) {
      setErrors((current) => ({ ...current, email: 'Informe seu e-mail para reenviarmos a confirmação.' }))
      emailRef.current?.focus()
      return
    }
    resend.mutate(email)
  }

  const resendButton = (
    <PendingButton
      variant="outline"
      size="sm"
      className="self-start"
      onClick={resendConfirmation}
      pending={resend.isPending}
    >
      Reenviar e-mail de confirmação
    </PendingButton>
  )

  return (
    <AuthCard
      title="Entrar"
      description="Acesse sua conta para gerenciar assinaturas e pagamentos."
      footer={
        <p>
          Ainda não tem conta?{' '}
          <Link to={paths.signup} className={linkClass}>
            Criar conta
          </Link>
        </p>
      }
    >
      {verifiedNow ? <Notice tone="success">E-mail confirmado! Agora você já pode entrar.</Notice> : null}
      {verifyError && !unverified ? (
        <Notice tone="error">
          <p>O link de confirmação é inválido ou expirou.</p>
          <p className="text-foreground">Informe seu e-mail abaixo e peça um novo link.</p>
          {resendButton}
        </Notice>
      ) : null}
      {unverified ? (
        <Notice tone="info" title="Confirme seu e-mail">
          <p>
            Seu e-mail ainda não foi confirmado. Abra o link de confirmação que enviamos para sua caixa de entrada (veja
            também o spam).
          </p>
          {resendButton}
        </Notice>
      ) : null}

      <form method="post" noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
        <Field id="login-email" label="E-mail" error={errors.email}>
          <Input
            ref={emailRef}
            name="email"
            type="email"
            autoComplete="email"
            inputMode="email"
            defaultValue={values.email}
            onChange={change}
          />
        </Field>
        <div className="flex flex-col gap-2">
          <Field id="login-password" label="Senha" error={errors.password}>
            <Input
              ref={passwordRef}
              name="password"
              type="password"
              autoComplete="current-password"
              defaultValue={values.password}
              onChange={change}
            />
          </Field>
          <Link to={paths.forgotPassword} className={`${linkClass} self-end text-sm`}>
            Esqueci minha senha
          </Link>
        </div>
        <PendingButton type="submit" className="w-full" pending={signIn.isPending}>
          Entrar
        </PendingButton>
      </form>
    </AuthCard>
  )
}

/** The sign-in's second step: 'Código de verificação' from the authenticator app, or a recovery code. */
function TwoFactorStep({ onRestart }: { onRestart: () => void }) {
  const verify = useVerifyTwoFactor()
  const [code, setCode] = useState('')
  const [error, setError] = useState<{ message: string; expired: boolean } | null>(null)

  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault()
    const value = code.trim()
    if (!value) {
      setError({ message: 'Informe o código de verificação.', expired: false })
      return
    }
    setError(null)
    verify.mutate(value, {
      onError: (failure) => {
        if (failure instanceof ApiError) {
          setError({ message: failure.detail, expired: failure.code === 'two_factor_expired' })
        }
      },
    })
  }

  return (
    <AuthCard
      title="Verificação em duas etapas"
      description="Digite o código de 6 dígitos que aparece no seu aplicativo autenticador."
    >
      <form method="post" noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
        <Field
          id="login-code"
          label="Código de verificação"
          hint="Sem acesso ao aplicativo? Use um dos seus códigos de recuperação."
          error={error?.message}
        >
          <Input
            autoComplete="one-time-code"
            autoCapitalize="off"
            spellCheck={false}
            autoFocus
            value={code}
            onChange={(event) => setCode(event.target.value)}
          />
        </Field>
        <PendingButton type="submit" className="w-full" pending={verify.isPending}>
          Verificar
        </PendingButton>
        <Button variant={error?.expired ? 'default' : 'outline'} className="w-full" onClick={onRestart}>
          Voltar ao login
        </Button>
      </form>
    </AuthCard>
  )
}
