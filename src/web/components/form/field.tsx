import { cloneElement, isValidElement, type ReactElement, type ReactNode, useId } from 'react'
import { FieldError, Label } from '@/web/components/ui/label'
import { cn } from '@/web/lib/cn'

/** What a field's control needs to be labelled and described: spread it on the input, select or textarea. */
export type FieldControlProps = {
  id: string
  'aria-invalid': true | undefined
  'aria-describedby': string | undefined
}

/** The ids of a field's hint and error, joined for aria-describedby (undefined when there is neither). */
export function describedBy(id: string, parts: { hint?: boolean; error?: boolean }): string | undefined {
  return [parts.hint ? `${id}-hint` : '', parts.error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined
}

/**
 * One form field: the label, the control, an optional hint and the inline error, wired by id (aria-describedby,
 * aria-invalid). `children` is the control (it receives the props), or a function of the props for a control
 * wrapped in other markup (a currency prefix, a picker). Pass `id` for a stable id (tests, links); else useId().
 */
export function Field({
  id: fixedId,
  label,
  hint,
  hintClassName,
  error,
  className,
  children,
}: {
  id?: string | undefined
  label: ReactNode
  hint?: ReactNode
  /** Replaces the hint's muted style (e.g. a live check that turns red). */
  hintClassName?: string | undefined
  error?: string | undefined
  className?: string | undefined
  children: ReactElement<Partial<FieldControlProps>> | ((control: FieldControlProps) => ReactNode)
}) {
  const generatedId = useId()
  const id = fixedId ?? generatedId
  const control: FieldControlProps = {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy(id, { hint: Boolean(hint), error: Boolean(error) }),
  }
  return (
    <div className={cn('flex flex-col gap-2', className)}>
      <Label htmlFor={id}>{label}</Label>
      {typeof children === 'function'
        ? children(control)
        : isValidElement(children)
          ? cloneElement(children, control)
          : null}
      {hint ? (
        <p id={`${id}-hint`} className={hintClassName ?? 'text-sm text-muted-foreground'}>
          {hint}
        </p>
      ) : null}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  )
}
