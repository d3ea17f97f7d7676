import { Input } from './ui/input'
import { FieldError, Label } from './ui/label'

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
    <div className="flex flex-col gap-2">
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        type="password"
        autoComplete="current-password"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      <FieldError id={`${id}-error`} message={error ?? undefined} />
    </div>
  )
}
