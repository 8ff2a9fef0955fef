import * as React from 'react'
import { Link, NavLink, useLocation } from 'react-router-dom'
import * as NavigationMenu from '@radix-ui/react-navigation-menu'
import { ChevronDown, Mail, Phone, Search } from 'lucide-react'
import { occasionLinks, site } from '@/config/site'
import { cx } from '@/lib/cx'
import { Logo } from './Logo'
import { MobileMenu } from './MobileMenu'

const navLinkClass = ({ isActive }: { isActive: boolean }) =>
  cx(
    'rounded-md px-3 py-2 text-sm font-semibold uppercase tracking-wider transition-colors hover:bg-rose-100 hover:text-rose-700',
    isActive ? 'text-rose-700' : 'text-ink-700',
  )

function TopBar() {
  return (
    <div className="bg-ink-900 text-cream-100">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-x-6 gap-y-1 px-4 py-2 text-xs sm:text-sm">
        <div className="flex flex-wrap items-center gap-x-5 gap-y-1">
          <a
            href={`mailto:${site.email}`}
            className="inline-flex items-center gap-1.5 hover:text-rose-200"
          >
            <Mail className="size-3.5" aria-hidden="true" />
            {site.email}
          </a>
          <a href={site.phoneHref} className="inline-flex items-center gap-1.5 hover:text-rose-200">
            <Phone className="size-3.5" aria-hidden="true" />
            {site.phone}
          </a>
        </div>
        <Link
          to="/build-bouquet"
          className="rounded-full bg-rose-600 px-4 py-1 font-bold uppercase tracking-wider text-white hover:bg-rose-700"
        >
          SHOP NOW
        </Link>
      </div>
    </div>
  )
}

/** Desktop navigation; Radix's defaults are the spec's delays: hover 200 ms, skip 300 ms, close 150 ms. */
function DesktopNav() {
  const location = useLocation()
  const [value, setValue] = React.useState('')
  const root = React.useRef<HTMLElement>(null)
  // biome-ignore lint/correctness/useExhaustiveDependencies: closes the menu whenever the page changes
  React.useEffect(() => {
    setValue('')
  }, [location.pathname])
  // Radix adds a focusable, aria-hidden "focus proxy" after the open trigger. The dropdown's
  // links follow the trigger in the page anyway, so Tab reaches them without it: take it out of
  // the tab order (a focusable element hidden from screen readers is an accessibility fault).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs again each time the open item changes
  React.useLayoutEffect(() => {
    root.current?.querySelectorAll('li > span[aria-hidden="true"][tabindex="0"]').forEach((el) => {
      el.setAttribute('tabindex', '-1')
    })
  }, [value])
  return (
    <NavigationMenu.Root
      ref={root}
      value={value}
      onValueChange={setValue}
      delayDuration={200}
      skipDelayDuration={300}
      className="relative z-20 hidden md:block"
      aria-label="Main"
    >
      <NavigationMenu.List className="flex items-center gap-1">
        <NavigationMenu.Item>
          <NavLink to="/" end className={navLinkClass}>
            Home
          </NavLink>
        </NavigationMenu.Item>
        <NavigationMenu.Item>
          <NavLink to="/gifts-retail" className={navLinkClass}>
            Gifts &amp; Retail
          </NavLink>
        </NavigationMenu.Item>
        <NavigationMenu.Item>
          <NavLink to="/weddings" className={navLinkClass}>
            Weddings
          </NavLink>
        </NavigationMenu.Item>
        <NavigationMenu.Item value="occasions">
          <NavigationMenu.Trigger className="group inline-flex items-center gap-1 rounded-md px-3 py-2 text-sm font-semibold uppercase tracking-wider text-ink-700 hover:bg-rose-100 hover:text-rose-700 data-[state=open]:bg-rose-100">
            Occasions
            <ChevronDown
              className="size-4 transition-transform group-data-[state=open]:rotate-180"
              aria-hidden="true"
            />
          </NavigationMenu.Trigger>
          <NavigationMenu.Content className="absolute right-0 top-full mt-2 w-[min(30rem,90vw)] rounded-lg border bg-card p-3 shadow-xl data-[motion]:animate-fade-in">
            <ul className="grid grid-cols-2 gap-1">
              {occasionLinks.map((o) => (
                <li key={o.to}>
                  <NavigationMenu.Link asChild>
                    <Link
                      to={o.to}
                      className="block rounded-md px-3 py-2.5 text-sm font-semibold text-ink-700 hover:bg-rose-100 hover:text-rose-700"
                    >
                      {o.label}
                    </Link>
                  </NavigationMenu.Link>
                </li>
              ))}
            </ul>
          </NavigationMenu.Content>
        </NavigationMenu.Item>
      </NavigationMenu.List>
    </NavigationMenu.Root>
  )
}

/** The contact bar scrolls away; only the logo and navigation stay at the top (a phone keeps
 * most of its screen for the page). */
export function Header() {
  return (
    <>
      <header>
        <TopBar />
      </header>
      <div
        data-header-bar
        className="sticky top-0 z-30 border-b bg-cream-100/95 backdrop-blur supports-[backdrop-filter]:bg-cream-100/85"
      >
        <div className="mx-auto flex max-w-7xl items-center justify-between gap-4 px-4 py-2">
          <Logo />
          <div className="flex items-center gap-1">
            <DesktopNav />
            <Link
              to="/flowers"
              aria-label="Search flowers"
              title="Search flowers"
              className="rounded-full p-2 text-ink-700 hover:bg-rose-100 hover:text-rose-700"
            >
              <Search className="size-5" aria-hidden="true" />
            </Link>
            <MobileMenu />
          </div>
        </div>
      </div>
    </>
  )
}
