import { Field } from './form/field'
import { Input } from './ui/input'

type AskedFieldProps = {
  id: string
  label?: string
  value: string
  onChange: (value: string) => void
  error: string | null | undefined
}

const inputKinds = {
  password: { type: 'password', autoComplete: 'current-password' },
  code: { type: 'text', inputMode: 'numeric', autoComplete: 'one-time-code' },
} as const

function AskedField({ kind, id, label, value, onChange, error }: AskedFieldProps & { kind: keyof typeof inputKinds }) {
  return (
    <Field id={id} label={label ?? ''} error={error ?? undefined}>
      <Input {...inputKinds[kind]} value={value} onChange={(event) => onChange(event.target.value)} />
    </Field>
  )
}

/** The current password asked again (step-up, two-factor, account deletion): label, field and its error, wired. */
export function PasswordField({ label = 'Senha', ...props }: AskedFieldProps) {
  return <AskedField kind="password" label={label} {...props} />
}

/** A code from an authenticator app (or one sent by message), asked in a form: numeric keyboard, autofill. */
export function OneTimeCodeField({ label = 'Código de verificação', ...props }: AskedFieldProps) {
  return <AskedField kind="code" label={label} {...props} />
}
