import { QRCodeSVG } from 'qrcode.react'

/** A QR code, centred on a white frame so any theme scans; `label` is its accessible name. */
export function QrCode({ value, size, label }: { value: string; size: number; label: string }) {
  return (
    <div className="flex justify-center">
      <div className="rounded-lg border border-border bg-white p-3">
        <QRCodeSVG value={value} size={size} title={label} role="img" aria-label={label} />
      </div>
    </div>
  )
}
