import { Navigate, useLocation, useParams } from 'react-router-dom'
import { Phone } from 'lucide-react'
import { PageHero, Section } from '@/site/layout/PageHero'
import { ProductList } from './ProductList'
import { site } from '@/config/site'
import { usePageMeta } from '@/lib/usePageMeta'

interface OccasionPage {
  title: string
  intro: string
  /** Pages with a product list show the products of this category slug. */
  listsProducts: boolean
}

export const occasions: Record<string, OccasionPage> = {
  seasonal: {
    title: 'Seasonal',
    intro: 'The freshest flowers of the season, arranged while they are at their best.',
    listsProducts: true,
  },
  'best-sellers': {
    title: 'Best Sellers',
    intro: 'The arrangements our neighbours order again and again.',
    listsProducts: true,
  },
  everyday: {
    title: 'Everyday / Any Occasion',
    intro: 'Birthdays, thank-yous, get-well wishes or just because.',
    listsProducts: true,
  },
  plants: {
    title: 'Plants',
    intro: 'Green friends that stay for years, potted and ready to give.',
    listsProducts: true,
  },
  'dance-flowers': {
    title: 'Dance Flowers',
    intro: 'Corsages and boutonnieres for prom, homecoming and formals.',
    listsProducts: false,
  },
  sympathy: {
    title: 'Sympathy',
    intro: 'Quiet, respectful flowers for the home and for services.',
    listsProducts: false,
  },
  memorial: {
    title: 'Memorial',
    intro: 'Standing sprays, wreaths and casket pieces made with care.',
    listsProducts: false,
  },
  'love-romance': {
    title: 'Love & Romance',
    intro: 'Roses and soft tones for the ones you love.',
    listsProducts: false,
  },
}

export default function OccasionPage() {
  const { slug = '' } = useParams()
  const location = useLocation()
  const page = occasions[slug]
  usePageMeta(page?.title ?? 'Occasions', page?.intro ?? '')
  if (!page) return <Navigate to="/not-found" replace state={{ from: location.pathname }} />
  return (
    <>
      <PageHero title={page.title} subtitle={page.intro} />
      <Section className="max-w-7xl">
        {page.listsProducts ? (
          <ProductList categorySlug={slug} />
        ) : (
          <div className="mx-auto max-w-2xl rounded-lg border bg-card p-8 text-center shadow-sm">
            <h2 className="font-display text-3xl font-semibold">Please Call the Shop</h2>
            <p className="mt-3 text-ink-700">
              These designs are made to order. Please phone us so we can talk through the colours,
              the timing and the delivery, and create something just right.
            </p>
            <a
              href={site.phoneHref}
              className="mt-6 inline-flex items-center gap-2 rounded-md bg-primary px-6 py-3 font-bold text-white hover:bg-rose-700"
            >
              <Phone className="size-4" aria-hidden="true" />
              Call {site.phone}
            </a>
          </div>
        )}
      </Section>
    </>
  )
}
