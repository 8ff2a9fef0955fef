import { PageHero, Section } from '@/site/layout/PageHero'
import { site } from '@/config/site'
import { usePageMeta } from '@/lib/usePageMeta'
import { TeamGrid } from './OurShop'

export default function AboutUs() {
  usePageMeta('About Us', `Who we are: the team behind ${site.name}.`)
  return (
    <>
      <PageHero
        title="About Us"
        subtitle={`A friendly neighbourhood flower shop in ${site.address.city}, Utah.`}
      />
      <Section className="max-w-3xl space-y-4 leading-relaxed text-ink-700">
        <p>
          We are a small team of florists who believe flowers should feel personal. We design every
          arrangement by hand, we source from local growers in season, and we take the time to ask
          who the flowers are for.
        </p>
        <p>
          From a single stem for a first date to the flowers of a whole wedding, from a birthday
          surprise to a tribute at a memorial service, we treat every order as if it were for our
          own family.
        </p>
      </Section>
      <TeamGrid />
    </>
  )
}
