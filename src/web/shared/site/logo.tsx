import { cn } from '@/web/lib/cn'

/** The brand mark, inline so the header costs no extra request. */
export function LogoMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={cn('size-8 shrink-0', className)} aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" className="fill-primary" />
      <path
        d="M9 10.5A2.5 2.5 0 0 1 11.5 8h9A2.5 2.5 0 0 1 23 10.5v6a2.5 2.5 0 0 1-2.5 2.5H15l-4 3.5V19h.5"
        fill="none"
        stroke="#fff"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
      <circle cx="13" cy="13.5" r="1.3" fill="#fff" />
      <circle cx="16" cy="13.5" r="1.3" fill="#fff" />
      <circle cx="19" cy="13.5" r="1.3" fill="#fff" />
    </svg>
  )
}

export const brandName = 'Atendimento Multicanal'
