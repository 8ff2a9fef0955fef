import { NavLink, Outlet } from 'react-router-dom'
import {
  Database,
  FileCode2,
  Zap,
  FolderOpen,
  KeyRound,
  Radio,
  ScrollText,
  Table2,
  BookOpen,
  Settings,
  Moon,
  Sun,
} from 'lucide-react'
import { Suspense, useEffect, useState } from 'react'
import { applyTheme, loadTheme, storeTheme, type Theme } from '@/lib/theme'
import { useSession } from '@/lib/session'
import { cn } from '@/lib/cn'
import { Shortcuts } from './Shortcuts'
import { comboLabel, isMac, TOGGLE_THEME } from '@/lib/shortcuts'

const NAV = [
  { to: '/tables', label: 'Table editor', icon: Table2 },
  { to: '/sql', label: 'SQL editor', icon: FileCode2 },
  { to: '/database', label: 'Database', icon: Database },
  { to: '/auth', label: 'Authentication', icon: KeyRound },
  { to: '/storage', label: 'Storage', icon: FolderOpen },
  { to: '/realtime', label: 'Realtime', icon: Radio },
  { to: '/functions', label: 'Edge Functions', icon: Zap },
  { to: '/logs', label: 'Logs', icon: ScrollText },
  { to: '/api-docs', label: 'API docs', icon: BookOpen },
  { to: '/settings', label: 'Project settings', icon: Settings },
]

export function Layout() {
  const { session } = useSession()
  const [theme, setTheme] = useState<Theme>(loadTheme)
  useEffect(() => applyTheme(theme), [theme])
  const toggleTheme = () => {
    const next = theme === 'dark' ? 'light' : 'dark'
    storeTheme(next)
    setTheme(next)
  }
  return (
    <div className="flex h-full">
      <nav
        aria-label="Studio"
        className="flex w-52 shrink-0 flex-col border-r border-border bg-slate-900 text-slate-200"
      >
        <div className="px-4 py-4">
          <p className="text-xs uppercase tracking-wider text-emerald-400">supagate Studio</p>
          <p className="mt-1 truncate font-semibold text-white" title={session.project}>
            {session.project}
          </p>
        </div>
        <ul className="flex flex-col gap-0.5 px-2">
          {NAV.map(({ to, label, icon: Icon }) => (
            <li key={to}>
              <NavLink
                to={to}
                className={({ isActive }) =>
                  cn(
                    'flex items-center gap-2 rounded-md px-2.5 py-2 hover:bg-slate-800',
                    isActive && 'bg-slate-800 text-white',
                  )
                }
              >
                <Icon className="size-4" aria-hidden />
                {label}
              </NavLink>
            </li>
          ))}
        </ul>
        <Shortcuts onToggleTheme={toggleTheme} />
        <button
          type="button"
          className="mx-2 flex items-center gap-2 rounded-md px-2.5 py-2 text-left hover:bg-slate-800"
          aria-label={theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme'}
          title={`Shortcut ${comboLabel(TOGGLE_THEME, isMac(navigator.platform))} · ? lists all`}
          onClick={toggleTheme}
        >
          {theme === 'dark' ? (
            <Sun className="size-4" aria-hidden />
          ) : (
            <Moon className="size-4" aria-hidden />
          )}
          {theme === 'dark' ? 'Light theme' : 'Dark theme'}
        </button>
        <p className="break-all px-4 py-3 text-xs text-slate-400">
          API {session.api_url}
          <br />v{session.version}
        </p>
      </nav>
      <main className="min-w-0 flex-1 overflow-auto">
        <Suspense fallback={<p className="p-6 text-muted-foreground">Loading…</p>}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  )
}

/** A page's title row with its actions. */
export function PageHeader({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <header className="flex flex-wrap items-center gap-3 border-b border-border bg-panel px-5 py-3">
      <h1 className="mr-auto text-base font-semibold">{title}</h1>
      {children}
    </header>
  )
}
