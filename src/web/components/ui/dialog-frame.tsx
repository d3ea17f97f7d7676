import type { ReactNode } from 'react'
import { Button, type ButtonProps } from './button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from './dialog'
import { PendingButton } from './states'

/**
 * A dialog with its title and description above its body (which usually ends in <DialogActions>). While `busy` (a
 * request running), Esc, the overlay and the close button leave it open.
 */
export function DialogFrame({
  open,
  onOpenChange,
  busy = false,
  title,
  description,
  className,
  children,
}: {
  open: boolean
  onOpenChange: (open: boolean) => void
  busy?: boolean
  title: ReactNode
  description: ReactNode
  className?: string | undefined
  children?: ReactNode
}) {
  return (
    <Dialog open={open} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <DialogContent className={className}>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{description}</DialogDescription>
        </DialogHeader>
        {children}
      </DialogContent>
    </Dialog>
  )
}

/**
 * A dialog's two buttons: `back` (outline, closes) and the action, with a spinner and both disabled while `pending`.
 * With `form` the action submits that form (by id); else it is a plain button calling `onAction`.
 */
export function DialogActions({
  back = 'Cancelar',
  onBack,
  pending,
  action,
  form,
  onAction,
  variant,
  disabled,
}: {
  back?: string
  onBack: () => void
  pending: boolean
  action: ReactNode
  form?: string
  onAction?: () => void
  variant?: ButtonProps['variant']
  disabled?: boolean
}) {
  return (
    <DialogFooter>
      <Button variant="outline" disabled={pending} onClick={onBack}>
        {back}
      </Button>
      <PendingButton
        pending={pending}
        disabled={disabled}
        variant={variant}
        {...(form ? { type: 'submit' as const, form } : { onClick: onAction })}
      >
        {action}
      </PendingButton>
    </DialogFooter>
  )
}
