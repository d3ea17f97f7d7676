import { Field } from './form/field'
import { Input } from './ui/input'

/** The current password asked again (step-up, two-factor, account deletion): label, field and its error, wired. */
export function PasswordField({
  id,
  label = 'Senha',
  value,
  onChange,
  error,
}: {
  id: string
  label?: string
  value: string
  onChange: (value: string) => void
  error: string | null | undefined
}) {
  return (
    <Field id={id} label={label} error={error ?? undefined}>
      <Input
        type="password"
        autoComplete="current-password"
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
    </Field>
  )
}
