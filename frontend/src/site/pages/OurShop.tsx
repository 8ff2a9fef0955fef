import { Button } from '@/components/ui/button'
import { PageHero, Section } from '@/site/layout/PageHero'
import { ShopFront } from '@/site/layout/Art'
import { site } from '@/config/site'
import { usePageMeta } from '@/lib/usePageMeta'

export function TeamGrid() {
  return (
    <section
      id="meet-our-florist"
      aria-labelledby="florist-heading"
      className="mx-auto max-w-6xl scroll-mt-32 px-4 py-12"
    >
      <h2 id="florist-heading" className="text-center font-display text-4xl font-semibold">
        Meet our Florist
      </h2>
      <ul className="mt-8 grid grid-cols-1 gap-8 sm:grid-cols-2 lg:grid-cols-4">
        {site.team.map((m) => (
          <li key={m.name} className="text-center">
            <img
              src={m.image}
              alt={`Portrait of ${m.name}`}
              width={300}
              height={300}
              loading="lazy"
              className="mx-auto w-48 rounded-full border-4 border-cream-50 shadow"
            />
            <p className="mt-4 font-display text-2xl font-semibold">{m.name}</p>
            <p className="text-sm font-semibold uppercase tracking-wider text-sage-700">{m.role}</p>
          </li>
        ))}
      </ul>
    </section>
  )
}

export default function OurShop() {
  usePageMeta('Our Shop & About Us', `The story of ${site.name}, its owner and its florists.`)
  const scrollToTeam = () =>
    document
      .getElementById('meet-our-florist')
      ?.scrollIntoView({ behavior: 'smooth', block: 'start' })
  return (
    <>
      <PageHero
        title="Our Shop & About Us"
        subtitle="Have a question about an order, a delivery or an event? Write or call: we answer every question within 48 hours."
      >
        <Button size="lg" className="mt-8" onClick={scrollToTeam}>
          MEET THE TEAM
        </Button>
      </PageHero>
      <Section>
        <div className="grid items-center gap-10 md:grid-cols-2">
          <div>
            <h2 className="font-display text-4xl font-semibold">Meet the Owner</h2>
            <p className="mt-1 font-semibold text-sage-700">
              {site.owner.name}, {site.owner.title}
            </p>
            <p className="mt-4 leading-relaxed text-ink-700">
              {site.owner.name} opened the shop after fifteen years of arranging flowers for
              friends, churches and weddings around southern Utah. She still starts every morning at
              the cooler, choosing the stems for the day&apos;s orders, and loves nothing more than
              a customer who says &ldquo;surprise me&rdquo;.
            </p>
            <p className="mt-3 leading-relaxed text-ink-700">
              The shop is a place to linger: buckets of seasonal flowers by the door, plants and
              gifts on the shelves, and a design table where you can watch your bouquet come
              together.
            </p>
          </div>
          <ShopFront className="w-full" />
        </div>
      </Section>
      <TeamGrid />
    </>
  )
}
