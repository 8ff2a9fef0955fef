import { Link } from 'react-router-dom'
import { fullAddress, site } from '@/config/site'
import { useShopWeek, weekLines } from '@/features/hours/week'
import { LogoMark } from './Logo'

export const footerColumns = [
  {
    title: 'Navigation',
    links: [
      { to: '/', label: 'Home' },
      { to: '/our-shop', label: 'Our Shop' },
      { to: '/about-us', label: 'About Us' },
      { to: '/occasions/best-sellers', label: 'Occasions' },
      { to: '/contact', label: 'Contact' },
    ],
  },
  {
    title: 'Shop & Services',
    links: [
      { to: '/build-bouquet', label: 'Build Your Own Bouquet' },
      { to: '/happy-hour', label: 'Happy Hour Specials' },
      { to: '/happy-hour', label: 'Monday-Friday Specials' },
      { to: '/gifts-retail', label: 'Gifts & Retail' },
      { to: '/weddings', label: 'Wedding Services' },
      { to: '/wedding-consult', label: 'Wedding Consult' },
      { to: '/custom-designs', label: 'Custom Designs' },
    ],
  },
  {
    title: 'Quick Links',
    links: [
      { to: '/flowers', label: 'All Flowers & Gifts' },
      { to: '/policies', label: 'Policies' },
      { to: '/terms-conditions', label: 'Terms & Conditions' },
      { to: '/auth', label: 'Admin Login' },
    ],
  },
] as const

export function Footer() {
  const hours = weekLines(useShopWeek())
  return (
    <footer className="mt-16 bg-ink-900 text-cream-200">
      <div className="mx-auto grid max-w-7xl gap-10 px-4 py-12 sm:grid-cols-2 lg:grid-cols-4">
        <div>
          <div className="inline-block rounded-md bg-cream-100 p-2">
            <LogoMark />
          </div>
          <p className="mt-4 text-sm leading-relaxed text-cream-200/90">
            A friendly neighbourhood flower shop in {site.address.city}, Utah.
          </p>
          <address className="mt-3 text-sm not-italic leading-relaxed text-cream-200/90">
            {fullAddress}
            <br />
            <a href={site.phoneHref} className="hover:text-rose-200">
              {site.phone}
            </a>
            <br />
            <a href={`mailto:${site.email}`} className="hover:text-rose-200">
              {site.email}
            </a>
          </address>
          <h2 className="mt-4 text-sm font-semibold text-white">Opening hours</h2>
          <dl
            className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 text-sm text-cream-200/90"
            data-testid="footer-hours"
          >
            {hours.map((h) => (
              <div key={h.days} className="contents">
                <dt>{h.days}</dt>
                <dd>{h.time}</dd>
              </div>
            ))}
          </dl>
        </div>
        {footerColumns.map((col) => (
          <nav key={col.title} aria-label={col.title}>
            <h2 className="font-display text-xl font-semibold text-white">{col.title}</h2>
            <ul className="mt-3 space-y-2 text-sm">
              {col.links.map((l) => (
                <li key={l.label}>
                  <Link to={l.to} className="text-cream-200/90 hover:text-rose-200 hover:underline">
                    {l.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        ))}
      </div>
      <div className="border-t border-white/10">
        <p className="mx-auto max-w-7xl px-4 py-5 text-center text-xs text-cream-200/80">
          © {site.copyrightYear} {site.name}. All rights reserved.
        </p>
      </div>
    </footer>
  )
}
