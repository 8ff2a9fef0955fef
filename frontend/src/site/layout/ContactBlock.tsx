import * as React from 'react'
import { Clock, Mail, MapPin, Phone } from 'lucide-react'
import { fullAddress, site } from '@/config/site'
import { useShopWeek, weekLines } from '@/features/hours/week'

/** The embedded map, shown once its host answers; when it cannot be reached (blocked, offline)
 * a card with the address and a link takes its place instead of a broken frame. */
function ShopMap() {
  const [reachable, setReachable] = React.useState<boolean | null>(null)
  React.useEffect(() => {
    let live = true
    const ctl = new AbortController()
    const timer = setTimeout(() => ctl.abort(), 8000)
    fetch(site.mapEmbedUrl, { mode: 'no-cors', signal: ctl.signal, referrerPolicy: 'no-referrer' })
      .then(() => live && setReachable(true))
      .catch(() => live && setReachable(false))
      .finally(() => clearTimeout(timer))
    return () => {
      live = false
      ctl.abort()
    }
  }, [])
  if (reachable === false) {
    return (
      <div
        className="flex h-full min-h-72 flex-col items-center justify-center gap-2 p-6 text-center"
        data-testid="map-fallback"
      >
        <MapPin className="size-8 text-rose-600" aria-hidden="true" />
        <p className="font-semibold">{fullAddress}</p>
        <p className="text-sm text-muted-foreground">The map cannot be shown right now.</p>
        <a
          href={site.mapLinkUrl}
          className="text-sm font-semibold text-rose-700 underline-offset-4 hover:underline"
          target="_blank"
          rel="noreferrer"
        >
          Open the map on OpenStreetMap
        </a>
      </div>
    )
  }
  if (reachable === null) return <div className="h-full min-h-72" aria-hidden="true" />
  return (
    <iframe
      title={`Map showing ${site.name} at ${fullAddress}`}
      src={site.mapEmbedUrl}
      className="h-full min-h-72 w-full"
      loading="lazy"
      referrerPolicy="no-referrer"
    />
  )
}

/** Address, phones, e-mail, hours and the embedded map (the site still works when the map does not load). */
export function ContactBlock({ heading = 'Visit the Shop' }: { heading?: string }) {
  const hours = weekLines(useShopWeek())
  return (
    <div className="grid gap-8 lg:grid-cols-2">
      <div className="space-y-5">
        <h2 className="font-display text-3xl font-semibold">{heading}</h2>
        <p className="flex items-start gap-3">
          <MapPin className="mt-1 size-5 shrink-0 text-rose-600" aria-hidden="true" />
          <span>
            {fullAddress}
            <br />
            <a
              href={site.mapLinkUrl}
              className="text-sm text-rose-700 underline-offset-4 hover:underline"
              target="_blank"
              rel="noreferrer"
            >
              Open in a map
            </a>
          </span>
        </p>
        <p className="flex items-center gap-3">
          <Phone className="size-5 shrink-0 text-rose-600" aria-hidden="true" />
          <span>
            <a href={site.phoneHref} className="font-semibold hover:text-rose-700">
              {site.phone}
            </a>
            <span className="text-muted-foreground"> · also {site.secondaryPhone}</span>
          </span>
        </p>
        <p className="flex items-center gap-3">
          <Mail className="size-5 shrink-0 text-rose-600" aria-hidden="true" />
          <a href={`mailto:${site.email}`} className="font-semibold hover:text-rose-700">
            Email Us
          </a>
          <span className="text-muted-foreground">{site.email}</span>
        </p>
        <div className="flex items-start gap-3">
          <Clock className="mt-1 size-5 shrink-0 text-rose-600" aria-hidden="true" />
          <dl
            className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm"
            aria-label="Opening hours"
            data-testid="opening-hours"
          >
            {hours.map((h) => (
              <div key={h.days} className="contents">
                <dt className="font-semibold">{h.days}</dt>
                <dd>{h.time}</dd>
              </div>
            ))}
          </dl>
        </div>
      </div>
      <div className="min-h-72 overflow-hidden rounded-lg border bg-sage-100">
        <ShopMap />
      </div>
    </div>
  )
}
