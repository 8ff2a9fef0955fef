import { Link } from 'react-router-dom'
import { Clock, Mail, Phone, ShoppingBag, Sparkles } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { PageHero, Section } from '@/site/layout/PageHero'
import { site } from '@/config/site'
import { usePageMeta } from '@/lib/usePageMeta'

export function HappyHour() {
  usePageMeta(
    'Happy Hour',
    '$5 flower specials Monday to Friday, 2:00 PM to closing, carry-out only.',
  )
  return (
    <>
      <PageHero
        title="Happy Hour"
        subtitle="$5 specials, Monday to Friday, from 2:00 PM to closing."
      />
      <Section className="max-w-3xl">
        <div className="rounded-lg border bg-card p-8 shadow-sm">
          <p className="font-display text-6xl font-bold text-rose-700">$5</p>
          <p className="mt-2 text-lg">
            Wrapped bunches and small arrangements, picked fresh from the day&apos;s cooler.
          </p>
          <ul className="mt-6 space-y-3 text-ink-700">
            <li className="flex items-start gap-3">
              <Clock className="mt-0.5 size-5 shrink-0 text-rose-600" aria-hidden="true" />
              Monday to Friday, 2:00 PM to closing
            </li>
            <li className="flex items-start gap-3">
              <ShoppingBag className="mt-0.5 size-5 shrink-0 text-rose-600" aria-hidden="true" />
              Carry-out only: no delivery on happy hour specials
            </li>
            <li className="flex items-start gap-3">
              <Sparkles className="mt-0.5 size-5 shrink-0 text-rose-600" aria-hidden="true" />
              Subject to availability: when they&apos;re gone, they&apos;re gone
            </li>
            <li className="flex items-start gap-3">
              <Phone className="mt-0.5 size-5 shrink-0 text-rose-600" aria-hidden="true" />
              <span>
                Call ahead on{' '}
                <a
                  className="whitespace-nowrap font-semibold underline-offset-4 hover:underline"
                  href={site.phoneHref}
                >
                  {site.phone}
                </a>{' '}
                and we&apos;ll set one aside
              </span>
            </li>
          </ul>
        </div>
      </Section>
    </>
  )
}

export function GiftsRetail() {
  usePageMeta(
    'Gifts & Retail',
    'Gifts and retail are coming soon. Custom arrangements and happy hour specials are available now.',
  )
  return (
    <>
      <PageHero title="Gifts & Retail" subtitle="Coming Soon">
        <p className="mx-auto mt-4 max-w-xl text-ink-700">
          Candles, cards, vases and locally made gifts will soon be on our shelves. Until then, ask
          us in the shop or get in touch:
        </p>
        <p className="mt-4 flex flex-wrap justify-center gap-x-6 gap-y-2 font-semibold">
          <a href={site.phoneHref} className="inline-flex items-center gap-2 hover:text-rose-700">
            <Phone className="size-4" aria-hidden="true" />
            {site.phone}
          </a>
          <a
            href={`mailto:${site.email}`}
            className="inline-flex items-center gap-2 hover:text-rose-700"
          >
            <Mail className="size-4" aria-hidden="true" />
            {site.email}
          </a>
        </p>
      </PageHero>
      <Section>
        <div className="grid gap-6 md:grid-cols-2">
          <article className="rounded-lg border bg-card p-6 shadow-sm">
            <h2 className="font-display text-3xl font-semibold">Custom Arrangements</h2>
            <p className="mt-2 text-muted-foreground">
              Tell us the colours, the size and the occasion; we design it by hand.
            </p>
            <Button asChild className="mt-5">
              <Link to="/build-bouquet">Build Your Bouquet</Link>
            </Button>
          </article>
          <article className="rounded-lg border bg-card p-6 shadow-sm">
            <h2 className="font-display text-3xl font-semibold">Happy Hour Specials</h2>
            <p className="mt-2 text-muted-foreground">
              $5 specials Monday to Friday from 2:00 PM to closing.
            </p>
            <Button asChild variant="sage" className="mt-5">
              <Link to="/happy-hour">See Happy Hour</Link>
            </Button>
          </article>
        </div>
      </Section>
    </>
  )
}

export function WeddingConsult() {
  usePageMeta('Wedding Consult', 'Book a free wedding flower consultation.')
  return (
    <>
      <PageHero
        title="Wedding Consult"
        subtitle="A free, unhurried conversation about the flowers of your day."
      />
      <Section className="max-w-3xl space-y-6 leading-relaxed text-ink-700">
        <ol className="space-y-5">
          <li>
            <h2 className="font-display text-2xl font-semibold text-ink-900">1. Get in touch</h2>
            <p>
              Call {site.phone} or write to {site.email} with your date, venue and an idea of your
              colours. We confirm availability within 48 hours.
            </p>
          </li>
          <li>
            <h2 className="font-display text-2xl font-semibold text-ink-900">
              2. Meet in the shop
            </h2>
            <p>
              Bring photos, swatches and your guest count. We walk through bouquets, boutonnieres,
              ceremony and reception pieces, and show you what is in season.
            </p>
          </li>
          <li>
            <h2 className="font-display text-2xl font-semibold text-ink-900">
              3. Receive your quote
            </h2>
            <p>
              Pricing varies with the flowers and the number of pieces, so every wedding is by
              quote. A deposit reserves your date.
            </p>
          </li>
          <li>
            <h2 className="font-display text-2xl font-semibold text-ink-900">4. Your day</h2>
            <p>We design everything the day before and deliver and set up on the day.</p>
          </li>
        </ol>
        <Button asChild size="lg">
          <a href={`mailto:${site.email}?subject=Wedding%20consult`}>Request a Consult</a>
        </Button>
      </Section>
    </>
  )
}

export function CustomDesigns() {
  usePageMeta('Custom Designs', 'One-of-a-kind arrangements for events, businesses and gifts.')
  const ideas = [
    [
      'Events & parties',
      'Centerpieces, entry pieces and bar flowers for birthdays, showers and anniversaries.',
    ],
    [
      'Businesses',
      'Weekly lobby and restaurant arrangements, delivered fresh and changed with the seasons.',
    ],
    [
      'Gifts',
      'A design built around the recipient: a favourite colour, a garden flower, a keepsake container.',
    ],
    ['Tributes', 'Personal sympathy pieces: casket sprays, standing sprays and memorial wreaths.'],
  ]
  return (
    <>
      <PageHero
        title="Custom Designs"
        subtitle="If you can picture it, we can grow it into an arrangement."
      />
      <Section>
        <div className="grid gap-6 sm:grid-cols-2">
          {ideas.map(([t, d]) => (
            <article key={t} className="rounded-lg border bg-card p-6 shadow-sm">
              <h2 className="font-display text-2xl font-semibold">{t}</h2>
              <p className="mt-2 text-muted-foreground">{d}</p>
            </article>
          ))}
        </div>
        <p className="mt-8 text-center text-ink-700">
          Start with the{' '}
          <Link
            to="/build-bouquet"
            className="font-semibold text-rose-700 underline-offset-4 hover:underline"
          >
            bouquet request form
          </Link>{' '}
          or call us on{' '}
          <a href={site.phoneHref} className="font-semibold text-rose-700">
            {site.phone}
          </a>
          .
        </p>
      </Section>
    </>
  )
}
