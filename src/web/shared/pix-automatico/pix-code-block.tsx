import { Copy } from 'lucide-react'
import { QRCodeSVG } from 'qrcode.react'
import { useId, useRef } from 'react'
import { Button } from '@/web/components/ui/button'
import { Textarea } from '@/web/components/ui/input'

/** An authorisation code (PIX Automático, Journey 2): QR of 200 px, the copy-and-paste text and its copy button. */
export function PixCodeBlock({ code }: { code: string }) {
  const id = useId()
  const ref = useRef<HTMLTextAreaElement>(null)
  async function copy() {
    try {
      if (!navigator.clipboard) throw new Error('clipboard unavailable')
      await navigator.clipboard.writeText(code)
    } catch {
      ref.current?.focus()
      ref.current?.select()
    }
  }
  return (
    <div className="flex flex-col gap-2">
      <div className="flex justify-center">
        <div className="rounded-lg border border-border bg-white p-3">
          <QRCodeSVG value={code} size={200} title="QR Code PIX" role="img" aria-label="QR Code PIX" />
        </div>
      </div>
      <label htmlFor={id} className="text-sm font-medium">
        Código PIX copia e cola
      </label>
      <Textarea
        ref={ref}
        id={id}
        readOnly
        value={code}
        rows={4}
        className="min-h-0 resize-none break-all bg-muted font-mono text-xs md:text-xs"
      />
      <Button size="sm" onClick={() => void copy()}>
        <Copy aria-hidden="true" />
        Copiar código
      </Button>
    </div>
  )
}
