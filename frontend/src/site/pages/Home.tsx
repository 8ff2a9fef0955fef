import { Suspense } from 'react'
import { Link } from 'react-router-dom'
import { Flower2, Heart, Sparkles } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { ContactBlock } from '@/site/layout/ContactBlock'
import { HeroBouquet, VaseCare } from '@/site/layout/Art'
import { Section } from '@/site/layout/PageHero'
import { site } from '@/config/site'
import { usePageMeta } from '@/lib/usePageMeta'
import { lazyRetry } from '@/app/lazyRetry'

// The featured products' code and data load after the page itself (a plain REST read: no
// supabase-js, no query cache on the first page).
const FeaturedProducts = lazyRetry(() => import('@/features/catalogue/FeaturedProducts'))

const cards = [
  {
    title: 'Shop Bouquets',
    text: 'Build a bouquet in the size, colours and style you love; we design it by hand.',
    to: '/build-bouquet',
    icon: Flower2,
    tint: 'bg-rose-100',
  },
  {
    title: 'Wedding Services',
    text: 'Bouquets, boutonnieres and centerpieces for your day, planned with you from the first consult.',
    to: '/weddings',
    icon: Heart,
    tint: 'bg-sage-100',
  },
  {
    title: 'Sympathy Flowers',
    text: 'Quiet, respectful arrangements and tributes, delivered with care to homes and services.',
    to: '/occasions/sympathy',
    icon: Sparkles,
    tint: 'bg-cream-200',
  },
]

export default function Home() {
  usePageMeta(
    '',
    `${site.name}: a neighbourhood florist in ${site.address.city}, Utah. Bouquets for every occasion, weddings and sympathy flowers.`,
  )
  return (
    <>
      <section className="relative overflow-hidden bg-gradient-to-br from-rose-100 via-cream-100 to-sage-100">
        <div className="mx-auto grid max-w-7xl items-center gap-8 px-4 py-12 md:grid-cols-2 md:py-20">
          <div className="text-center md:text-left">
            <p className="text-sm font-bold uppercase tracking-[0.2em] text-sage-700">
              {site.address.city}, Utah
            </p>
            <h1 className="mt-3 font-display text-5xl font-bold leading-[1.05] text-ink-900 sm:text-6xl">
              Floral Moments That Speak From The Heart
            </h1>
            <p className="mt-5 text-xl text-ink-700">Care you can see. Service you can feel.</p>
            <Button asChild size="lg" className="mt-8">
              <Link to="/occasions/best-sellers">SHOP NOW</Link>
            </Button>
          </div>
          <HeroBouquet className="mx-auto w-full max-w-md" />
        </div>
      </section>

      <Section aria-labelledby="services-heading">
        <h2 id="services-heading" className="sr-only">
          What we do
        </h2>
        <div className="grid gap-6 md:grid-cols-3">
          {cards.map((c) => (
            <article
              key={c.title}
              className="flex flex-col rounded-lg border bg-card p-6 shadow-sm"
            >
              <div
                className={`mb-4 inline-flex size-12 items-center justify-center rounded-full ${c.tint}`}
              >
                <c.icon className="size-6 text-rose-700" aria-hidden="true" />
              </div>
              <h3 className="font-display text-2xl font-semibold">{c.title}</h3>
              <p className="mt-2 flex-1 text-muted-foreground">{c.text}</p>
              <Button asChild variant="outline" className="mt-5 self-start">
                <Link to={c.to} aria-label={`SHOP NOW: ${c.title}`}>
                  SHOP NOW
                </Link>
              </Button>
            </article>
          ))}
        </div>
      </Section>

      <Suspense fallback={null}>
        <FeaturedProducts />
      </Suspense>

      <section className="bg-sage-100">
        <div className="mx-auto grid max-w-6xl items-center gap-8 px-4 py-14 md:grid-cols-2">
          <div>
            <h2 className="font-display text-4xl font-semibold">Your Neighbourhood Flower Shop</h2>
            <p className="mt-4 leading-relaxed text-ink-700">
              {site.name} is a small, friendly flower shop on Main Street. We know many of our
              customers by name, we buy fresh flowers several times a week, and every arrangement is
              cut, conditioned and designed by hand in the shop. Whether it is a birthday, a wedding
              or a goodbye, we are here to help you say it with flowers.
            </p>
            <Button asChild variant="sage" className="mt-6">
              <Link to="/about-us">MEET THE TEAM</Link>
            </Button>
          </div>
          <img
            src="/demo/team-owner.svg"
            alt="Illustrated portrait of the shop's owner"
            width={300}
            height={300}
            className="mx-auto w-64 rounded-full border-8 border-cream-50 shadow-md"
          />
        </div>
      </section>

      <Section aria-labelledby="care-heading">
        <div className="grid items-center gap-8 md:grid-cols-2">
          <VaseCare className="w-full" />
          <div>
            <h2 id="care-heading" className="font-display text-4xl font-semibold">
              Make Your Blooms Last Longer
            </h2>
            <ul className="mt-4 list-disc space-y-2 pl-5 text-ink-700">
              <li>Change the water every 2-3 days and rinse the vase.</li>
              <li>Trim stems at an angle each time you change the water.</li>
              <li>Remove leaves that would sit below the waterline.</li>
              <li>Keep flowers away from direct sun, heaters and ripening fruit.</li>
            </ul>
          </div>
        </div>
      </Section>

      <Section aria-label="Location and contact">
        <ContactBlock />
      </Section>
    </>
  )
}
