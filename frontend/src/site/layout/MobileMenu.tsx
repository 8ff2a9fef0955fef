import * as React from 'react'
import { createPortal } from 'react-dom'
import { Link, useLocation } from 'react-router-dom'
import { occasionLinks } from '@/config/site'
import { MENU_OPENING_MS, menuReducer } from './menuState'
import { cx } from '@/lib/cx'

export const mobileMainLinks = [
  { to: '/', label: 'Home' },
  { to: '/gifts-retail', label: 'Gifts & Retail' },
  { to: '/weddings', label: 'Weddings' },
  { to: '/happy-hour', label: 'Happy Hour' },
  { to: '/our-shop', label: 'Our Shop' },
  { to: '/about-us', label: 'About Us' },
  { to: '/contact', label: 'Contact' },
  { to: '/policies', label: 'Policies' },
  { to: '/terms-conditions', label: 'Terms & Conditions' },
] as const

/** The flower-shaped toggle: five petals that open into a bloom while the menu is open. */
function FlowerIcon({ open }: { open: boolean }) {
  return (
    <svg viewBox="0 0 40 40" className="size-9" aria-hidden="true">
      {[0, 72, 144, 216, 288].map((a) => (
        <ellipse
          key={a}
          cx="20"
          cy="11"
          rx="6"
          ry="9"
          fill={open ? '#cf6a84' : '#e08ca0'}
          transform={`rotate(${open ? a + 36 : a} 20 20)`}
          style={{ transition: 'transform 600ms ease, fill 300ms' }}
        />
      ))}
      <circle cx="20" cy="20" r="5" fill="#f3c66b" />
    </svg>
  )
}

export function MobileMenu() {
  const [state, dispatch] = React.useReducer(menuReducer, 'closed')
  const location = useLocation()
  const panelId = React.useId()
  const toggleRef = React.useRef<HTMLButtonElement>(null)
  const [top, setTop] = React.useState(0)

  React.useEffect(() => {
    if (state !== 'opening') return
    const t = setTimeout(() => dispatch('opened'), MENU_OPENING_MS)
    return () => clearTimeout(t)
  }, [state])
  // biome-ignore lint/correctness/useExhaustiveDependencies: closes the menu whenever the page changes
  React.useEffect(() => {
    dispatch('close')
  }, [location.pathname])

  const visible = state !== 'closed'
  // While open: the panel fills the screen below the header, the page behind it stays still,
  // and Esc closes it and gives the focus back to the toggle.
  React.useEffect(() => {
    if (!visible) return
    const bar = toggleRef.current?.closest('[data-header-bar]')
    setTop(Math.max(0, bar?.getBoundingClientRect().bottom ?? 0))
    const root = document.documentElement
    const previous = root.style.overflow
    root.style.overflow = 'hidden'
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        dispatch('close')
        toggleRef.current?.focus()
        return
      }
      // Tab goes round the toggle and the panel's links, never to the page behind.
      if (e.key !== 'Tab') return
      const panel = document.getElementById(panelId)
      const items = [
        toggleRef.current,
        ...Array.from(panel?.querySelectorAll<HTMLElement>('a[href], button') ?? []),
      ].filter((el): el is HTMLElement => el !== null)
      if (items.length === 0) return
      e.preventDefault()
      const i = items.indexOf(document.activeElement as HTMLElement)
      const next = e.shiftKey ? (i <= 0 ? items.length - 1 : i - 1) : (i + 1) % items.length
      items[next].focus()
    }
    window.addEventListener('keydown', onKey)
    return () => {
      root.style.overflow = previous
      window.removeEventListener('keydown', onKey)
    }
  }, [visible, panelId])

  const close = () => dispatch('close')
  return (
    <div className="md:hidden">
      <button
        ref={toggleRef}
        type="button"
        onClick={() => dispatch('toggle')}
        aria-expanded={visible}
        aria-controls={panelId}
        aria-label={visible ? 'Close menu' : 'Open menu'}
        data-state={state}
        className="rounded-full p-1 hover:bg-rose-100"
      >
        <FlowerIcon open={visible} />
      </button>
      {/* In a portal: the header's backdrop blur would otherwise make it the panel's frame. */}
      {visible &&
        createPortal(
          <nav
            id={panelId}
            aria-label="Mobile"
            data-state={state}
            style={{ top }}
            className={cx(
              'fixed inset-x-0 bottom-0 z-40 overflow-y-auto md:hidden overscroll-contain border-t bg-cream-50 px-4 pb-6 pt-1 shadow-xl',
              state === 'opening' ? 'animate-fade-in' : '',
            )}
          >
            <ul className="divide-y divide-border">
              {mobileMainLinks.map((l) => (
                <li key={l.to}>
                  <Link
                    to={l.to}
                    onClick={close}
                    className="block py-2.5 font-semibold uppercase tracking-wider text-ink-700 hover:text-rose-700"
                  >
                    {l.label}
                  </Link>
                </li>
              ))}
            </ul>
            <p className="mt-3 font-display text-xl font-semibold text-sage-700">Occasions</p>
            <ul className="mt-1 grid grid-cols-2 gap-x-3">
              {occasionLinks.map((o) => (
                <li key={o.to}>
                  <Link
                    to={o.to}
                    onClick={close}
                    className="block py-1.5 text-sm font-semibold text-ink-700 hover:text-rose-700"
                  >
                    {o.label}
                  </Link>
                </li>
              ))}
            </ul>
            <Link
              to="/build-bouquet"
              onClick={close}
              className="mt-4 block rounded-md bg-primary py-3 text-center font-bold uppercase tracking-wider text-white hover:bg-rose-700"
            >
              BUILD YOUR BOUQUET
            </Link>
          </nav>,
          document.body,
        )}
    </div>
  )
}
