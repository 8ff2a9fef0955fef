import { Clock, Mail, MapPin, Phone } from 'lucide-react'
import { fullAddress, site } from '@/config/site'

/** Address, phones, e-mail, hours and the embedded map (the site still works when the map does not load). */
export function ContactBlock({ heading = 'Visit the Shop' }: { heading?: string }) {
  return (
    <div className="grid gap-8 lg:grid-cols-2">
      <div className="space-y-5">
        <h2 className="font-display text-3xl font-semibold">{heading}</h2>
        <p className="flex items-start gap-3">
          <MapPin className="mt-1 size-5 shrink-0 text-rose-600" aria-hidden="true" />
          <span>
            {fullAddress}
            <br />
            <a href={site.mapLinkUrl} className="text-sm text-rose-700 underline-offset-4 hover:underline" target="_blank" rel="noreferrer">
              Open in a map
            </a>
          </span>
        </p>
        <p className="flex items-center gap-3">
          <Phone className="size-5 shrink-0 text-rose-600" aria-hidden="true" />
          <span>
            <a href={site.phoneHref} className="font-semibold hover:text-rose-700">{site.phone}</a>
            <span className="text-muted-foreground"> · also {site.secondaryPhone}</span>
          </span>
        </p>
        <p className="flex items-center gap-3">
          <Mail className="size-5 shrink-0 text-rose-600" aria-hidden="true" />
          <a href={`mailto:${site.email}`} className="font-semibold hover:text-rose-700">Email Us</a>
          <span className="text-muted-foreground">{site.email}</span>
        </p>
        <div className="flex items-start gap-3">
          <Clock className="mt-1 size-5 shrink-0 text-rose-600" aria-hidden="true" />
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            {site.hours.map((h) => (
              <div key={h.days} className="contents">
                <dt className="font-semibold">{h.days}</dt>
                <dd>{h.time}</dd>
              </div>
            ))}
          </dl>
        </div>
      </div>
      <div className="min-h-72 overflow-hidden rounded-lg border bg-sage-100">
        <iframe
          title={`Map showing ${site.name} at ${fullAddress}`}
          src={site.mapEmbedUrl}
          className="h-full min-h-72 w-full"
          loading="lazy"
          referrerPolicy="no-referrer"
        />
      </div>
    </div>
  )
}
