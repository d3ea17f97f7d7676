import type { ReactNode } from 'react'
import { DialogFooter } from '@/web/components/ui/dialog'
import { DialogActions, DialogFrame } from '@/web/components/ui/dialog-frame'

/** Asks before an action that cannot be undone (cancel a subscription, delete a plan). */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  description,
  confirmLabel,
  onConfirm,
  pending,
  destructive = true,
  children,
  footer,
}: {
  open: boolean
  onOpenChange: (open: boolean) => void
  title: string
  description: ReactNode
  confirmLabel: string
  onConfirm: () => void
  pending?: boolean
  destructive?: boolean
  /** Anything to show under the description (e.g. why the action failed). */
  children?: ReactNode
  /** Replaces the default buttons. */
  footer?: ReactNode
}) {
  return (
    <DialogFrame
      open={open}
      onOpenChange={onOpenChange}
      busy={pending}
      title={title}
      description={description}
      className="max-w-md"
    >
      {children}
      {footer ? (
        <DialogFooter>{footer}</DialogFooter>
      ) : (
        <DialogActions
          back="Voltar"
          onBack={() => onOpenChange(false)}
          pending={pending ?? false}
          action={confirmLabel}
          onAction={onConfirm}
          variant={destructive ? 'destructive' : 'default'}
        />
      )}
    </DialogFrame>
  )
}
