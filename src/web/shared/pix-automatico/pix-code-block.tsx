import { Copy } from 'lucide-react'
import { useRef } from 'react'
import { PixCodeField } from '@/web/components/pix-code-field'
import { QrCode } from '@/web/components/qr-code'
import { Button } from '@/web/components/ui/button'

/** An authorisation code (PIX Automático, Journey 2): QR of 200 px, the copy-and-paste text and its copy button. */
export function PixCodeBlock({ code }: { code: string }) {
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
      <QrCode value={code} size={200} label="QR Code PIX" />
      <PixCodeField ref={ref} code={code} />
      <Button size="sm" onClick={() => void copy()}>
        <Copy aria-hidden="true" />
        Copiar código
      </Button>
    </div>
  )
}
