import {
  CreditCard,
  LayoutDashboard,
  LineChart,
  Loader2,
  LogOut,
  Menu,
  Package,
  Receipt,
  Settings,
  ShieldCheck,
  Tags,
  User,
  UserCog,
  Users,
  Wallet,
} from 'lucide-react'
import { type ComponentType, useEffect, useState } from 'react'
import { Link, NavLink, Outlet, useLocation, useNavigate } from 'react-router'
import type { SessionUser } from '@/domain/contracts/auth'
import { paths } from '@/web/app/paths'
import { Badge } from '@/web/components/ui/badge'
import { Button } from '@/web/components/ui/button'
import { Sheet, SheetContent, SheetDescription, SheetTitle, SheetTrigger } from '@/web/components/ui/sheet'
import { cn } from '@/web/lib/cn'
import { useSignOutAndLeave } from '@/web/lib/sign-out'
import { ReauthenticationDialog } from '@/web/shared/auth/reauth'
import { useSessionUser } from '@/web/lib/session'
import { SiteFooter } from '@/web/shared/site/site-footer'
import { brandName, LogoMark } from '@/web/shared/site/logo'

type NavItem = { to: string; label: string; icon: ComponentType<{ className?: string }>; end?: boolean }

const customerNav: NavItem[] = [
  { to: paths.dashboard, label: 'Visão geral', icon: LayoutDashboard, end: true },
  { to: paths.account, label: 'Minha conta', icon: User },
  { to: paths.mySubscriptions, label: 'Minhas assinaturas', icon: Package },
  { to: paths.subscriptions, label: 'Planos', icon: Tags },
  { to: paths.payments, label: 'Pagamentos', icon: Wallet },
]

/** Admins open /dashboard on the business overview; their own subscription's overview moves here. */
const adminOwnNav: NavItem[] = [
  { to: paths.myOverview, label: 'Minha assinatura', icon: LayoutDashboard },
  ...customerNav.slice(1),
]

const adminNav: NavItem[] = [
  { to: paths.dashboard, label: 'Visão geral do negócio', icon: LineChart, end: true },
  { to: paths.adminSubscriptions, label: 'Assinaturas', icon: Receipt },
  { to: paths.adminPayments, label: 'Pagamentos', icon: CreditCard },
  { to: paths.customers, label: 'Clientes', icon: Users },
  { to: paths.adminPlans, label: 'Planos', icon: Tags },
  { to: paths.users, label: 'Usuários', icon: UserCog },
  { to: paths.settings, label: 'Configurações', icon: Settings },
]

function NavLinks({ items }: { items: NavItem[] }) {
  return (
    <ul className="flex flex-col gap-1">
      {items.map(({ to, label, icon: Icon, end }) => (
        <li key={to}>
          <NavLink
            to={to}
            end={end ?? false}
            className={({ isActive }) =>
              cn(
                'flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium transition-colors',
                isActive
                  ? 'bg-primary text-primary-foreground'
                  : 'text-foreground hover:bg-accent hover:text-accent-foreground',
              )
            }
          >
            <Icon className="size-4 shrink-0" aria-hidden="true" />
            {label}
          </NavLink>
        </li>
      ))}
    </ul>
  )
}

function Brand() {
  return (
    <Link
      to={paths.home}
      className="flex min-w-0 items-center gap-2 rounded-md font-semibold text-foreground"
      aria-label={`${brandName} — página inicial`}
    >
      <LogoMark />
      <span className="text-sm leading-tight">{brandName}</span>
    </Link>
  )
}

/** Everything the sidebar and the mobile drawer show: navigation, then who is signed in and 'Sair'. */
function SidebarContent({
  user,
  idPrefix,
  onSignOut,
  signingOut,
}: {
  user: SessionUser
  idPrefix: string
  onSignOut: () => void
  signingOut: boolean
}) {
  const adminHeadingId = `${idPrefix}-admin-heading`
  return (
    <div className="flex flex-1 flex-col gap-6 p-4">
      <nav aria-label="Painel">
        <NavLinks items={user.isAdmin ? adminOwnNav : customerNav} />
      </nav>
      {user.isAdmin ? (
        <nav aria-labelledby={adminHeadingId} className="flex flex-col gap-2">
          <h2
            id={adminHeadingId}
            className="flex items-center gap-2 px-3 text-xs font-semibold uppercase tracking-wide text-muted-foreground"
          >
            <ShieldCheck className="size-4" aria-hidden="true" />
            Administração
          </h2>
          <NavLinks items={adminNav} />
        </nav>
      ) : null}
      <div className="mt-auto flex flex-col gap-3 border-t border-border pt-4">
        <div className="flex min-w-0 flex-col gap-1.5 px-1">
          <span className="text-xs text-muted-foreground">Conectado como</span>
          <span className="break-all text-sm font-medium">{user.email}</span>
          {user.isAdmin ? (
            <Badge variant="secondary" className="self-start">
              Administrador
            </Badge>
          ) : null}
        </div>
        <Button variant="outline" className="w-full" disabled={signingOut} onClick={onSignOut}>
          {signingOut ? <Loader2 className="animate-spin" aria-hidden="true" /> : <LogOut aria-hidden="true" />}
          Sair
        </Button>
      </div>
    </div>
  )
}

/** The frame of every /dashboard page: sidebar from md up, a drawer below, and the page in <main>. */
export function DashboardLayout() {
  const { user } = useSessionUser()
  const location = useLocation()
  const [menuOpen, setMenuOpen] = useState(false)
  const navigate = useNavigate()
  // Owned here, not by the sidebar: the drawer's copy of the sidebar may close before the answer arrives.
  const signOut = useSignOutAndLeave(() => void navigate(paths.home))
  const sidebarProps = { onSignOut: () => signOut.mutate(), signingOut: signOut.isPending }

  // A link chosen in the drawer changes the page: the drawer has done its job.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation on purpose
  useEffect(() => {
    setMenuOpen(false)
  }, [location.pathname])

  // RequireUser renders this layout only with a user; null is the instant of signing out.
  if (!user) return null

  return (
    <div className="min-h-dvh md:grid md:grid-cols-[16rem_minmax(0,1fr)]">
      <a
        href="#conteudo"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded-md focus:bg-background focus:px-4 focus:py-2 focus:shadow"
      >
        Pular para o conteúdo
      </a>
      {/* The column carries the background and the border down the whole page; the panel inside stays in view. */}
      <div data-sidebar-column className="hidden border-r border-border bg-muted/40 md:block">
        <aside className="sticky top-0 flex h-dvh flex-col overflow-y-auto">
          <div className="flex h-16 shrink-0 items-center border-b border-border px-4">
            <Brand />
          </div>
          <SidebarContent user={user} idPrefix="sidebar" {...sidebarProps} />
        </aside>
      </div>

      <div className="flex min-h-dvh min-w-0 flex-col">
        <header className="sticky top-0 z-30 flex h-14 items-center gap-3 border-b border-border bg-background/95 px-3 md:hidden">
          <Sheet open={menuOpen} onOpenChange={setMenuOpen}>
            <SheetTrigger asChild>
              <Button variant="ghost" size="icon" aria-label="Abrir menu">
                <Menu className="size-5" aria-hidden="true" />
              </Button>
            </SheetTrigger>
            <SheetContent side="left">
              <div className="flex h-14 shrink-0 items-center border-b border-border px-4 pr-12">
                <SheetTitle className="sr-only">Menu</SheetTitle>
                <SheetDescription className="sr-only">Navegação do painel e saída da conta</SheetDescription>
                <Brand />
              </div>
              <SidebarContent user={user} idPrefix="drawer" {...sidebarProps} />
            </SheetContent>
          </Sheet>
          <Brand />
        </header>

        <main id="conteudo" tabIndex={-1} className="flex-1 focus:outline-none">
          <div className="mx-auto w-full max-w-6xl px-4 py-6 sm:px-6 lg:px-8 lg:py-8">
            <Outlet />
          </div>
        </main>
        <SiteFooter />
      </div>
      <ReauthenticationDialog />
    </div>
  )
}
