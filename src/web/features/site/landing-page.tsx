import { ArrowRight, Bot, Cloud, MessagesSquare, Users, Workflow } from 'lucide-react'
import { Link } from 'react-router'
import { paths } from '@/web/app/paths'
import { Button } from '@/web/components/ui/button'
import { useDocumentTitle } from '@/web/lib/use-document-title'
import { useSessionUser } from '@/web/lib/session'
import { SessionPlaceholder, SitePage } from '@/web/shared/site/site-layout'

/** The five benefits of the spec (section 1), in its order. */
const benefits = [
  { icon: Users, text: 'Vários atendentes conectados ao mesmo número, ao mesmo tempo.' },
  { icon: MessagesSquare, text: 'WhatsApp, Instagram, Facebook, e-mail e outros canais em uma só tela.' },
  {
    icon: Workflow,
    text: 'Gestão de conversas com transferência entre departamentos e acompanhamento de desempenho.',
  },
  { icon: Bot, text: 'Respostas rápidas com mensagens automáticas, etiquetas e chatbots.' },
  { icon: Cloud, text: 'Dados protegidos na nuvem, acessíveis de qualquer lugar.' },
] as const

const channels = [
  { name: 'WhatsApp', color: 'bg-[#128c4b]' },
  { name: 'Instagram', color: 'bg-[#c13584]' },
  { name: 'Facebook', color: 'bg-[#1877f2]' },
  { name: 'E-mail', color: 'bg-slate-600' },
] as const

export function LandingPage() {
  useDocumentTitle(
    'Atendimento multicanal para sua empresa',
    'Atenda clientes pelo WhatsApp, Instagram, Facebook e e-mail em uma só tela, com vários atendentes no mesmo número. Conheça os planos.',
  )
  const { user, isLoading } = useSessionUser()

  const action = isLoading ? (
    <SessionPlaceholder labels={['Fazer Login']} />
  ) : user ? (
    <Button asChild size="sm">
      <Link to={paths.dashboard}>Ir para o Dashboard</Link>
    </Button>
  ) : (
    <Button asChild size="sm">
      <Link to={paths.login}>Fazer Login</Link>
    </Button>
  )

  return (
    <SitePage actions={action}>
      <section className="bg-gradient-to-b from-accent to-background">
        <div className="mx-auto grid max-w-6xl items-center gap-10 px-4 py-12 sm:px-6 md:grid-cols-[1.2fr_1fr] md:py-20">
          <div className="flex flex-col gap-5">
            <h1 className="text-3xl font-bold leading-tight tracking-tight text-balance sm:text-4xl lg:text-5xl">
              Todos os canais de atendimento da sua empresa em um só lugar
            </h1>
            <p className="text-lg text-muted-foreground text-pretty">
              A plataforma de atendimento multicanal que permite às equipes de vendas e suporte atender muitos clientes
              ao mesmo tempo, a partir de um único painel.
            </p>
            <div className="flex flex-col gap-3 sm:flex-row">
              <Button asChild size="lg" className="w-full sm:w-auto">
                <Link to={paths.plans}>
                  Ver Planos de Assinatura
                  <ArrowRight aria-hidden="true" />
                </Link>
              </Button>
            </div>
          </div>
          <ChannelsPreview />
        </div>
      </section>

      <section aria-labelledby="beneficios" className="mx-auto max-w-6xl px-4 py-12 sm:px-6 md:py-16">
        <h2 id="beneficios" className="text-2xl font-bold tracking-tight sm:text-3xl">
          Por que escolher nossa plataforma
        </h2>
        <ul className="mt-8 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {benefits.map(({ icon: Icon, text }) => (
            <li key={text} className="flex items-start gap-4 rounded-lg border border-border bg-card p-5 shadow-sm">
              <span className="flex size-10 shrink-0 items-center justify-center rounded-md bg-secondary text-secondary-foreground">
                <Icon className="size-5" aria-hidden="true" />
              </span>
              <span className="pt-2 leading-6">{text}</span>
            </li>
          ))}
        </ul>
        <div className="mt-10 flex flex-col items-start gap-3 rounded-lg bg-primary p-6 text-primary-foreground sm:flex-row sm:items-center sm:justify-between md:p-8">
          <p className="text-lg font-semibold">
            Escolha o plano ideal para a sua equipe, com cobrança mensal em reais.
          </p>
          <Button asChild variant="secondary" size="lg" className="w-full sm:w-auto">
            <Link to={paths.plans}>Conhecer os planos</Link>
          </Button>
        </div>
      </section>
    </SitePage>
  )
}

/** A light, purely decorative picture of the shared inbox (HTML, no image download). */
function ChannelsPreview() {
  return (
    <div aria-hidden="true" className="rounded-xl border border-border bg-card p-4 shadow-lg">
      <div className="mb-3 flex items-center gap-1.5">
        <span className="size-2.5 rounded-full bg-red-400" />
        <span className="size-2.5 rounded-full bg-amber-400" />
        <span className="size-2.5 rounded-full bg-emerald-400" />
      </div>
      <ul className="flex flex-col gap-2">
        {channels.map((channel, index) => (
          <li key={channel.name} className="flex items-center gap-3 rounded-md bg-muted px-3 py-2.5">
            <span className={`size-8 shrink-0 rounded-full ${channel.color}`} />
            <span className="flex min-w-0 flex-1 flex-col gap-1">
              <span className="text-sm font-medium">{channel.name}</span>
              <span className="h-2 w-4/5 rounded bg-border" />
            </span>
            <span className="rounded-full bg-primary px-2 py-0.5 text-xs text-primary-foreground">{index + 1}</span>
          </li>
        ))}
      </ul>
    </div>
  )
}
