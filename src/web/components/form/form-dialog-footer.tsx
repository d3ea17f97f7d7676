import { Button } from '@/web/components/ui/button'
import { DialogFooter } from '@/web/components/ui/dialog'

/** A form dialog's buttons: 'Voltar' closes it, the submit button shows its pending label while saving. */
export function FormDialogFooter({
  pending,
  onBack,
  submitLabel = 'Salvar',
  pendingLabel = 'Salvando…',
}: {
  pending: boolean
  onBack: () => void
  submitLabel?: string
  pendingLabel?: string
}) {
  return (
    <DialogFooter>
      <Button variant="outline" onClick={onBack} disabled={pending}>
        Voltar
      </Button>
      <Button type="submit" disabled={pending}>
        {pending ? pendingLabel : submitLabel}
      </Button>
    </DialogFooter>
  )
}
