import { MessageCircle } from 'lucide-react'
import { useSiteConfig } from '@/web/lib/site-config'

const message = 'Olá! Gostaria de saber mais sobre os planos da plataforma de atendimento.'

/** The floating contact button on every page. */
export function WhatsAppButton() {
  const { supportWhatsapp } = useSiteConfig()
  return (
    <a
      href={`https://wa.me/${supportWhatsapp}?text=${encodeURIComponent(message)}`}
      target="_blank"
      rel="noopener noreferrer"
      aria-label="Fale conosco pelo WhatsApp"
      className="fixed bottom-5 right-5 z-40 flex size-14 items-center justify-center rounded-full bg-[#128c4b] text-white shadow-lg hover:bg-[#0f7a41] focus-visible:ring-2 focus-visible:ring-ring"
    >
      <MessageCircle className="size-7" aria-hidden="true" />
    </a>
  )
}
