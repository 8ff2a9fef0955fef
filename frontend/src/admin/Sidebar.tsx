import * as React from 'react'
import * as Dialog from '@radix-ui/react-dialog'
import { NavLink } from 'react-router-dom'
import {
  FileUp,
  FolderTree,
  Inbox,
  LayoutDashboard,
  LogOut,
  Package,
  PanelLeft,
  Users,
  Settings,
} from 'lucide-react'
import { useUnreadCount } from '@/features/requests/api'
import { useIsMobile } from '@/lib/useIsMobile'
import { cn } from '@/lib/utils'
import {
  SIDEBAR_WIDTH,
  SIDEBAR_WIDTH_ICON,
  SIDEBAR_WIDTH_MOBILE,
  isToggleShortcut,
  readSidebarCookie,
  sidebarCookie,
} from './sidebarState'

interface SidebarCtx {
  open: boolean
  mobile: boolean
  mobileOpen: boolean
  toggle: () => void
  setMobileOpen: (o: boolean) => void
}
const Ctx = React.createContext<SidebarCtx | null>(null)
export const useSidebar = () => React.useContext(Ctx)!

export function SidebarProvider({ children }: { children: React.ReactNode }) {
  const mobile = useIsMobile()
  const [open, setOpen] = React.useState(() => readSidebarCookie(document.cookie) ?? true)
  const [mobileOpen, setMobileOpen] = React.useState(false)
  const toggle = React.useCallback(() => {
    if (mobile) {
      setMobileOpen((o) => !o)
      return
    }
    setOpen((o) => {
      // biome-ignore lint/suspicious/noDocumentCookie: the sidebar state cookie, read back on the next visit (shadcn's sidebar)
      document.cookie = sidebarCookie(!o)
      return !o
    })
  }, [mobile])
  React.useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isToggleShortcut(e)) {
        e.preventDefault()
        toggle()
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [toggle])
  return (
    <Ctx.Provider value={{ open, mobile, mobileOpen, toggle, setMobileOpen }}>
      <div
        className="flex min-h-screen w-full"
        style={
          {
            '--sidebar-width': SIDEBAR_WIDTH,
            '--sidebar-width-icon': SIDEBAR_WIDTH_ICON,
            '--sidebar-width-mobile': SIDEBAR_WIDTH_MOBILE,
          } as React.CSSProperties
        }
      >
        {children}
      </div>
    </Ctx.Provider>
  )
}

const items = [
  { to: '/admin', label: 'Dashboard', icon: LayoutDashboard, end: true },
  { to: '/admin/products', label: 'Products', icon: Package, end: false },
  { to: '/admin/categories', label: 'Categories', icon: FolderTree, end: false },
  { to: '/admin/import', label: 'Import Products', icon: FileUp, end: false },
  { to: '/admin/requests', label: 'Requests', icon: Inbox, end: false },
  { to: '/admin/staff', label: 'Staff', icon: Users, end: false },
  { to: '/admin/settings', label: 'Settings', icon: Settings, end: false },
]

function Menu({
  collapsed,
  onSignOut,
  onNavigate,
}: {
  collapsed: boolean
  onSignOut: () => void
  onNavigate?: () => void
}) {
  const unread = useUnreadCount().data ?? 0
  const linkClass = ({ isActive }: { isActive: boolean }) =>
    cn(
      'flex h-10 items-center gap-3 overflow-hidden rounded-md px-3 text-sm font-semibold transition-colors hover:bg-sidebar-accent hover:text-rose-700',
      isActive ? 'bg-sidebar-accent text-rose-700' : 'text-ink-700',
      collapsed && 'justify-center px-0',
    )
  return (
    <nav aria-label="Admin" className="flex flex-1 flex-col gap-1 p-2">
      {items.map((i) => {
        const badge = i.to === '/admin/requests' && unread ? unread : 0
        return (
          <NavLink
            key={i.to}
            to={i.to}
            end={i.end}
            className={linkClass}
            onClick={onNavigate}
            title={collapsed ? i.label : undefined}
          >
            <span className="relative shrink-0">
              <i.icon className="size-5" aria-hidden="true" />
              {badge > 0 && collapsed && (
                <span
                  className="absolute -right-1 -top-1 size-2 rounded-full bg-rose-600"
                  aria-hidden="true"
                />
              )}
            </span>
            <span className={collapsed ? 'sr-only' : ''}>{i.label}</span>
            {badge > 0 && (
              <span
                className={
                  collapsed
                    ? 'sr-only'
                    : 'ml-auto rounded-full bg-rose-600 px-2 py-0.5 text-xs font-bold text-white'
                }
                data-testid="unread-count"
              >
                {badge}
                <span className="sr-only"> unread</span>
              </span>
            )}
          </NavLink>
        )
      })}
      <button
        type="button"
        onClick={onSignOut}
        title={collapsed ? 'Sign Out' : undefined}
        className={cn(
          'mt-auto flex h-10 items-center gap-3 rounded-md px-3 text-sm font-semibold text-ink-700 hover:bg-sidebar-accent hover:text-rose-700',
          collapsed && 'justify-center px-0',
        )}
      >
        <LogOut className="size-5 shrink-0" aria-hidden="true" />
        <span className={collapsed ? 'sr-only' : ''}>Sign Out</span>
      </button>
    </nav>
  )
}

export function Sidebar({ onSignOut }: { onSignOut: () => void }) {
  const { open, mobile, mobileOpen, setMobileOpen } = useSidebar()
  if (mobile) {
    return (
      <Dialog.Root open={mobileOpen} onOpenChange={setMobileOpen}>
        <Dialog.Portal>
          <Dialog.Overlay className="fixed inset-0 z-40 bg-ink-900/40" />
          <Dialog.Content
            className="fixed inset-y-0 left-0 z-50 flex w-[var(--sidebar-width-mobile)] flex-col bg-sidebar shadow-xl"
            style={{ '--sidebar-width-mobile': '18rem' } as React.CSSProperties}
          >
            <Dialog.Title className="border-b p-4 font-display text-xl font-semibold">
              Shop Admin
            </Dialog.Title>
            <Dialog.Description className="sr-only">Admin navigation</Dialog.Description>
            <Menu collapsed={false} onSignOut={onSignOut} onNavigate={() => setMobileOpen(false)} />
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    )
  }
  return (
    <aside
      data-state={open ? 'expanded' : 'collapsed'}
      className="sticky top-0 flex h-screen shrink-0 flex-col border-r bg-sidebar transition-[width] duration-200"
      style={{ width: open ? 'var(--sidebar-width)' : 'var(--sidebar-width-icon)' }}
    >
      <div
        className={cn(
          'flex h-14 items-center border-b px-3 font-display text-xl font-semibold',
          !open && 'justify-center px-0',
        )}
      >
        {open ? 'Shop Admin' : <span aria-hidden="true">✿</span>}
      </div>
      <Menu collapsed={!open} onSignOut={onSignOut} />
    </aside>
  )
}

export function SidebarTrigger() {
  const { toggle, open, mobile, mobileOpen } = useSidebar()
  return (
    <button
      type="button"
      onClick={toggle}
      aria-label="Toggle sidebar"
      aria-expanded={mobile ? mobileOpen : open}
      title="Toggle sidebar (Ctrl/Cmd+B)"
      className="rounded-md p-2 hover:bg-rose-100"
    >
      <PanelLeft className="size-5" aria-hidden="true" />
    </button>
  )
}
