import type * as React from 'react'
import { useId } from 'react'
import { Textarea } from './ui/input'

/** 'Código PIX copia e cola': the BR Code, labelled, read-only, in a small monospace box. */
export function PixCodeField({
  code,
  rows = 4,
  ...props
}: { code: string; rows?: number } & Pick<React.ComponentProps<'textarea'>, 'ref' | 'onClick'>) {
  const id = useId()
  return (
    <>
      <label htmlFor={id} className="text-sm font-medium">
        Código PIX copia e cola
      </label>
      <Textarea
        id={id}
        readOnly
        value={code}
        rows={rows}
        className="min-h-0 resize-none break-all bg-muted font-mono text-xs md:text-xs"
        {...props}
      />
    </>
  )
}
